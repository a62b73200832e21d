package mcpserver

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path decodes a call's params into callParams, which must have
// the fields mcp.CallToolParams has: a field the SDK adds (a go-sdk
// upgrade) could refuse a body the fast path takes.
func TestCallParamsHaveTheSDKsFields(t *testing.T) {
	if got, want := jsonFields(reflect.TypeFor[callParams]()), jsonFields(reflect.TypeFor[mcp.CallToolParams]()); !slices.Equal(got, want) {
		t.Errorf("callParams decodes %v; mcp.CallToolParams has %v: mirror the new fields, and leave calls that carry one to the SDK's handler", got, want)
	}
}

func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

package mcpserver

import (
	"net/http/httptest"
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

// A call to a tool that sends notifications, or binds an argument to a
// header, is left to the SDK's handler; today no tool does either.
func TestSDKOnlyToolsSkipTheFastPath(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_trainee","arguments":{}}}`)
	r := httptest.NewRequest("POST", "/mcp", nil)
	if _, ok := parseCall(r, body, &served{sdkOnly: map[string]bool{}}); !ok {
		t.Fatal("the fast path refused a plain call")
	}
	if _, ok := parseCall(r, body, &served{sdkOnly: map[string]bool{"get_trainee": true}}); ok {
		t.Error("the fast path took a call to a tool that sends notifications")
	}
	for _, opts := range []Options{{}, {Platform: true}, {Trainee: true}, {Trainee: true, Platform: true}} {
		if m := sdkOnlyTools(opts); len(m) != 0 {
			t.Errorf("%+v: tools left to the SDK's handler: %v; say so in docs/mcp.md", opts, m)
		}
	}
}

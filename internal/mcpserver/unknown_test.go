package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

// A tool name no set has is the protocol's invalid params (-32602), in
// every set alike, and its message names the closest tools of the set the
// caller has, not a bare "unknown tool"; its data is the structured error.
func TestAnUnknownToolNamesTheClosestToolsInEverySet(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	f := w.f
	cases := []struct {
		set, credential, call, want string
	}{
		{"coach", f.A.Key, "list_plan", "list_plans"},
		{"coach", f.A.Key, "serch_trainees", "search_trainees"},
		{"trainee", w.token, "get_plan", "get_my_plan"},
		{"trainee", w.token, "record_benchmarks", "record_benchmark"},
		{"platform", platformKey(t, f, f.A.Key), "studio_info", toolset.StudioInfoTool},
		{"platform", platformKey(t, f, f.A.Key), "confirm_code", toolset.ConfirmVerificationTool},
	}
	for _, c := range cases {
		cs := mcptest.Connect(t, f.URL+mcptest.GatedPath, c.credential)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.call, Arguments: map[string]any{}})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			t.Errorf("%s set, %s: %v; want a JSON-RPC error", c.set, c.call, err)
			continue
		}
		if rpc.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(rpc.Message, "There is no tool named "+c.call+"; did you mean ") || !strings.Contains(rpc.Message, c.want) {
			t.Errorf("%s set, %s: %d %q; want -32602 naming %s", c.set, c.call, rpc.Code, rpc.Message, c.want)
		}
		var data toolset.ErrorContent
		if json.Unmarshal(rpc.Data, &data) != nil || data.Error.Code != "UNKNOWN_TOOL" || data.Error.Message != rpc.Message {
			t.Errorf("%s set, %s: data %s", c.set, c.call, rpc.Data)
		}
	}
}

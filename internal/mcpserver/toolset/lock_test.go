package toolset_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

func connect(t *testing.T, opts toolset.Options) *mcp.ClientSession {
	t.Helper()
	server := toolset.NewServer(opts)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A tool of the set that the grant's scopes leave out is a failed call
// naming the scope, sent to no lane; a name of no set is -32602 naming
// the closest tools. (The gate refuses the first earlier on /mcp; the
// server holds too when reached without it, as over stdio.)
func TestAToolOutsideTheScopesNamesTheScope(t *testing.T) {
	cs := connect(t, toolset.Options{
		Client:  laneclient.New("http://127.0.0.1:1", nil, "mcp"), // nothing may reach it
		APIKey:  "pf_live_x",
		Trainee: true,
		Scopes:  []string{auth.ScopeTrainingRead},
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "log_workout", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("log_workout without training:write: %v", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	b, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(text, auth.ScopeTrainingWrite) || !strings.Contains(string(b), `"code":"FORBIDDEN"`) {
		t.Fatalf("log_workout without training:write: %s %s", text, b)
	}
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "log_workouts", Arguments: map[string]any{}})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, "did you mean") {
		t.Fatalf("log_workouts: %v", err)
	}
}

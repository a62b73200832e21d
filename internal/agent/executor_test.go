package agent

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/store"
)

// sameInputCases are wrong inputs of every kind: the tool's own refusals
// (types, bounds, unknown arguments, ids of the wrong kind) and the lane's.
var sameInputCases = []struct {
	tool string
	args map[string]any
}{
	{"get_trainee", map[string]any{"traineeId": 5}},
	{"get_trainee", map[string]any{"traineeId": ".."}},
	{"create_task", map[string]any{"title": "Call Dana", "priority": 9}},
	{"list_tags", map[string]any{"bogus": 1}},
	{"get_trainee", map[string]any{"traineeId": "trn_00000000000000000000000000"}},
}

// The hosted /mcp (through a real MCP client) and the assistant's model
// (through the fake Anthropic API) get the very same sentence for the same
// wrong input: both run it through the one executor.
func TestSameWrongInputSameSentenceOnMCPAndAssistant(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		h := newHarness(t, st)
		studio, _ := studioWithCoach(t, st, "Studio", "Noa", "0503434343", time.Now())
		seedHistory(t, h, "+972503434343")
		h.setScript(func(n int, _ fakes.MessagesRequest) fakes.Reply {
			if n < len(sameInputCases) {
				return fakes.CallTool(sameInputCases[n].tool, sameInputCases[n].args)
			}
			return fakes.Text("done")
		})
		h.send("972503434343", "c", "go")
		h.waitIdle()
		reqs := h.llm.Requests()
		if len(reqs) != len(sameInputCases)+1 {
			t.Fatalf("%d model calls; want %d", len(reqs), len(sameInputCases)+1)
		}

		// /mcp over the same store, with a key of the same studio.
		key := auth.NewKey()
		if err := st.CreateAPIKey(context.Background(), &domain.APIKey{StudioID: studio.ID, Name: "mcp", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
			t.Fatal(err)
		}
		ln := areas.Lane(lane.Options{Store: st, Logger: quietLogger()})
		srv := httptest.NewServer(mcpserver.New(mcpserver.Options{
			Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(ln), "mcp"),
			Logger: quietLogger(),
		}))
		t.Cleanup(srv.Close)
		cs := mcptest.Connect(t, srv.URL, key)

		for i, c := range sameInputCases {
			res := reqs[i+1].ToolResults()
			if len(res) != 1 || !res[0].IsError {
				t.Fatalf("%s %v: assistant got %+v; want one error", c.tool, c.args, res)
			}
			viaMCP, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("%s: protocol error %v", c.tool, err)
			}
			if !viaMCP.IsError || mcptest.Text(viaMCP) != res[0].ResultText() {
				t.Errorf("%s %v:\n  /mcp:      %q (isError %v)\n  assistant: %q", c.tool, c.args, mcptest.Text(viaMCP), viaMCP.IsError, res[0].ResultText())
			}
		}
	})
}

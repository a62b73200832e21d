package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// An MCP client sends no Idempotency-Key, and models retry: the same
// send_form four times announces the form once and assigns it once; the
// same assign_plan twice starts one plan. Each repeat answers the first
// result with a second text block saying it is a repeat.
func TestARetriedWriteIsDoneOnce(t *testing.T) {
	t.Parallel()
	for engine, open := range storetest.Engines(t) {
		t.Run(engine, func(t *testing.T) {
			f := mcptest.NewOn(t, open(t))
			cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
			before := len(f.Notifications(t, f.A.Key))
			form := map[string]any{"traineeId": f.A.TraineeID, "formTemplateId": f.A.FormID, "notify": true, "prompt": "Sunday check-in"}
			var first string
			for i := range 4 {
				res := mcptest.Call(t, cs, "send_form", form)
				if res.IsError {
					t.Fatalf("send_form #%d: %s", i+1, mcptest.Text(res))
				}
				if i == 0 {
					first = mcptest.Text(res)
					if len(res.Content) != 1 {
						t.Fatalf("the first send_form is marked: %d blocks", len(res.Content))
					}
					continue
				}
				if mcptest.Text(res) != first || len(res.Content) != 2 || res.Content[1].(*mcp.TextContent).Text != executor.RepeatNote("send_form") {
					t.Fatalf("send_form #%d: %+v; want the first answer and the repeat note", i+1, res.Content)
				}
			}
			if got := len(f.Notifications(t, f.A.Key)) - before; got != 1 {
				t.Errorf("four identical send_form calls queued %d notifications; want 1", got)
			}

			plan := map[string]any{"traineeId": f.A.OtherTraineeID, "productId": f.A.ProductID, "startedOn": "2026-05-01"}
			a, b := mcptest.Call(t, cs, "assign_plan", plan), mcptest.Call(t, cs, "assign_plan", plan)
			if a.IsError || b.IsError || mcptest.Text(a) != mcptest.Text(b) {
				t.Fatalf("assign_plan twice: %q, %q", mcptest.Text(a), mcptest.Text(b))
			}
			subs := mcptest.Call(t, cs, "list_trainee_subscriptions", map[string]any{"traineeId": f.A.OtherTraineeID})
			var list struct{ Total int }
			if err := json.Unmarshal([]byte(mcptest.Text(subs)), &list); err != nil || list.Total != 1 {
				t.Errorf("subscriptions after assign_plan twice: %s", mcptest.Text(subs))
			}

			// The instructions say so, once for every write.
			if got := cs.InitializeResult().Instructions; !strings.Contains(got, tools.RepeatSentence) {
				t.Errorf("the instructions do not say what a repeat does: %q", got)
			}
		})
	}
}

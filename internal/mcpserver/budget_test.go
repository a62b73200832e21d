package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// catalogueBudget and traineeCatalogueBudget are the most the coach's and
// the trainee's catalogues may cost a model's context on every turn, in
// tokens counted as bytes / 4: the tools/list result as the client
// receives it, every tool with its title and explicit hints.
const (
	catalogueBudget        = 10000
	traineeCatalogueBudget = 7000
)

// The whole coach catalogue stays small: a tool or a description that
// pushes tools/list over the budget fails here, and docs/mcp.md states
// the figure this test logs.
func TestToolsListFitsTheBudget(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tokens := len(b) / 4
	t.Logf("tools/list: %d tools, %d characters, about %d tokens (budget %d)", len(res.Tools), len(b), tokens, catalogueBudget)
	if tokens > catalogueBudget {
		t.Errorf("tools/list is about %d tokens (%d characters / 4), over the budget of %d: shorten descriptions or drop arguments", tokens, len(b), catalogueBudget)
	}
}

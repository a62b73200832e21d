package mcpserver_test

import (
	"context"
	"testing"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
)

// Every tool of every set (coach, trainee, agent platform) carries a title
// and its readOnlyHint, destructiveHint and openWorldHint as explicit
// booleans, as the directories require; and the hints say what the tool
// does: reads are read-only and idempotent, nothing is destructive, and
// only the tool that sends a code to a phone reaches outside the studio.
func TestEveryToolCarriesItsTitleAndExplicitHints(t *testing.T) {
	w := newTraineeWorld(t)
	f := w.f
	for set, credential := range map[string]string{"coach": f.A.Key, "trainee": w.token, "platform": platformKey(t, f, f.A.Key)} {
		cs := mcptest.Connect(t, f.URL+mcptest.GatedPath, credential)
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s set: %v", set, err)
		}
		if len(list.Tools) == 0 {
			t.Fatalf("%s set lists no tools", set)
		}
		for _, tool := range list.Tools {
			a := tool.Annotations
			switch {
			case tool.Title == "":
				t.Errorf("%s set: %s has no title", set, tool.Name)
			case a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil:
				t.Errorf("%s set: %s leaves a hint to its default: %+v", set, tool.Name, a)
			case *a.DestructiveHint:
				t.Errorf("%s set: %s says it is destructive", set, tool.Name)
			case a.ReadOnlyHint && !a.IdempotentHint:
				t.Errorf("%s set: %s reads but is not idempotent", set, tool.Name)
			case *a.OpenWorldHint != (tool.Name == toolset.StartVerificationTool):
				t.Errorf("%s set: %s openWorldHint %v", set, tool.Name, *a.OpenWorldHint)
			}
		}
	}
}

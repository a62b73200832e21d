package studio_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// X-Perform-Source from the network is not believed: the task, the outbox
// row and the audit say api. Perform's own in-process surfaces are known
// from the context their transport marks: mcp and agent.
func TestSourceComesOnlyFromPerformsSurfaces(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("source")
		ctx := context.Background()

		var spoofTask domain.Task
		spoof := e.OK(201, e.Call(f.Key, "POST", "/tasks", map[string]any{"title": "spoofed"}, auth.SourceHeader, "agent"))
		spoof.Into(t, &spoofTask)
		var spoofTrainee domain.Trainee
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "S", "lastName": "Poof", "phone": "0541239999", "notify": true}, auth.SourceHeader, "mcp")).Into(t, &spoofTrainee)

		got := map[string]string{"network": spoofTask.Source}
		for _, source := range []string{domain.SourceMCP, domain.SourceAgent} {
			c := laneclient.New("http://perform.internal", laneclient.HandlerTransport(e.Lane), source)
			data, err := c.Do(ctx, f.Key, tools.Request{Method: "POST", Path: "/tasks", Body: map[string]any{"title": "from " + source}})
			if err != nil {
				t.Fatalf("%s: %v", source, err)
			}
			var task domain.Task
			if err := json.Unmarshal(data, &task); err != nil {
				t.Fatal(err)
			}
			got[source] = task.Source
			stored, err := st.Studio(f.Studio.ID).GetTask(ctx, task.ID)
			if err != nil || stored.Source != source {
				t.Errorf("%s: stored task source %q, %v", source, stored.Source, err)
			}
		}
		if got["network"] != "api" || got["mcp"] != "mcp" || got["agent"] != "agent" {
			t.Errorf("task sources %v; want network api, mcp mcp, agent agent", got)
		}
		if stored, _ := st.Studio(f.Studio.ID).GetTask(ctx, spoofTask.ID); stored.Source != "api" {
			t.Errorf("stored spoofed task source %q", stored.Source)
		}
		for _, n := range e.Notifications(f.Studio.ID) {
			if n.TraineeID == spoofTrainee.ID && n.Source != "api" {
				t.Errorf("outbox row %+v believed the header", n)
			}
		}
		e.Audit.Flush()
		l, err := st.ListAudit(ctx, f.Studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string]int{}
		for _, ev := range l.Items {
			sources[ev.Source]++
			if ev.RequestID == spoof.RequestID && ev.Source != "api" {
				t.Errorf("audit row of the spoofed request: %+v", ev)
			}
		}
		if sources["mcp"] != 1 || sources["agent"] != 1 {
			t.Errorf("audit sources %v; want one mcp and one agent row", sources)
		}
	})
}

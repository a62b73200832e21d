package lane_test

import (
	"context"
	"slices"
	"testing"

	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A dry run runs the write and rolls it back: the answer says what the
// write would answer, nothing is stored, the audit row says dry run, and
// the same Idempotency-Key used for real afterwards runs the write. A
// refused dry run is refused as the real call is. (Every write route of
// every area is swept in internal/areas/sweep.)
func TestDryRunRollsBackTheWrite(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, _ := e.Studio("toy-dry", "pro")
		dry := []string{lane.PreferHeader, "return=minimal, dry-run", lane.IdempotencyHeader, "dry-1"}

		bad := e.Fails(422, "VALIDATION", e.Call(key, "POST", "/tasks", map[string]any{"title": ""}, dry...))
		if real := e.Call(key, "POST", "/tasks", map[string]any{"title": ""}); real.Message() != bad.Message() || real.Status != bad.Status {
			t.Errorf("refused dry run %d %q, real call %d %q", bad.Status, bad.Message(), real.Status, real.Message())
		}

		a := e.OK(200, e.Call(key, "POST", "/tasks", map[string]any{"title": "Call Dana"}, dry...))
		if a.Header.Get(lane.PreferenceAppliedHeader) != "dry-run" {
			t.Errorf("Preference-Applied = %q", a.Header.Get(lane.PreferenceAppliedHeader))
		}
		var d struct {
			DryRun bool `json:"dryRun"`
			Status int  `json:"status"`
			Data   struct {
				Title string `json:"title"`
			} `json:"data"`
		}
		a.Into(t, &d)
		if !d.DryRun || d.Status != 201 || d.Data.Title != "Call Dana" {
			t.Fatalf("dry run answered %s", a.Raw)
		}
		if n := kit.CountTasks(t, st, s.ID); n != 0 {
			t.Fatalf("%d tasks after a dry run; want 0", n)
		}
		real := e.OK(201, e.Call(key, "POST", "/tasks", map[string]any{"title": "Call Dana"}, lane.IdempotencyHeader, "dry-1"))
		if real.Header.Get(lane.ReplayedHeader) != "" || kit.CountTasks(t, st, s.ID) != 1 {
			t.Fatalf("the real call after the dry run: %s (replayed %q)", real.Raw, real.Header.Get(lane.ReplayedHeader))
		}
		e.Audit.Flush()
		l, err := st.ListAudit(context.Background(), s.ID, store.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var routes []string
		for _, ev := range l.Items {
			routes = append(routes, ev.Route)
		}
		if !slices.Contains(routes, "POST /v1/automation/tasks (dry run)") {
			t.Errorf("audit routes %q lack the dry run's", routes)
		}
	})
}

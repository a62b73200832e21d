package sweep_test

import (
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/views"
)

// A view is an address under ui://perform/ on a route a tool calls, and
// the route's contract carries it to the tools.
func TestViewsAreDeclaredOnToolRoutes(t *testing.T) {
	t.Parallel()
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s was accepted", what)
			}
		}()
		f()
	}
	none := func(*lane.Call, *lane.NoInput) (struct{}, error) { return struct{}{}, nil }
	mustPanic("a view outside ui://perform/", func() { lane.View("https://example.com/chart") })
	mustPanic("a view with no name", func() { lane.View(lane.ViewScheme) })
	mustPanic("a view on a route no tool calls", func() {
		lane.Add(&lane.Routes{}, "GET", "/things", "Things.", none, lane.View(views.Triage))
	})
	lane.Add(&lane.Routes{}, "GET", "/things", "Things.", none, lane.Tool("list_things"), lane.View(views.Triage))

	got := map[string]string{}
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		if c.View != "" {
			got[c.Method+" "+c.Path] = c.View
		}
	}
	want := map[string]string{
		"GET /trainees/{id}/body-analysis": views.BodyTrend,
		"GET /trainees/{id}/benchmarks":    views.Benchmarks,
		"GET /trainees/{id}/debrief":       views.WeekAdherence,
		"GET /trainees/needs-attention":    views.Triage,
	}
	if len(got) != len(want) {
		t.Errorf("routes with a view: %v, want %v", got, want)
	}
	for route, uri := range want {
		if got[route] != uri {
			t.Errorf("%s has the view %q, want %q", route, got[route], uri)
		}
	}
}

package sweep_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store/storetest"
)

// toyArea is an area the product does not have: a list filtered by a coach
// id that it forgets to check, a write taking a day it forgets to bound,
// and a record whose id kind it never declared.
type toyArea struct{}

type toyFilter struct {
	CoachID string `json:"coachId,omitempty" jsonschema:"Whose toys." lane:"maxLength=100"`
}

type toyNote struct {
	Text string `json:"text" jsonschema:"The note." lane:"minLength=1,maxLength=200"`
	Day  string `json:"day,omitempty" jsonschema:"The day it is for." lane:"format=date"`
}

func (toyArea) Routes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/toys", "The toys.", func(*lane.Call, *toyFilter) ([]string, error) { return []string{}, nil })
	lane.Add(rs, "POST", "/toys", "A note on a toy.", func(_ *lane.Call, in *toyNote) (toyNote, error) { return *in, nil }, lane.Created())
	lane.Add(rs, "GET", "/toys/{id}", "One toy.", func(c *lane.Call, _ *lane.NoInput) (toyNote, error) { return toyNote{Text: c.ID()}, nil })
}

// withToy is every area and the toy.
func withToy() []lane.Area { return append(areas.All(areas.Options{}), toyArea{}) }

// recorder keeps what a check reports.
type recorder struct{ lines []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

// A new area is covered by the route-wide sweeps from its routes alone:
// the route checks find its unchecked filter, its unbounded day and its
// undeclared id kind, the dry-run sweep asks for its write's case, the
// tenancy sweep for its record's probe, and the bad-input sweep sends its
// write every bad string.
func TestSweepsCoverANewArea(t *testing.T) {
	t.Parallel()
	l := lane.New(lane.Options{Areas: withToy()})
	want := map[string]string{
		"every id filter is checked":     "GET /toys: filter coachId has no ref tag",
		"every written date has a range": "POST /toys: day has no when tag",
		"every path id has a kind":       "GET /toys/{id}: no kind for its {id}",
	}
	for name, check := range routeChecks {
		var r recorder
		check(&r, l)
		w, ok := want[name]
		switch {
		case ok && !slices.ContainsFunc(r.lines, func(s string) bool { return strings.HasPrefix(s, w) }):
			t.Errorf("%s: reported %q, want %q", name, r.lines, w)
		case !ok && len(r.lines) > 0:
			t.Errorf("%s: reported %q of a lane whose only faults are the toy's", name, r.lines)
		}
	}
	var r recorder
	dryRunWritesOf(&r, withToy())
	if want := []string{"write route POST /toys has no dry-run case in dryRunCases"}; !slices.Equal(r.lines, want) {
		t.Errorf("the dry-run sweep reported %q, want %q", r.lines, want)
	}
	r = recorder{}
	assertCoversEveryIDRoute(&r, l, tenancyProbes(kit.Fixture{}, kit.Fixture{}, "050-000-0000"))
	if want := []string{"no tenancy probe for GET /toys/{id}"}; !slices.Equal(r.lines, want) {
		t.Errorf("the tenancy sweep reported %q, want %q", r.lines, want)
	}
	e := lanetest.New(t, storetest.OpenSQLite(t), kit.Options{Areas: withToy()})
	writes, shapes := badInputSweep(t, e, e.Seed("toy"), func(path string) bool { return path == "/toys" })
	if writes != 1 || shapes != 3 {
		t.Errorf("the sweep covered %d write endpoints and %d strings of the toy, want 1 and 3 (text, day, coachId)", writes, shapes)
	}
}

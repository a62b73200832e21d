package sweep_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
)

// The route checks read every route of the lane they are given: a new
// area's routes are checked as soon as the area is in areas.All (and
// TestSweepsCoverANewArea runs them on a lane with an extra area).

// reporter is where a check reports a route that fails it.
type reporter interface {
	Errorf(format string, args ...any)
}

// allAreas is a lane of every area, serving nothing.
func allAreas() *lane.Lane { return lane.New(lane.Options{Areas: areas.All(areas.Options{})}) }

// routeChecks are the checks every route of a lane must pass.
var routeChecks = map[string]func(r reporter, l *lane.Lane){
	"every request string is bounded": everyRequestStringIsBounded,
	"every path id has a kind":        everyPathIDHasAKind,
	"every id filter is checked":      everyIDFilterIsChecked,
	"every written date has a range":  everyWrittenDateHasARange,
}

func TestNewBuildsEveryRouteSchema(t *testing.T) {
	t.Parallel()
	l := allAreas()
	if n := len(l.Contracts()); n != 134 {
		t.Fatalf("expected the full endpoint list, got %d routes", n)
	}
	var doc map[string]any
	if err := json.Unmarshal(l.OpenAPI(), &doc); err != nil {
		t.Fatalf("OpenAPI document is not JSON: %v", err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi version = %v", doc["openapi"])
	}
}

func TestEveryRouteStringIsBounded(t *testing.T) {
	t.Parallel()
	everyRequestStringIsBounded(t, allAreas())
}

func everyRequestStringIsBounded(r reporter, l *lane.Lane) {
	var check func(where string, s *jsonschema.Schema)
	check = func(where string, s *jsonschema.Schema) {
		for name, ps := range s.Properties {
			for _, x := range []*jsonschema.Schema{ps, ps.Items} {
				if x != nil && (x.Type == "string" || slices.Contains(x.Types, "string")) && x.MaxLength == nil && len(x.Enum) == 0 && x.Format == "" {
					r.Errorf("%s: %s takes a string of any length", where, name)
				}
			}
			if ps.Items != nil && len(ps.Items.Properties) > 0 {
				check(where+" "+name+"[]", ps.Items)
			}
		}
	}
	for _, c := range l.Contracts() {
		check(c.Method+" "+c.Path, c.Input)
	}
}

// Every route with an {id} knows its kind, so the route checks it. An
// exercise's id is a catalogue slug or exr_…: its handler checks it.
func TestEveryPathIDHasAKind(t *testing.T) {
	t.Parallel()
	everyPathIDHasAKind(t, allAreas())
}

func everyPathIDHasAKind(r reporter, l *lane.Lane) {
	for _, c := range l.Contracts() {
		if strings.Contains(c.Path, "{id}") && c.Path != "/exercises/{id}" && c.IDKind == "" {
			r.Errorf("%s %s: no kind for its {id}; declare the collection's id kind", c.Method, c.Path)
		}
	}
}

// Every id or tag filter of every route is checked: a request field that
// names a row (…Id, tag) carries a ref tag, so a new filter cannot forget it.
func TestEveryIDFilterIsChecked(t *testing.T) {
	t.Parallel()
	everyIDFilterIsChecked(t, allAreas())
}

func everyIDFilterIsChecked(r reporter, l *lane.Lane) {
	inputs := inputsOf(l)
	for _, c := range l.Checks() {
		if c.Method != "GET" {
			continue
		}
		for name := range inputs[c.Method+" "+c.Path].Properties {
			if (strings.HasSuffix(name, "Id") || name == "tag") && !slices.Contains(c.Refs, name) {
				r.Errorf("%s %s: filter %s has no ref tag, so an unknown value would answer an empty list", c.Method, c.Path, name)
			}
		}
	}
}

// Every date and instant a write takes has a plausible range (a when tag).
func TestEveryWrittenDateHasARange(t *testing.T) {
	t.Parallel()
	everyWrittenDateHasARange(t, allAreas())
}

func everyWrittenDateHasARange(r reporter, l *lane.Lane) {
	inputs := inputsOf(l)
	for _, c := range l.Checks() {
		if c.Method == "GET" {
			continue
		}
		for name, p := range inputs[c.Method+" "+c.Path].Properties {
			if (p.Format == "date" || p.Format == "date-time") && !slices.Contains(c.Dates, name) {
				r.Errorf("%s %s: %s has no when tag, so any date is stored", c.Method, c.Path, name)
			}
		}
	}
}

// inputsOf is each route's input schema by "METHOD path".
func inputsOf(l *lane.Lane) map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for _, c := range l.Contracts() {
		out[c.Method+" "+c.Path] = c.Input
	}
	return out
}

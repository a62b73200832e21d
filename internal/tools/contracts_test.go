package tools_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/tools"
)

// The tools read the lane's contracts from lane_contracts.json (so the
// stdio binary links no lane); the file must be what the lane's request
// types say today.
func TestLaneContractsFileIsCurrent(t *testing.T) {
	want, err := areas.Lane(lane.Options{}).ToolContractsJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("lane_contracts.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("lane_contracts.json differs from the lane's request types; run: go generate ./internal/tools")
	}
}

// Each tool against its route, read from the lane itself: same method and
// path, a route that is not app-only, and for every field the tool shares
// with the route the same type and bounds. Only descriptions differ; the
// tool leaves out nothing but its forced-silent fields.
func TestEveryToolMatchesItsLaneRoute(t *testing.T) {
	routes := map[string]lane.Contract{}
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		if c.Tool != "" {
			if _, dup := routes[c.Tool]; dup {
				t.Errorf("two lane routes name tool %s", c.Tool)
			}
			routes[c.Tool] = c
		}
	}
	forcedSilent := map[string][]string{
		"create_trainee": {"notify", "sendWhatsappInvite"},
		"assign_plan":    {"notify"},
		"assign_program": {"notify", "replaceExisting"},
	}
	for _, tool := range tools.All() {
		rt, ok := routes[tool.Name]
		if !ok {
			t.Errorf("%s: no lane route names it", tool.Name)
			continue
		}
		delete(routes, tool.Name)
		if rt.Method != tool.Method || rt.Path != tool.Path || rt.Scope != tool.Scope || tool.Scope == auth.ScopeStudioAdmin || (tool.Scope == auth.ScopeStudioRead) != tool.ReadOnly {
			t.Errorf("%s calls %s %s; the lane serves it at %s %s with the scope %q", tool.Name, tool.Method, tool.Path, rt.Method, rt.Path, rt.Scope)
		}
		// The path argument names the route's {id} of its kind.
		if rt.IDKind != "" {
			var pathArg string
			for name, kind := range tools.IDArguments {
				if kind == rt.IDKind && slices.Contains(tool.InputSchema.Required, name) && tool.InputSchema.Properties[name] != nil && strings.HasSuffix(name, "Id") &&
					(name != "clientId") && tool.InputSchema.Required[0] == name {
					pathArg = name
				}
			}
			if pathArg == "" {
				t.Errorf("%s: no required first argument carries the route's %s id", tool.Name, rt.IDKind)
			}
		}
		left := fieldsLeftOut(t, tool, rt.Input)
		if want := forcedSilent[tool.Name]; !slices.Equal(left, want) {
			t.Errorf("%s leaves out %v of its route's fields; want only the forced-silent %v", tool.Name, left, want)
		}
		for _, r := range rt.Input.Required {
			if !slices.Contains(tool.InputSchema.Required, r) {
				t.Errorf("%s: %s is required by the lane, optional for the tool", tool.Name, r)
			}
		}
	}
	for name := range routes {
		t.Errorf("lane route names tool %s, which the tool set does not have", name)
	}
}

// boundsDiff compares what a value may be (type, enum, bounds, formats,
// lengths, items), not how it is described; null aside, which the tools
// leave out (an optional argument is omitted, not sent as null).
func boundsDiff(lane, tool *jsonschema.Schema) string {
	norm := func(s *jsonschema.Schema) *jsonschema.Schema {
		c := s.CloneSchemas()
		var strip func(*jsonschema.Schema)
		strip = func(s *jsonschema.Schema) {
			if s == nil {
				return
			}
			s.Description = ""
			// Nested objects (the items of a list of objects) keep no
			// property order through lane_contracts.json; the bounds are what counts.
			s.PropertyOrder = nil
			for _, p := range s.Properties {
				strip(p)
			}
			if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
				s.Type, s.Types = s.Types[1-i], nil
			}
			s.Enum = slices.DeleteFunc(s.Enum, func(v any) bool { return v == nil })
			if len(s.Enum) == 0 {
				s.Enum = nil
			}
			strip(s.Items)
			strip(s.AdditionalProperties)
		}
		strip(c)
		return c
	}
	a, b := norm(lane), norm(tool)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !reflect.DeepEqual(ja, jb) {
		return "lane " + string(ja) + ", tool " + string(jb)
	}
	return ""
}

// fieldsLeftOut checks that every field the tool offers keeps its route's
// bounds, and answers the route's fields the tool leaves out, sorted.
func fieldsLeftOut(t *testing.T, tool tools.Tool, route *jsonschema.Schema) []string {
	t.Helper()
	var left []string
	for name, lp := range route.Properties {
		tp, ok := tool.InputSchema.Properties[name]
		if !ok {
			left = append(left, name)
			continue
		}
		if d := boundsDiff(lp, tp); d != "" {
			t.Errorf("%s.%s differs from the lane: %s", tool.Name, name, d)
		}
	}
	slices.Sort(left)
	return left
}

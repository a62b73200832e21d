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
	"github.com/otherwise/perform/internal/tools/lanecontracts"
)

// The tools read the lane's contracts from lane_contracts.json (so the
// stdio binary links no lane); the file must be what the lane's request
// types say today.
func TestLaneContractsFileIsCurrent(t *testing.T) {
	want, err := lanecontracts.JSON()
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

// Every tool of every set (coach, trainee, agent platform) against the
// route it calls, read from the lane itself: every argument it offers is
// one of the route's (its path argument aside) with the same type and
// bounds, and every field the route requires the tool requires or forces.
func TestEveryToolOfEverySetMatchesItsLaneContract(t *testing.T) {
	routes := map[string]lane.Contract{}
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		routes[c.Method+" "+c.Path] = c
	}
	sets := map[string][]tools.Tool{"coach": tools.All(), "trainee": tools.Trainee(), "platform": tools.Platform()}
	for set, list := range sets {
		if len(list) == 0 {
			t.Errorf("the %s set is empty", set)
		}
		for _, tool := range list {
			rt, ok := routes[tool.Method+" "+tool.Path]
			if !ok {
				t.Errorf("%s tool %s calls %s %s, which the lane does not serve", set, tool.Name, tool.Method, tool.Path)
				continue
			}
			if !lanecontracts.Selected(rt) {
				t.Errorf("%s tool %s calls %s %s, which lane_contracts.json leaves out", set, tool.Name, tool.Method, tool.Path)
			}
			for name, tp := range tool.Validates.Properties {
				lp, ok := rt.Input.Properties[name]
				if !ok {
					if !strings.Contains(rt.Path, "{") || tool.InputSchema.Required[0] != name {
						t.Errorf("%s tool %s offers %s, which its route's input does not have", set, tool.Name, name)
					}
					continue
				}
				if d := boundsDiff(lp, tp); d != "" {
					t.Errorf("%s tool %s: %s differs from the lane: %s", set, tool.Name, name, d)
				}
			}
			for _, r := range rt.Input.Required {
				if _, offered := tool.InputSchema.Properties[r]; offered && !slices.Contains(tool.InputSchema.Required, r) {
					t.Errorf("%s tool %s: %s is required by the lane, optional for the tool", set, tool.Name, r)
				}
			}
		}
	}
}

// The platform's tools are derived like the others: the phone a person
// gives is bounded by the lane's 40 characters (the hand-written schema
// said 64), and the set calls exactly the routes the lane opens to a
// platform key.
func TestThePlatformSetIsDerivedFromTheLane(t *testing.T) {
	var routes []string
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		if c.Scope == auth.ScopePublicRead {
			routes = append(routes, c.Method+" "+c.Path)
			if c.Path == "/public/verification/start" {
				if m := c.Input.Properties["phone"].MaxLength; m == nil || *m != 40 {
					t.Fatalf("the lane bounds phone with %v; this test expects 40", m)
				}
			}
		}
	}
	var called []string
	for _, tool := range tools.Platform() {
		called = append(called, tool.Method+" "+tool.Path)
		if tool.Scope != auth.ScopePublicRead || !tool.Unkeyed {
			t.Errorf("%s: scope %q, unkeyed %v; want %q and no derived Idempotency-Key", tool.Name, tool.Scope, tool.Unkeyed, auth.ScopePublicRead)
		}
		if tool.InputSchema.Type != "object" {
			t.Errorf("%s: input schema of type %q", tool.Name, tool.InputSchema.Type)
		}
	}
	slices.Sort(routes)
	slices.Sort(called)
	if !slices.Equal(routes, called) {
		t.Errorf("the platform set calls %v; the lane opens %v to a platform key", called, routes)
	}
	var start tools.Tool
	for _, tool := range tools.Platform() {
		if tool.Name == tools.StartVerificationTool {
			start = tool
		}
	}
	phone := start.InputSchema.Properties["phone"]
	if phone == nil || phone.MaxLength == nil || *phone.MaxLength != 40 || phone.Type != "string" {
		t.Fatalf("start_verification's phone schema: %+v; want a string of at most 40 characters", phone)
	}
	if _, err := start.Build(json.RawMessage(`{"phone":"` + strings.Repeat("5", 41) + `"}`)); err == nil {
		t.Error("start_verification took a 41-character phone")
	}
	if r, err := start.Build(json.RawMessage(`{"phone":"+972 50-100-0001"}`)); err != nil || r.Method != "POST" || r.Path != "/public/verification/start" {
		t.Errorf("start_verification with a phone: %+v, %v", r, err)
	}
	if names := tools.PlatformPublic(); len(names) != 3 || slices.ContainsFunc(names, func(t tools.Tool) bool { return t.Name == tools.SignOutTool }) {
		t.Errorf("the public platform tools hold sign_out or miss one: %d tools", len(names))
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
		"create_trainee":        {"notify", "sendWhatsappInvite"},
		"assign_plan":           {"notify"},
		"assign_plan_to_group":  {"durationDays", "notify", "price"},
		"send_form_to_group":    {"dueAt", "fieldValues", "notify", "prompt"},
		"create_task_for_group": {"detail", "priority"},
		"assign_program":        {"notify", "replaceExisting"},
	}
	for _, tool := range tools.All() {
		rt, ok := routes[tool.Name]
		if !ok {
			t.Errorf("%s: no lane route names it", tool.Name)
			continue
		}
		delete(routes, tool.Name)
		if rt.Method != tool.Method || rt.Path != tool.Path || rt.Scope != tool.Scope || tool.Scope == auth.ScopeStudioAdmin ||
			(tool.Scope != auth.ScopeBilling && (tool.Scope == auth.ScopeStudioRead) != tool.ReadOnly) {
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
	if pairs := tools.PairsFor(lane); pairs != nil {
		lane = pairs // an open map is offered as {key, value} pairs (strict mode)
	}
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
		tp, ok := tool.Validates.Properties[name]
		if !ok {
			left = append(left, name)
			continue
		}
		if d := boundsDiff(lp, tp); d != "" {
			t.Errorf("%s.%s differs from the lane: %s", tool.Name, name, d)
		}
		listed := lp
		if pairs := tools.PairsFor(lp); pairs != nil {
			listed = pairs
		}
		listed = withoutLongBounds(listed)
		if (name == "limit" || name == "offset") && !slices.ContainsFunc(tools.Trainee(), func(x tools.Tool) bool { return x.Name == tool.Name }) {
			listed.Minimum, listed.Maximum = nil, nil // the coach instructions state them
		}
		if d := boundsDiff(listed, tool.InputSchema.Properties[name]); d != "" {
			t.Errorf("%s.%s as listed differs from the lane less its bounds of 100 characters or more: %s", tool.Name, name, d)
		}
	}
	slices.Sort(left)
	return left
}

// withoutLongBounds is s less every maxLength of 100 or more and every
// "additionalProperties": false: what a catalogue may leave out of a
// tool's listed input (its validator keeps them, and the instructions say
// the second once), as may the coach catalogue the paging bounds its
// instructions state.
func withoutLongBounds(s *jsonschema.Schema) *jsonschema.Schema {
	c := s.CloneSchemas()
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if s.MaxLength != nil && *s.MaxLength >= 100 {
			s.MaxLength = nil
		}
		if b, err := json.Marshal(s.AdditionalProperties); err == nil && string(b) == "false" {
			s.AdditionalProperties = nil
		}
		walk(s.Items)
		walk(s.AdditionalProperties)
		for _, p := range s.Properties {
			walk(p)
		}
	}
	walk(c)
	return c
}

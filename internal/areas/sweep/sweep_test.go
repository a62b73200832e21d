package sweep_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// sweepValues are the bad strings of the sweep, as JSON literals sent as
// they are (so a lone surrogate or a raw byte reaches the server intact),
// and as raw strings for queries.
var sweepValues = []struct{ name, json, raw string }{
	{"NUL", `"a\u0000b"`, "a\x00b"},
	{"raw invalid UTF-8", "\"a\xff\xfeb\"", "a\xff\xfeb"},
	{"C0 control ESC", `"a\u001b[2J"`, "a\x1b[2J"},
	{"C0 control BEL", `"\u0007"`, "\x07"},
	{"carriage return", `"a\rb"`, "a\rb"},
	{"lone high surrogate", `"a\ud800b"`, "a\xed\xa0\x80b"},
	{"lone low surrogate", `"\udfff"`, "\xed\xbf\xbf"},
	{"100k characters", `"` + strings.Repeat("a", 100_000) + `"`, strings.Repeat("a", 100_000)},
}

// sweepField is one place a string goes in a request body: the body with
// the string at that place, and the field a refusal must name.
type sweepField struct {
	field string
	body  func(bad string) string
}

// stringFields lists every place a string can go in a body of schema s
// (an OpenAPI request body schema): string properties, items of string
// lists, string properties of the objects in lists, and free JSON values.
func stringFields(s map[string]any) []sweepField {
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []sweepField
	for _, name := range names {
		ps := props[name].(map[string]any)
		key, _ := json.Marshal(name)
		wrap := func(inner func(bad string) string) func(string) string {
			return func(bad string) string { return "{" + string(key) + ":" + inner(bad) + "}" }
		}
		switch typeOf(ps) {
		case "string":
			out = append(out, sweepField{name, wrap(func(bad string) string { return bad })})
		case "array":
			items, _ := ps["items"].(map[string]any)
			switch typeOf(items) {
			case "string":
				out = append(out, sweepField{name, wrap(func(bad string) string { return "[" + bad + "]" })})
			case "object":
				for _, sub := range stringFields(items) {
					out = append(out, sweepField{name + "[0]." + sub.field, wrap(func(bad string) string { return "[" + sub.body(bad) + "]" })})
				}
			}
		case "", "object":
			// A free JSON value or object: a string in it, and a string
			// inside an object in it.
			out = append(out, sweepField{name, wrap(func(bad string) string { return bad })})
			out = append(out, sweepField{name, wrap(func(bad string) string { return `{"note":` + bad + `}` })})
		}
	}
	return out
}

func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				return x.(string)
			}
		}
	}
	return ""
}

// The bad-input sweep: every endpoint of the OpenAPI document, every string
// its body or query takes, every kind of bad text answers a 4xx that names
// the field, never a 5xx and never a success, on SQLite and Postgres.
func TestBadInputSweep(t *testing.T) {
	kit.EachSweepEngine(t, kit.SweepEngines, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		writes, shapes := badInputSweep(t, e, e.Seed("sweep"), nil)
		if writes < 15 || shapes < 40 {
			t.Errorf("the sweep covered %d write endpoints and %d string fields; the document lists more", writes, shapes)
		}
	})
}

// badInputSweep sweeps the routes of e's lane whose path keep keeps (nil:
// every route), f seeded; it answers how many write endpoints and string
// fields it covered.
func badInputSweep(t *testing.T, e *kit.Env, f kit.Fixture, keep func(path string) bool) (writes, shapes int) {
	t.Helper()
	_, spareKeyID := e.NewKey(f.Studio.ID, "spare")
	idFor := map[string]string{
		"trainees": f.Trainee.ID, "subscriptions": f.Subscription.ID, "products": f.Product.ID, "coaches": f.Coach.ID,
		"tags": f.Tag.ID, "tasks": f.Task.ID, "keys": spareKeyID, "program-templates": f.Template.ID, "forms": f.Form.ID,
		"exercises": f.Exercise.ID,
		"sessions":  f.Session.ID, "benchmarks": f.Benchmark.ID,
		"injuries": f.Injury.ID, "goals": f.Goal.ID, "programs": f.Program.ID, "plan-drafts": f.Draft.ID,
		"payments":     f.Payment.ID,
		"appointments": f.Appointment.ID,
		// An id of the kind that names no event: a body's bad text is refused before any lookup.
		"payment-events": ids.New(ids.PaymentEvent),
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Parameters []struct {
				Name   string         `json:"name"`
				In     string         `json:"in"`
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(e.Lane.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	platformKey := e.PlatformKey(f.Key) // the agent platform's routes are swept with it
	n := 0
	for path, ops := range doc.Paths {
		if keep != nil && !keep(path) {
			continue
		}
		key := f.Key
		if strings.HasPrefix(path, "/public/") {
			key = platformKey
		}
		concrete := path
		parts := strings.Split(path, "/")
		for i, p := range parts {
			if p == "{id}" {
				id, ok := idFor[parts[i-1]]
				if !ok {
					t.Fatalf("%s: no fixture id for the collection %q", path, parts[i-1])
				}
				concrete = strings.Replace(concrete, "{id}", id, 1)
			}
		}
		if strings.Contains(concrete, "{") {
			continue // /trainees/by-phone/{phone}: the phone is its own field (normalised, 422 phone)
		}
		for method, op := range ops {
			method = strings.ToUpper(method)
			if op.RequestBody != nil {
				writes++
				for _, sf := range stringFields(op.RequestBody.Content["application/json"].Schema) {
					shapes++
					for _, v := range sweepValues {
						// With an Idempotency-Key, so the kept refusal is stored too.
						n++
						a := e.Call(key, method, concrete, sf.body(v.json), "Idempotency-Key", fmt.Sprintf("sweep-%d", n))
						if a.Status < 400 || a.Status >= 500 || !kit.Names(a.Fields(), sf.field) {
							t.Errorf("%s %s with %s in %s: %d %s", method, path, v.name, sf.field, a.Status, schemaShort(a.Raw))
						}
					}
				}
			}
			for _, p := range op.Parameters {
				if p.In != "query" || typeOf(p.Schema) != "string" && typeOf(p.Schema) != "array" {
					continue
				}
				shapes++
				for _, v := range sweepValues {
					a := e.Call(key, method, concrete+"?"+p.Name+"="+url.QueryEscape(v.raw), nil)
					if a.Status < 400 || a.Status >= 500 || !kit.Names(a.Fields(), p.Name) {
						t.Errorf("%s %s?%s= %s: %d %s", method, path, p.Name, v.name, a.Status, schemaShort(a.Raw))
					}
				}
			}
		}
	}
	t.Logf("swept %d write endpoints, %d string fields and query parameters, %d values each", writes, shapes, len(sweepValues))
	return writes, shapes
}

func schemaShort(s string) string {
	if len(s) > 300 {
		return fmt.Sprintf("%s… (%d bytes)", s[:300], len(s))
	}
	return s
}

// Free-form answers are bounded too: a form's text answer, given or filled
// in ahead, holds at most what a form field's text may.
func TestLongFormAnswersAreRefused(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("long-answers")
		long := strings.Repeat("a", 100_000)
		tp := "/trainees/" + f.Trainee.ID
		a := e.Call(f.Key, "POST", tp+"/form-responses", map[string]any{"formTemplateId": f.Form.ID, "answers": map[string]any{"sleep": 3, "notes": long}})
		if a.Status != 422 || !kit.Names(a.Fields(), "answers") {
			t.Errorf("a 100k-character answer: %d %s", a.Status, schemaShort(a.Raw))
		}
		a = e.Call(f.Key, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false, "fieldValues": map[string]any{"notes": long}})
		if a.Status != 422 || !kit.Names(a.Fields(), "fieldValues") {
			t.Errorf("a 100k-character field value: %d %s", a.Status, schemaShort(a.Raw))
		}
	})
}

package schema

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/text"
)

type testItem struct {
	Key  string `json:"key"`
	Type string `json:"type"`
}

type testInput struct {
	Title    string     `json:"title"`
	Limit    int        `json:"limit,omitempty"`
	WeightKg *float64   `json:"weightKg,omitempty"`
	Status   string     `json:"status,omitempty"`
	DueOn    *string    `json:"dueOn,omitempty"`
	Tags     []string   `json:"tags,omitempty"`
	Fields   []testItem `json:"fields,omitempty"`
	Notify   bool       `json:"notify,omitempty"`
	Extra    any        `json:"extra,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// testSchema is testInput's schema narrowed the way the lane's tags and the
// tools' conventions narrow theirs.
func testSchema(t testing.TB) *jsonschema.Schema {
	s, err := jsonschema.For[testInput](nil)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	p["title"].MinLength, p["title"].MaxLength = ptr(1), ptr(100)
	p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(200.0)
	p["weightKg"].ExclusiveMinimum, p["weightKg"].Maximum = ptr(0.0), ptr(500.0)
	p["status"].Enum = []any{"open", "done"}
	p["dueOn"].Format = "date"
	p["tags"].MaxItems = ptr(3)
	p["tags"].Items.MinLength = ptr(1)
	p["fields"].Items.Properties["type"].Enum = []any{"text", "number"}
	return s
}

func testObject(t testing.TB) *Object {
	o, err := NewObject(testSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestDescribe(t *testing.T) {
	s := testSchema(t)
	for name, want := range map[string]string{
		"title":    "a string of 1 to 100 characters",
		"limit":    "a whole number from 1 to 200",
		"weightKg": "a number above 0 and at most 500",
		"status":   `one of "open", "done"`,
		"dueOn":    "a date like 2026-03-01",
		"tags":     "a list of at most 3 strings that are not empty",
		"fields":   "a list of objects",
		"notify":   "true or false",
	} {
		if got := Describe(s.Properties[name]); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if got := Describe(&jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "integer", Minimum: ptr(0.0)}}); got != "a list of whole numbers of at least 0" {
		t.Errorf("list of numbers: %q", got)
	}
}

func TestCheckNamesEveryProblem(t *testing.T) {
	o := testObject(t)
	var obj map[string]json.RawMessage
	body := `{"limit":500,"weightKg":0,"status":"gone","dueOn":"2026-13-01","tags":["a",""],"fields":[{"key":"a","type":"text"},{"type":"colour","size":1},7],"colour":"red"}`
	if err := json.Unmarshal([]byte(body), &obj); err != nil {
		t.Fatal(err)
	}
	got := map[string]Problem{}
	var order []string
	for _, p := range o.Check(obj) {
		got[p.Path] = p
		order = append(order, p.Path)
	}
	want := map[string]Problem{
		"title":          {"title", Missing, "title is required; it must be a string of 1 to 100 characters."},
		"limit":          {"limit", Invalid, "limit must be a whole number from 1 to 200; got 500."},
		"weightKg":       {"weightKg", Invalid, "weightKg must be a number above 0 and at most 500; got 0."},
		"status":         {"status", Invalid, `status must be one of "open", "done"; got "gone".`},
		"dueOn":          {"dueOn", Invalid, `dueOn must be a date like 2026-03-01; got "2026-13-01".`},
		"tags":           {"tags", Invalid, `tags must be a list of at most 3 strings that are not empty; got ["a",""].`},
		"fields[1].key":  {"fields[1].key", Missing, "fields[1].key is required; it must be a string."},
		"fields[1].type": {"fields[1].type", Invalid, `fields[1].type must be one of "text", "number"; got "colour".`},
		"fields[1].size": {"fields[1].size", Unknown, "fields[1].size is not a field of this request; the fields are key, type."},
		"fields[2]":      {"fields[2]", Invalid, "fields[2] must be an object."},
		"colour":         {"colour", Unknown, "colour is not a field of this request; the fields are title, limit, weightKg, status, dueOn, tags, fields, notify, extra."},
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("%s: got %+v\nwant %+v", path, got[path], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("problems at %v", order)
	}
	if order[0] != "title" || order[len(order)-1] != "colour" {
		t.Errorf("problems not in property order, unknown last: %v", order)
	}
	if ps := o.Check(map[string]json.RawMessage{"title": json.RawMessage(`"t"`), "tags": json.RawMessage(`["a","b","c","d"]`)}); len(ps) != 1 || !strings.HasSuffix(ps[0].Message, `; got ["a","b","c","d"].`) {
		t.Errorf("too many tags: %+v", ps)
	}
	if ps := o.Check(map[string]json.RawMessage{"title": json.RawMessage(`null`)}); len(ps) != 1 || ps[0].Message != "title must be a string of 1 to 100 characters; null is not allowed." {
		t.Errorf("required null: %+v", ps)
	}
	if ps := o.Check(map[string]json.RawMessage{"title": json.RawMessage(`"t"`), "dueOn": json.RawMessage(`null`), "fields": json.RawMessage(`[{"key":"k","type":"number"}]`)}); len(ps) != 0 {
		t.Errorf("valid object refused: %+v", ps)
	}
}

func TestShortJSON(t *testing.T) {
	if got := ShortJSON("a<b"); got != `"a<b"` {
		t.Errorf("ShortJSON escapes HTML: %s", got)
	}
	if got := ShortJSON(strings.Repeat("x", 100)); got != `"`+strings.Repeat("x", 59)+"…" {
		t.Errorf("ShortJSON long: %s", got)
	}
}

func TestJSONProblem(t *testing.T) {
	var in struct {
		Limit    int     `json:"limit"`
		WeightKg float64 `json:"weightKg"`
		Name     string  `json:"name"`
	}
	for body, want := range map[string]string{
		`{"limit":`:                      "invalid JSON at byte 9",
		`[1]`:                            "expected a JSON object, got a JSON array",
		`{"limit":5.0}`:                  "limit must be a whole number written without a decimal point or exponent; got 5.0",
		`{"limit":1e99}`:                 "limit must be a whole number written without a decimal point or exponent; got 1e99",
		`{"limit":99999999999999999999}`: "limit is out of range for a whole number; got 99999999999999999999",
		`{"weightKg":1e400}`:             "weightKg is out of range for a number; got 1e400",
		`{"name":5}`:                     "name cannot hold a JSON number",
	} {
		err := json.Unmarshal([]byte(body), &in)
		if got := JSONProblem(err); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}

// FuzzCheck feeds arbitrary objects to Check: it never panics; every
// problem is one readable sentence naming its path; an object it accepts
// is accepted by the whole schema too.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"title":"t"}`,
		`{"title":"","limit":0,"weightKg":1e400,"status":null,"tags":null}`,
		`{"title":"t","fields":[{"key":"a","type":"text"},{"type":"x","k":1},7,null]}`,
		`{"title":"t","tags":["a","","c","d"],"dueOn":"2026-02-30"}`,
		`{"title":"\ud800","extra":{"a":[1,{"b":null}]},"notify":"yes"}`,
		`{"title":"t","limit":5.0,"weightKg":500}`,
		`{"שם":"x","title":"` + strings.Repeat("ש", 101) + `"}`,
		`{"":[]}`, `{"a b\n":1,"title":"t"}`,
		`{"title":"a\u0000b"}`, "{\"title\":\"a\xffb\"}", `{"title":"t","extra":{"a b":"\u001b"}}`, `{"title":"t","tags":["\udc00"]}`,
		`{}`, `null`, `[]`, `{`, ``,
	} {
		f.Add(s)
	}
	s := testSchema(f)
	o, err := NewObject(s)
	if err != nil {
		f.Fatal(err)
	}
	whole, err := s.Resolve(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &obj); err != nil {
			if JSONProblem(err) == "" {
				t.Fatalf("no words for %v", err)
			}
			return
		}
		problems := o.Check(obj)
		for _, p := range problems {
			if !strings.HasPrefix(p.Message, shownName(p.Path)+" ") || !strings.HasSuffix(p.Message, ".") {
				t.Fatalf("%q: problem %+v", body, p)
			}
			if !utf8.ValidString(p.Message) {
				t.Fatalf("%q: message is not UTF-8: %q", body, p.Message)
			}
			// A problem inside a property ("tags[1]", "extra.note") names
			// a known property first; an unknown one names none.
			root := p.Path
			if i := strings.IndexAny(root, ".["); i > 0 && p.Kind != Unknown {
				root = root[:i]
			}
			_, known := s.Properties[p.Path]
			_, rootKnown := s.Properties[root]
			if p.Kind == Unknown && known || p.Kind != Unknown && !known && !rootKnown {
				if !strings.Contains(p.Path, "[") {
					t.Fatalf("%q: kind %d for %s", body, p.Kind, p.Path)
				}
			}
		}
		if len(problems) > 0 {
			return
		}
		// Nothing the text rule refuses is accepted, at any depth.
		for name, raw := range obj {
			if _, known := s.Properties[name]; known {
				if at, bad := text.JSONProblem(raw); bad != "" {
					t.Fatalf("%q: accepted %s%s, which %s", body, name, at, bad)
				}
			}
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%q: accepted but not an object: %v", body, err)
		}
		if v == nil {
			v = map[string]any{}
		}
		if err := whole.Validate(v); err != nil {
			t.Fatalf("%q: accepted property by property but refused whole: %v", body, err)
		}
	})
}

// Every string of a value, at any depth and in any property (a free JSON
// value too), answers the text rule's sentence naming where it is; the
// bytes are read as sent, before encoding/json turns them into U+FFFD.
func TestCheckRefusesBadText(t *testing.T) {
	o := testObject(t)
	for body, want := range map[string]string{
		`{"title":"a\u0000b"}`:                        "title",
		"{\"title\":\"a\xffb\"}":                      "title",
		`{"title":"\ud800"}`:                          "title",
		`{"title":"ok","tags":["x","\u001b"]}`:        "tags[1]",
		`{"title":"ok","fields":[{"key":"\r"}]}`:      "fields[0].key",
		`{"title":"ok","extra":{"note":["a\u0000"]}}`: "extra.note[0]",
	} {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &obj); err != nil {
			t.Fatal(err)
		}
		problems := o.Check(obj)
		if len(problems) != 1 || problems[0].Path != want || !strings.Contains(problems[0].Message, "without control characters") {
			t.Errorf("%s: %+v, want one text problem at %s", body, problems, want)
		}
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal([]byte(`{"title":"line\none\ttab","tags":["😀"]}`), &obj)
	if problems := o.Check(obj); len(problems) != 0 {
		t.Errorf("newline, tab and emoji refused: %+v", problems)
	}
}

// A string in a free value (the schema says nothing of it) is bounded too.
func TestCheckBoundsFreeText(t *testing.T) {
	o := testObject(t)
	for body, want := range map[string]string{
		`{"title":"ok","extra":"` + strings.Repeat("a", MaxFreeText+1) + `"}`:             "extra",
		`{"title":"ok","extra":{"notes":["` + strings.Repeat("ש", MaxFreeText+1) + `"]}}`: "extra.notes[0]",
		`{"title":"ok","extra":{"` + strings.Repeat("k", MaxFreeText+1) + `":1}}`:         `extra["` + strings.Repeat("k", 60) + `…"]`,
	} {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &obj); err != nil {
			t.Fatal(err)
		}
		problems := o.Check(obj)
		if len(problems) != 1 || problems[0].Path != want || !strings.Contains(problems[0].Message, "at most 4000 characters") {
			t.Errorf("%.80s: %.200v, want one length problem", body, problems)
		}
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal([]byte(`{"title":"ok","extra":{"notes":"`+strings.Repeat("a", MaxFreeText)+`"}}`), &obj)
	if problems := o.Check(obj); len(problems) != 0 {
		t.Errorf("a free string of exactly %d characters refused: %.200v", MaxFreeText, problems)
	}
}

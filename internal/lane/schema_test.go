package lane

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/schema"
)

func TestNewBuildsEveryRouteSchema(t *testing.T) {
	l := New(Options{})
	if len(l.routes) != 90 {
		t.Fatalf("expected the full endpoint list, got %d routes", len(l.routes))
	}
	var doc map[string]any
	if err := json.Unmarshal(l.OpenAPI(), &doc); err != nil {
		t.Fatalf("OpenAPI document is not JSON: %v", err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi version = %v", doc["openapi"])
	}
}

func TestQueryValidationNamesEveryBadField(t *testing.T) {
	s := schemaFor[searchTraineesQuery]()
	var q searchTraineesQuery
	e := s.decodeQuery(url.Values{"limit": {"500"}, "offset": {"-1"}, "status": {"gone"}, "colour": {"red"}, "createdAfter": {"yesterday"}}, &q)
	if e == nil {
		t.Fatal("expected a validation error")
	}
	if e.Status != 422 || e.Code != CodeValidation {
		t.Fatalf("status %d code %s", e.Status, e.Code)
	}
	got := map[string]string{}
	for _, f := range e.Fields {
		got[f.Field] = f.Message
	}
	want := map[string]string{
		"limit":        "limit must be a whole number from 1 to 200; got 500.",
		"offset":       "offset must be a whole number of at least 0; got -1.",
		"status":       `status must be one of "active", "paused", "archived"; got "gone".`,
		"createdAfter": `createdAfter must be a date and time in RFC 3339 form, like 2026-03-01T09:00:00Z; got "yesterday".`,
	}
	for f, msg := range want {
		if got[f] != msg {
			t.Errorf("%s: got %q, want %q", f, got[f], msg)
		}
	}
	if !strings.HasPrefix(got["colour"], "colour is not a field of this request") {
		t.Errorf("unknown field: %q", got["colour"])
	}
}

func TestQueryConversion(t *testing.T) {
	s := schemaFor[searchTraineesQuery]()
	var q searchTraineesQuery
	if e := s.decodeQuery(url.Values{"limit": {"7"}, "offset": {"14"}, "q": {"dana"}, "createdAfter": {"2026-01-02T03:04:05Z"}}, &q); e != nil {
		t.Fatal(e)
	}
	if q.Limit != 7 || q.Offset != 14 || q.Q != "dana" || q.CreatedAfter == nil || q.CreatedAfter.Year() != 2026 {
		t.Fatalf("decoded %+v", q)
	}
	if e := s.decodeQuery(url.Values{"limit": {"abc"}}, &q); e == nil || e.Fields[0].Message != `limit must be a whole number from 1 to 200; got "abc".` {
		t.Fatalf("got %+v", e)
	}
}

func TestBodyValidation(t *testing.T) {
	s := schemaFor[createTraineeInput]()
	var in createTraineeInput
	_, e := s.decodeBody([]byte(`{"firstName":"","weightKg":0,"email":"nope","gender":"x","birthDate":"2026-13-01","tags":["a",""],"extra":1}`), &in)
	if e == nil {
		t.Fatal("expected errors")
	}
	fields := map[string]string{}
	for _, f := range e.Fields {
		fields[f.Field] = f.Message
	}
	for _, f := range []string{"firstName", "lastName", "phone", "weightKg", "email", "gender", "birthDate", "tags", "extra"} {
		if fields[f] == "" {
			t.Errorf("no error for %s; got %v", f, fields)
		}
	}
	if fields["weightKg"] != "weightKg must be a number above 0 and at most 500; got 0." {
		t.Errorf("weightKg: %q", fields["weightKg"])
	}
	if fields["lastName"] != "lastName is required; it must be a string of 1 to 100 characters." {
		t.Errorf("lastName: %q", fields["lastName"])
	}
	if _, e := s.decodeBody([]byte(`{"firstName":`), &in); e == nil || e.Status != 400 {
		t.Errorf("malformed JSON: %+v", e)
	}
	if _, e := s.decodeBody([]byte(`[1,2]`), &in); e == nil || e.Status != 400 {
		t.Errorf("array body: %+v", e)
	}
	present, e := s.decodeBody([]byte(`{"firstName":"Dana","lastName":"Levi","phone":"050-123-4567","gender":null,"tags":["vip"]}`), &in)
	if e != nil {
		t.Fatal(e)
	}
	if in.FirstName != "Dana" || len(in.Tags) != 1 || present["gender"] == nil {
		t.Fatalf("decoded %+v present %v", in, present)
	}
}

func TestNullFalse(t *testing.T) {
	s := schemaFor[updateTraineeInput]()
	var in updateTraineeInput
	if _, e := s.decodeBody([]byte(`{"firstName":null}`), &in); e == nil {
		t.Fatal("firstName null must be refused")
	}
	if _, e := s.decodeBody([]byte(`{"email":null,"gender":null}`), &in); e != nil {
		t.Fatalf("clearing email and gender: %v", e)
	}
}

func TestListOfObjectsNamesEachBadElement(t *testing.T) {
	s := schemaFor[createFormTemplateInput]()
	var in createFormTemplateInput
	_, e := s.decodeBody([]byte(`{"name":"Check-in","fields":[{"key":"a","label":"A","type":"text"},{"key":"b","type":"colour","size":3},7]}`), &in)
	if e == nil {
		t.Fatal("expected errors")
	}
	got := map[string]string{}
	for _, f := range e.Fields {
		got[f.Field] = f.Message
	}
	want := map[string]string{
		"fields[1].label": "fields[1].label is required; it must be a string of 1 to 500 characters.",
		"fields[1].type":  `fields[1].type must be one of "text", "number", "date", "choice", "scale"; got "colour".`,
		"fields[2]":       "fields[2] must be an object.",
	}
	for f, msg := range want {
		if got[f] != msg {
			t.Errorf("%s: got %q, want %q", f, got[f], msg)
		}
	}
	if !strings.HasPrefix(got["fields[1].size"], "fields[1].size is not a field") {
		t.Errorf("unknown nested field: %v", got)
	}
	if len(e.Fields) != 4 {
		t.Errorf("errors: %+v", e.Fields)
	}
	// The OpenAPI schema carries the nested constraints too.
	b, _ := json.Marshal(s.schema)
	if !strings.Contains(string(b), `"enum":["text","number","date","choice","scale"]`) {
		t.Errorf("nested enum missing from the schema: %s", b)
	}
}

// Every string a request takes is bounded: by its tags, an enum, a format,
// or else schema.MaxFreeText.
func TestEveryRequestStringIsBounded(t *testing.T) {
	type untagged struct {
		Note  string   `json:"note"`
		Notes []string `json:"notes"`
	}
	s := schemaFor[untagged]().schema
	if m := s.Properties["note"].MaxLength; m == nil || *m != schema.MaxFreeText {
		t.Errorf("an untagged string has maxLength %v, want %d", m, schema.MaxFreeText)
	}
	if m := s.Properties["notes"].Items.MaxLength; m == nil || *m != schema.MaxFreeText {
		t.Errorf("an untagged list's strings have maxLength %v", m)
	}
	var check func(where string, s *jsonschema.Schema)
	check = func(where string, s *jsonschema.Schema) {
		for name, ps := range s.Properties {
			for _, x := range []*jsonschema.Schema{ps, ps.Items} {
				if x != nil && (x.Type == "string" || slices.Contains(x.Types, "string")) && x.MaxLength == nil && len(x.Enum) == 0 && x.Format == "" {
					t.Errorf("%s: %s takes a string of any length", where, name)
				}
			}
			if ps.Items != nil && len(ps.Items.Properties) > 0 {
				check(where+" "+name+"[]", ps.Items)
			}
		}
	}
	for _, rt := range New(Options{}).routes {
		check(rt.method+" "+rt.path, rt.input.schema)
	}
}

// Every route with an {id} knows its kind, so the route checks it. An
// exercise's id is a catalogue slug or exr_…: its handler checks it.
func TestEveryPathIDHasAKind(t *testing.T) {
	for _, rt := range New(Options{}).routes {
		if strings.Contains(rt.path, "{id}") && rt.path != "/exercises/{id}" {
			if _, ok := pathIDKind(rt.path); !ok {
				t.Errorf("%s %s: no kind for its {id}; add the collection to pathKinds", rt.method, rt.path)
			}
		}
	}
}

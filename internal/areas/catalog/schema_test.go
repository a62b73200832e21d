package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane"
)

func TestListOfObjectsNamesEachBadElement(t *testing.T) {
	s := lane.DecoderOf(new(createFormTemplateInput))
	var in createFormTemplateInput
	_, e := s.Body([]byte(`{"name":"Check-in","fields":[{"key":"a","label":"A","type":"text"},{"key":"b","type":"colour","size":3},7]}`), &in)
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
	b, _ := json.Marshal(s.Schema())
	if !strings.Contains(string(b), `"enum":["text","number","date","choice","scale"]`) {
		t.Errorf("nested enum missing from the schema: %s", b)
	}
}

// Every string a request takes is bounded: by its tags, an enum, a format,
// or else schema.MaxFreeText.

package lane

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/schema"
)

func TestNewBuildsEveryRouteSchema(t *testing.T) {
	l := newFull(Options{})
	if len(l.routes) != 102 {
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
	for _, rt := range newFull(Options{}).routes {
		check(rt.method+" "+rt.path, rt.input.schema)
	}
}

// Every route with an {id} knows its kind, so the route checks it. An
// exercise's id is a catalogue slug or exr_…: its handler checks it.
func TestEveryPathIDHasAKind(t *testing.T) {
	for _, rt := range newFull(Options{}).routes {
		if strings.Contains(rt.path, "{id}") && rt.path != "/exercises/{id}" {
			if rt.idKind == "" {
				t.Errorf("%s %s: no kind for its {id}; declare the collection with its noun (lane.Noun)", rt.method, rt.path)
			}
		}
	}
}

package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// plainSchemas are string schemas the fast path takes, as the tools and
// the lane write them.
func plainSchemas() []*jsonschema.Schema {
	n := func(v int) *int { return &v }
	return []*jsonschema.Schema{
		{Type: "string"},
		{Type: "string", MinLength: n(1), MaxLength: n(64), Description: "an id"},
		{Type: "string", Pattern: "^trn_[0-9a-z]{26}$", Description: "A trainee id (trn_…)."},
		{Type: "string", MaxLength: n(3), Pattern: "[a-z]", Format: "email"},
		{Type: "string", MinLength: n(2), Pattern: "^[\\p{Hebrew} a-z]+$"},
	}
}

// Every schema the fast path takes decides every value as jsonschema-go
// does; a schema with any other keyword (enum, const, a type list) is left
// to jsonschema-go.
func FuzzPlainStringDecidesAsJSONSchema(f *testing.F) {
	for _, seed := range []string{`"trn_0123456789abcdefghijklmnop"`, `""`, `"ab"`, `"שלום a"`, `"\u0000"`, `7`, `null`, `["a"]`, `{"a":1}`, `"abcd"`, `"a\u00e9"`, `true`} {
		f.Add(seed)
	}
	schemas := plainSchemas()
	resolved := make([]*jsonschema.Resolved, len(schemas))
	plains := make([]*plainString, len(schemas))
	for i, s := range schemas {
		r, err := s.Resolve(nil)
		if err != nil {
			f.Fatal(err)
		}
		resolved[i], plains[i] = r, newPlainString(s)
		if plains[i] == nil {
			f.Fatalf("schema %d is plain but was not taken: %+v", i, s)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		for i := range schemas {
			want := resolved[i].Validate(v) == nil
			if got := plains[i].ok(v); got != want {
				t.Fatalf("schema %d (%+v) on %s: fast path says %v, jsonschema-go %v", i, schemas[i], raw, got, want)
			}
		}
	})
}

func TestPlainStringLeavesOtherSchemas(t *testing.T) {
	one := 1
	for _, s := range []*jsonschema.Schema{
		{Type: "string", Enum: []any{"a", "b"}},
		{Type: "string", Const: new(any)},
		{Types: []string{"string", "null"}},
		{Type: "integer", Minimum: new(float64)},
		{Type: "string", AnyOf: []*jsonschema.Schema{{MinLength: &one}}},
		{Type: "string", Extra: map[string]any{"x-perform": true}},
		{Type: "string", Pattern: "("}, // not a regexp: jsonschema-go's to report
	} {
		if newPlainString(s) != nil {
			t.Errorf("the fast path took %+v", s)
		}
	}
}

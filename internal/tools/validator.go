package tools

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/schema"
)

// validator checks arguments property by property (internal/schema) and,
// when they fail, says in one sentence what to fix.
type validator struct {
	tool   string
	object *schema.Object
}

func newValidator(tool string, s *jsonschema.Schema) (*validator, error) {
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return nil, fmt.Errorf("resolving the input schema: %w", err)
	}
	o, err := schema.NewObject(s)
	if err != nil {
		return nil, err
	}
	return &validator{tool: tool, object: o}, nil
}

// decode reads the arguments as one JSON object. An argument sent as null
// is read as left out: models send null for "none", and no tool clears a
// field with null.
func (v *validator) decode(args json.RawMessage) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if !isNull(args) {
		if err := json.Unmarshal(args, &m); err != nil || m == nil {
			return nil, &ArgumentError{Tool: v.tool, Sentence: fmt.Sprintf("The arguments for %s must be one JSON object of named fields (%s).", v.tool, v.argumentList())}
		}
	}
	for name, raw := range m {
		if isNull(raw) {
			delete(m, name)
		}
	}
	return m, nil
}

func (v *validator) check(m map[string]json.RawMessage) error {
	if problems := v.object.Check(m); len(problems) > 0 {
		return argumentError(v.tool, v.diagnose(problems))
	}
	return nil
}

// diagnose names the first problem: unknown arguments (all of them), else
// an unknown field inside one (with the fields of the object it is in),
// else the first missing one with its description, else the first bad
// value in the order of the schema's properties.
func (v *validator) diagnose(problems []schema.Problem) string {
	var unknown []string
	var nested *schema.Problem
	for i, p := range problems {
		switch {
		case p.Kind != schema.Unknown:
		case strings.ContainsAny(p.Path, ".["):
			if nested == nil {
				nested = &problems[i]
			}
		default:
			unknown = append(unknown, p.Path)
		}
	}
	if len(unknown) > 0 {
		return fmt.Sprintf("there is no argument %s; the arguments are: %s.", quoteList(unknown), v.argumentList())
	}
	if nested != nil {
		return nested.Message // a field inside an argument: the sentence lists that object's fields
	}
	for _, p := range problems {
		if p.Kind == schema.Missing {
			if prop := v.object.Property(p.Path); prop != nil && prop.Schema.Description != "" {
				return p.Message + " " + prop.Schema.Description
			}
			return p.Message
		}
	}
	return problems[0].Message
}

func (v *validator) argumentList() string {
	names := v.object.Names()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

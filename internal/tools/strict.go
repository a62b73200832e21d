package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Strict mode. OpenAI's strict function calling (and the OpenAI Agents
// SDK, which converts a tool's schema before it sends it: its
// ensure_strict_json_schema) takes an input schema whose every object
// lists its properties, has additionalProperties false and requires every
// property; what was optional becomes nullable, and a strict model then
// sends null for what it leaves out (decode drops those nulls, nested
// ones too). An open object (a map keyed by the caller's keys) has no
// strict form: the SDK refuses it. So a tool offers no open object: a map
// of the lane's is offered as a list of {key, value} pairs (pairArgs) and
// turned back into the map before the lane call.

// Strict is s converted as strict mode demands, or the reason it cannot
// be, naming where.
func Strict(s *jsonschema.Schema) (*jsonschema.Schema, error) {
	out := s.CloneSchemas()
	return out, strictNode("", out)
}

func strictNode(at string, s *jsonschema.Schema) error {
	if s == nil {
		return nil
	}
	// CloneSchemas shares the lists: the tool's own stay as they are.
	s.Required, s.Types, s.Enum = slices.Clone(s.Required), slices.Clone(s.Types), slices.Clone(s.Enum)
	if len(s.OneOf) > 0 || len(s.AllOf) > 0 || s.Not != nil {
		return fmt.Errorf("%s: oneOf, allOf and not have no strict form", where(at))
	}
	s.AnyOf = slices.Clone(s.AnyOf)
	for i, sub := range s.AnyOf {
		if err := strictNode(fmt.Sprintf("%s.anyOf[%d]", at, i), sub); err != nil {
			return err
		}
	}
	if s.Type == "object" || slices.Contains(s.Types, "object") {
		if s.AdditionalProperties != nil && !isFalseSchema(s.AdditionalProperties) {
			return fmt.Errorf("%s: an open object (additionalProperties) has no strict form; offer its entries as a list of {key, value}", where(at))
		}
		if s.Properties == nil {
			return fmt.Errorf("%s: an object without properties has no strict form", where(at))
		}
		s.AdditionalProperties = falseSchema()
		for name, p := range s.Properties {
			if !slices.Contains(s.Required, name) {
				nullable(p)
				s.Required = append(s.Required, name)
			}
			if err := strictNode(at+"."+name, p); err != nil {
				return err
			}
		}
		slices.Sort(s.Required)
	}
	return strictNode(at+"[]", s.Items)
}

func where(at string) string {
	if at == "" {
		return "the input"
	}
	return strings.TrimPrefix(at, ".")
}

// nullable lets p be null too.
func nullable(p *jsonschema.Schema) {
	switch {
	case p.Type != "":
		p.Types, p.Type = []string{p.Type, "null"}, ""
	case len(p.Types) > 0 && !slices.Contains(p.Types, "null"):
		p.Types = append(p.Types, "null")
	}
	if len(p.Enum) > 0 && !slices.Contains(p.Enum, any(nil)) {
		p.Enum = append(p.Enum, nil)
	}
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

func isFalseSchema(s *jsonschema.Schema) bool {
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// isOpenMap reports whether p is a map: an object of any keys, no properties.
func isOpenMap(p *jsonschema.Schema) bool {
	return p != nil && p.Type == "object" && p.Properties == nil && p.AdditionalProperties != nil && !isFalseSchema(p.AdditionalProperties)
}

// PairsFor is the argument a tool offers for a lane field of schema p: the
// list-of-pairs form of an open map, else nil (the field is offered as the
// lane has it).
func PairsFor(p *jsonschema.Schema) *jsonschema.Schema {
	if !isOpenMap(p) {
		return nil
	}
	return pairsOf(p)
}

// pairsOf is the list-of-pairs form of an open map's argument.
func pairsOf(p *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "array",
		Description: strings.TrimSpace(p.Description + " As [{key, value}], each value as text (digits; dates YYYY-MM-DD)."),
		MaxItems:    new(100),
		Items: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"key":   {Type: "string", Description: "The field's key.", MinLength: new(1), MaxLength: new(100)},
				"value": {Type: "string", Description: "The value.", MaxLength: new(4000)},
			},
			Required:             []string{"key", "value"},
			AdditionalProperties: falseSchema(),
			PropertyOrder:        []string{"key", "value"},
		},
	}
}

// mapOfPairs turns a pairs argument back into the lane's map: a value that
// reads as a JSON number or true/false is that, anything else the string.
func mapOfPairs(tool, name string, raw json.RawMessage) (json.RawMessage, error) {
	var pairs []struct{ Key, Value string }
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, argumentError(tool, name+" must be a list of {key, value}.")
	}
	m := map[string]json.RawMessage{}
	for _, p := range pairs {
		if _, dup := m[p.Key]; dup {
			return nil, argumentError(tool, fmt.Sprintf("%s names the key %q twice; give each key once.", name, p.Key))
		}
		v := strings.TrimSpace(p.Value)
		var n json.Number
		if d := json.NewDecoder(strings.NewReader(v)); v == "true" || v == "false" || d.Decode(&n) == nil && !d.More() && v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
			m[p.Key] = json.RawMessage(v)
			continue
		}
		b, _ := json.Marshal(p.Value)
		m[p.Key] = b
	}
	return json.Marshal(m)
}

// withoutNulls drops the null members of the objects in raw, at any
// depth: what a strict client sends for an argument it leaves out.
func withoutNulls(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte("null")) {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(dropNulls(v))
	if err != nil {
		return raw
	}
	return b
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}

package tools

import "github.com/google/jsonschema-go/jsonschema"

// longText is the length from which a string's upper bound leaves the
// catalogue: no argument a model writes for a name, a title or a note
// comes near it, and every tools/list carries each bound on every turn.
const longText = 100

// catalogued is the input schema as tools/list shows it: the tool's whole
// schema less the upper bounds of long text, less "additionalProperties":
// false (every object a tool takes is closed: the instructions say once
// that an argument no schema lists is refused, and strict mode's
// converters put it back), and less the paging bounds when the
// instructions state them once (pagingSaid). The tool's validator keeps
// every bound and refuses an unknown argument (Build refuses a note past
// its 2,000 characters, a limit of 500 or an argument no schema lists,
// with the sentence that says so), and the lane checks them all again.
func catalogued(s *jsonschema.Schema, pagingSaid bool) *jsonschema.Schema {
	c := s.CloneSchemas()
	dropLongBounds(c)
	if pagingSaid {
		for _, name := range []string{"limit", "offset"} {
			if p := c.Properties[name]; p != nil {
				p.Minimum, p.Maximum = nil, nil
			}
		}
	}
	return c
}

func dropLongBounds(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.MaxLength != nil && *s.MaxLength >= longText {
		s.MaxLength = nil
	}
	if isFalseSchema(s.AdditionalProperties) {
		s.AdditionalProperties = nil
	}
	dropLongBounds(s.Items)
	for _, p := range s.Properties {
		dropLongBounds(p)
	}
}

package tools

import "github.com/google/jsonschema-go/jsonschema"

// longText is the length from which a string's upper bound leaves the
// catalogue: no argument a model writes for a name, a title or a note
// comes near it, and every tools/list carries each bound on every turn.
const longText = 100

// catalogued is the input schema as tools/list shows it: the tool's whole
// schema less the upper bounds of long text, and less the paging bounds
// when the instructions state them once (pagingSaid). The tool's
// validator keeps every bound (Build refuses a note past its 2,000
// characters, or a limit of 500, with the sentence that says so), and the
// lane checks them all again.
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
	dropLongBounds(s.Items)
	for _, p := range s.Properties {
		dropLongBounds(p)
	}
}

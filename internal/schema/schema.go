// Package schema checks JSON values against jsonschema-go schemas one
// property at a time and says what is wrong in sentences a model can act
// on: "limit must be a whole number from 1 to 200; got 500."
//
// It is shared by the automation lane's request validation and the MCP
// tools' argument validation; each frames the problems in its own answer.
// Every string a value holds, at any depth, must be text Perform accepts
// (internal/text), whatever the property's schema says.
// It depends on the standard library, jsonschema-go and internal/text only.
package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/text"
)

// Kind is what is wrong with one property.
type Kind int

const (
	// Invalid is a value the property's schema refuses.
	Invalid Kind = iota
	// Missing is a required property that is absent.
	Missing
	// Unknown is a property the object's schema does not have.
	Unknown
)

// Problem is one bad property of an object and its sentence.
type Problem struct {
	Path    string // "limit", "fields[1].key"
	Kind    Kind
	Message string // one sentence ending with a period
}

// Object is an object schema prepared for checking property by property.
type Object struct {
	schema *jsonschema.Schema
	order  []string
	props  map[string]*Property
}

// Property is one property of an Object.
type Property struct {
	Name     string
	Schema   *jsonschema.Schema
	Required bool
	resolved *jsonschema.Resolved
	// plain, when set, decides what resolved would, faster (see plainString).
	plain *plainString
	// items checks each element of a list of objects, so a problem can name
	// "fields[2].type" rather than the whole list.
	items *Object
}

// NewObject resolves every property of the object schema s on its own. The
// properties keep s.PropertyOrder, then any others in name order. A
// property that is a list of objects with properties is checked element by
// element.
func NewObject(s *jsonschema.Schema) (*Object, error) {
	o := &Object{schema: s, props: map[string]*Property{}}
	for _, name := range s.PropertyOrder {
		if s.Properties[name] != nil && !slices.Contains(o.order, name) {
			o.order = append(o.order, name)
		}
	}
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(o.order, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	o.order = append(o.order, rest...)
	for _, name := range o.order {
		ps := s.Properties[name]
		resolved, err := ps.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("resolving property %s: %w", name, err)
		}
		p := &Property{Name: name, Schema: ps, Required: slices.Contains(s.Required, name), resolved: resolved, plain: newPlainString(ps)}
		if ps.Items != nil && len(ps.Items.Properties) > 0 {
			if p.items, err = NewObject(ps.Items); err != nil {
				return nil, fmt.Errorf("items of %s: %w", name, err)
			}
		}
		o.props[name] = p
	}
	return o, nil
}

// Schema is the object schema the Object was made from.
func (o *Object) Schema() *jsonschema.Schema { return o.schema }

// Names lists the property names in order.
func (o *Object) Names() []string { return slices.Clone(o.order) }

// Property returns the property name, or nil.
func (o *Object) Property(name string) *Property { return o.props[name] }

// Check checks every property of obj separately, so the answer names every
// bad field, then every unknown one (in name order). Problems come in the
// order of the properties.
func (o *Object) Check(obj map[string]json.RawMessage) []Problem {
	return o.checkAt("", obj)
}

// checkAt is Check for an object found at prefix ("fields[2].").
func (o *Object) checkAt(prefix string, obj map[string]json.RawMessage) []Problem {
	var problems []Problem
	for _, name := range o.order {
		p := o.props[name]
		path := prefix + name
		raw, ok := obj[name]
		if !ok {
			if p.Required {
				problems = append(problems, Problem{path, Missing, path + " is required; it must be " + Describe(p.Schema) + "."})
			}
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			problems = append(problems, Problem{path, Invalid, p.Rule(path) + "."})
			continue
		}
		if tp := TextProblem(path, raw); tp != nil {
			problems = append(problems, *tp)
			continue
		}
		if list, isList := v.([]any); isList && p.items != nil {
			problems = append(problems, p.checkItems(path, raw, list)...)
			continue
		}
		if msg := p.Check(path, v); msg != "" {
			problems = append(problems, Problem{path, Invalid, msg})
			continue
		}
		if lp := p.freeTextProblem(path, raw); lp != nil {
			problems = append(problems, *lp)
		}
	}
	var unknown []string
	for name := range obj {
		if _, ok := o.props[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		problems = append(problems, Problem{prefix + name, Unknown, fmt.Sprintf("%s is not a field of this request; the fields are %s.", shownName(prefix+name), strings.Join(o.order, ", "))})
	}
	return problems
}

// MaxFreeText bounds each string inside a value whose schema says nothing
// of its strings (a free JSON value or object, such as a form's answers):
// as long as the longest text field of a request.
const MaxFreeText = 4000

// freeTextProblem answers a string of raw longer than MaxFreeText when the
// property is a free value, or nil.
func (p *Property) freeTextProblem(path string, raw json.RawMessage) *Problem {
	if t := typeOf(p.Schema); t != "" && t != "object" || len(p.Schema.Properties) > 0 {
		return nil
	}
	at, n := text.JSONLongest(raw)
	if n <= MaxFreeText {
		return nil
	}
	return &Problem{path + at, Invalid, fmt.Sprintf("%s must be at most %d characters; it has %d.", shownName(path+at), MaxFreeText, n)}
}

// TextProblem checks every string of the raw JSON value of the property at
// path against the text rule (internal/text), answering the problem with
// the first bad string, named by its own path ("tags[1]", "answers.note"),
// or nil.
func TextProblem(path string, raw json.RawMessage) *Problem {
	at, bad := text.JSONProblem(raw)
	if bad == "" {
		return nil
	}
	return &Problem{path + at, Invalid, TextMessage(path+at, bad)}
}

// TextMessage is the sentence for text at path that breaks the text rule
// in the way problem says ("holds the control character U+0000 (NUL)").
func TextMessage(path, problem string) string {
	return shownName(path) + " must be " + text.Rule + "; it " + problem + "."
}

// shownName is a name the caller sent as a sentence shows it: as it is
// when it is a plain name, else quoted and cut short.
func shownName(name string) string {
	plain := name != "" && len(name) <= 60
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '.' || r == '[' || r == ']' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			plain = false
		}
	}
	if plain {
		return name
	}
	return ShortJSON(name)
}

// checkItems checks a list of objects element by element.
func (p *Property) checkItems(path string, raw json.RawMessage, list []any) []Problem {
	if p.Schema.MaxItems != nil && len(list) > *p.Schema.MaxItems {
		return []Problem{{path, Invalid, fmt.Sprintf("%s; got %d items.", p.Rule(path), len(list))}}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return []Problem{{path, Invalid, p.Rule(path) + "."}}
	}
	var problems []Problem
	for i, elem := range elems {
		at := fmt.Sprintf("%s[%d]", path, i)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(elem, &obj); err != nil || obj == nil {
			problems = append(problems, Problem{at, Invalid, at + " must be an object."})
			continue
		}
		problems = append(problems, p.items.checkAt(at+".", obj)...)
	}
	return problems
}

// Rule is the sentence, without its period, of what the property at path
// must be: "limit must be a whole number from 1 to 200".
func (p *Property) Rule(path string) string { return path + " must be " + Describe(p.Schema) }

// Check checks one decoded JSON value (as encoding/json decodes into any)
// of the property at path, answering "" or the property's sentence. A
// required property is never null. Strings are checked against the formats
// date, date-time and email, which jsonschema-go leaves unchecked.
func (p *Property) Check(path string, v any) string {
	if v == nil && p.Required {
		return p.Rule(path) + "; null is not allowed."
	}
	if p.plain != nil {
		if !p.plain.ok(v) {
			return p.Rule(path) + "; got " + ShortJSON(v) + "."
		}
	} else if err := p.resolved.Validate(v); err != nil {
		return p.Rule(path) + "; got " + ShortJSON(v) + p.unitHint(v) + "."
	}
	switch v := v.(type) {
	case string:
		if !FormatOK(p.Schema.Format, v) {
			return p.Rule(path) + "; got " + ShortJSON(v) + "."
		}
	case []any:
		if p.Schema.Items == nil {
			break
		}
		for _, e := range v {
			if s, ok := e.(string); ok && !FormatOK(p.Schema.Items.Format, s) {
				return p.Rule(path) + "; got " + ShortJSON(s) + " in the list."
			}
		}
	}
	return ""
}

// FormatOK reports whether s is written in format: date (2026-03-01),
// date-time (RFC 3339) or email (a bare address). Any other format holds.
func FormatOK(format, s string) bool {
	var err error
	switch format {
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	case "email":
		var a *mail.Address
		a, err = mail.ParseAddress(s)
		if err == nil && a.Address != s {
			return false
		}
	}
	return err == nil
}

// unitHint guesses the unit slip behind a number out of its range: metres
// for centimetres or a fraction for a percent (×100), grams for kilograms
// (÷1000). It answers " — did you mean N?" when exactly that lands in the
// range, else "".
func (p *Property) unitHint(v any) string {
	n, ok := v.(float64)
	sc := p.Schema
	if !ok || (sc.Type != "number" && !slices.Contains(sc.Types, "number")) || sc.Minimum == nil || sc.Maximum == nil {
		return ""
	}
	for _, guess := range []float64{n * 100, n / 1000} {
		if guess >= *sc.Minimum && guess <= *sc.Maximum {
			return " — did you mean " + strconv.FormatFloat(math.Round(guess*100)/100, 'f', -1, 64) + "?"
		}
	}
	return ""
}

package lane

import (
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// A request type is a Go struct with json tags (wire names; omitempty marks
// an optional field), jsonschema tags (the description) and lane tags for
// what jsonschema-go cannot infer from a Go type:
//
//	min=1,max=200       inclusive bounds of a number
//	gt=0                exclusive lower bound
//	minLength=1,maxLength=500
//	maxItems=50
//	enum=open|done|snoozed
//	format=date|date-time|email
//	null=false          a pointer field that may be omitted but not sent as null
//
// inputSchema infers the JSON schema once, applies those keywords and
// resolves every property's schema, so the validator and the OpenAPI
// document read the very same schema.
type inputSchema struct {
	typ    reflect.Type
	schema *jsonschema.Schema
	props  map[string]*property
	order  []string // property names in field order
}

type property struct {
	name     string
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	required bool
	// items validates each element of a list of objects, so a 422 can name
	// "fields[2].type" rather than the whole list.
	items *inputSchema
}

// rule is the sentence a 422 uses for the field at path: "limit must be an
// integer from 1 to 200".
func (p *property) rule(path string) string { return path + " must be " + describe(p.schema) }

// FieldError is one bad field of a request and its sentence.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func schemaFor[T any]() *inputSchema {
	s, err := newInputSchema(reflect.TypeFor[T]())
	if err != nil {
		panic(fmt.Sprintf("lane: schema of %v: %v", reflect.TypeFor[T](), err))
	}
	return s
}

var inferOptions = &jsonschema.ForOptions{
	TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
	},
}

func newInputSchema(t reflect.Type) (*inputSchema, error) {
	s, err := jsonschema.ForType(t, inferOptions)
	if err != nil {
		return nil, err
	}
	is := &inputSchema{typ: t, schema: s, props: map[string]*property{}}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ps := s.Properties[name]
		if ps == nil {
			return nil, fmt.Errorf("no inferred schema for %s", name)
		}
		if tag, ok := f.Tag.Lookup("lane"); ok {
			if err := applyLaneTag(ps, tag); err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
		}
		base := baseType(f.Type)
		if base == reflect.TypeFor[time.Time]() && ps.Format == "" {
			ps.Format = "date-time"
		}
		var items *inputSchema
		if base.Kind() == reflect.Slice && baseType(base.Elem()).Kind() == reflect.Struct && baseType(base.Elem()) != reflect.TypeFor[time.Time]() {
			if items, err = newInputSchema(baseType(base.Elem())); err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
			ps.Items = items.schema
		}
		resolved, err := ps.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		is.props[name] = &property{
			name:     name,
			schema:   ps,
			resolved: resolved,
			required: slices.Contains(s.Required, name),
			items:    items,
		}
		is.order = append(is.order, name)
	}
	return is, nil
}

func baseType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func applyLaneTag(s *jsonschema.Schema, tag string) error {
	target := s
	for part := range strings.SplitSeq(tag, ",") {
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("lane tag %q: want key=value", part)
		}
		// Constraints of a list apply to its items, except maxItems.
		if key != "maxItems" && s.Items != nil {
			target = s.Items
		}
		num := func() (float64, error) { return strconv.ParseFloat(val, 64) }
		switch key {
		case "min", "max", "gt":
			n, err := num()
			if err != nil {
				return fmt.Errorf("lane tag %q: %w", part, err)
			}
			switch key {
			case "min":
				target.Minimum = &n
			case "max":
				target.Maximum = &n
			case "gt":
				target.ExclusiveMinimum = &n
			}
		case "minLength", "maxLength", "maxItems":
			n, err := strconv.Atoi(val)
			if err != nil {
				return fmt.Errorf("lane tag %q: %w", part, err)
			}
			switch key {
			case "minLength":
				target.MinLength = &n
			case "maxLength":
				target.MaxLength = &n
			case "maxItems":
				s.MaxItems = &n
			}
		case "enum":
			for v := range strings.SplitSeq(val, "|") {
				target.Enum = append(target.Enum, v)
			}
		case "format":
			target.Format = val
		case "null":
			// null=false: a pointer field that may be omitted but not cleared.
			if val != "false" {
				return fmt.Errorf("lane tag %q: only null=false is meaningful", part)
			}
			if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
				s.Type = s.Types[1-i]
				s.Types = nil
			}
		default:
			return fmt.Errorf("lane tag: unknown key %q", key)
		}
	}
	// An enum on a field that may be null must list null, or null fails it.
	if len(s.Enum) > 0 && slices.Contains(s.Types, "null") {
		s.Enum = append(s.Enum, nil)
	}
	return nil
}

// describe says what a value of schema s must be, as the tail of a sentence.
func describe(s *jsonschema.Schema) string {
	typ := s.Type
	for _, t := range s.Types {
		if t != "null" {
			typ = t
		}
	}
	if typ == "array" && s.Items != nil {
		d := "a list of " + plural(describe(s.Items))
		if s.MaxItems != nil {
			d += fmt.Sprintf(" (at most %d)", *s.MaxItems)
		}
		return d
	}
	if len(s.Enum) > 0 {
		var words []string
		for _, e := range s.Enum {
			if e != nil {
				words = append(words, fmt.Sprintf("%q", e))
			}
		}
		if len(words) == 1 {
			return words[0]
		}
		return "one of " + strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
	}
	var d string
	switch typ {
	case "integer":
		d = "an integer"
	case "number":
		d = "a number"
	case "boolean":
		return "true or false"
	case "object":
		return "an object"
	case "string":
		switch s.Format {
		case "date":
			return "a date like 2026-03-01"
		case "date-time":
			return "a date and time in RFC 3339 form, like 2026-03-01T09:00:00Z"
		case "email":
			return "an email address"
		}
		d = "text"
		switch {
		case s.MinLength != nil && s.MaxLength != nil:
			d += fmt.Sprintf(" of %d to %d characters", *s.MinLength, *s.MaxLength)
		case s.MaxLength != nil:
			d += fmt.Sprintf(" of at most %d characters", *s.MaxLength)
		case s.MinLength != nil:
			d += fmt.Sprintf(" of at least %d characters", *s.MinLength)
		}
		return d
	default:
		return "a JSON value"
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	switch {
	case s.ExclusiveMinimum != nil && s.Maximum != nil:
		d += fmt.Sprintf(" above %s and up to %s", num(*s.ExclusiveMinimum), num(*s.Maximum))
	case s.Minimum != nil && s.Maximum != nil:
		d += fmt.Sprintf(" from %s to %s", num(*s.Minimum), num(*s.Maximum))
	case s.ExclusiveMinimum != nil:
		d += " above " + num(*s.ExclusiveMinimum)
	case s.Minimum != nil:
		d += " of at least " + num(*s.Minimum)
	case s.Maximum != nil:
		d += " of at most " + num(*s.Maximum)
	}
	return d
}

func plural(d string) string {
	for _, p := range []string{"an ", "a "} {
		if rest, ok := strings.CutPrefix(d, p); ok {
			head, tail, _ := strings.Cut(rest, " ")
			return strings.TrimSpace(head + "s " + tail)
		}
	}
	return d
}

// validate checks every property of obj separately, so the answer names
// every bad field, and reports unknown and missing ones.
func (is *inputSchema) validate(obj map[string]json.RawMessage) []FieldError {
	return is.validateAt("", obj)
}

// validateAt is validate for an object found at prefix ("fields[2].").
func (is *inputSchema) validateAt(prefix string, obj map[string]json.RawMessage) []FieldError {
	var errs []FieldError
	for _, name := range is.order {
		p := is.props[name]
		path := prefix + name
		raw, ok := obj[name]
		if !ok {
			if p.required {
				errs = append(errs, FieldError{path, path + " is required; it must be " + describe(p.schema) + "."})
			}
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			errs = append(errs, FieldError{path, p.rule(path) + "."})
			continue
		}
		if list, isList := v.([]any); isList && p.items != nil {
			errs = append(errs, p.checkItems(path, raw, list)...)
			continue
		}
		if msg := p.check(path, v); msg != "" {
			errs = append(errs, FieldError{path, msg})
		}
	}
	var unknown []string
	for name := range obj {
		if _, ok := is.props[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		errs = append(errs, FieldError{prefix + name, fmt.Sprintf("%s is not a field of this request; the fields are %s.", prefix+name, strings.Join(is.order, ", "))})
	}
	return errs
}

// checkItems validates a list of objects element by element.
func (p *property) checkItems(path string, raw json.RawMessage, list []any) []FieldError {
	if p.schema.MaxItems != nil && len(list) > *p.schema.MaxItems {
		return []FieldError{{path, fmt.Sprintf("%s (got %d items).", p.rule(path), len(list))}}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return []FieldError{{path, p.rule(path) + "."}}
	}
	var errs []FieldError
	for i, elem := range elems {
		at := fmt.Sprintf("%s[%d]", path, i)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(elem, &obj); err != nil || obj == nil {
			errs = append(errs, FieldError{at, at + " must be an object."})
			continue
		}
		errs = append(errs, p.items.validateAt(at+".", obj)...)
	}
	return errs
}

// check validates one value, answering "" or the field's sentence.
func (p *property) check(path string, v any) string {
	if v == nil && p.required {
		return p.rule(path) + "; null is not allowed."
	}
	if err := p.resolved.Validate(v); err != nil {
		return fmt.Sprintf("%s (got %s).", p.rule(path), shortJSON(v))
	}
	s, ok := v.(string)
	if !ok {
		return ""
	}
	format := p.schema.Format
	if p.schema.Items != nil {
		format = p.schema.Items.Format
	}
	if !formatOK(format, s) {
		return fmt.Sprintf("%s (got %q).", p.rule(path), truncate(s, 60))
	}
	return ""
}

func formatOK(format, s string) bool {
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

func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return truncate(string(b), 60)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// decodeBody validates a JSON object body and decodes it into dst (a
// pointer to the schema's type). It returns the fields the body carries, so
// a PATCH can tell "absent" from "null".
func (is *inputSchema) decodeBody(body []byte, dst any) (map[string]json.RawMessage, *Error) {
	obj := map[string]json.RawMessage{}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, &Error{Status: 400, Code: CodeBadRequest, Message: "The request body is not a JSON object: " + jsonProblem(err) + "."}
		}
		if obj == nil { // the body was "null"
			obj = map[string]json.RawMessage{}
		}
	}
	if errs := is.validate(obj); len(errs) > 0 {
		return nil, validationError(errs)
	}
	if err := json.Unmarshal(body, dst); err != nil && len(obj) > 0 {
		// The schema admitted something the Go type cannot hold (e.g. 1e400).
		return nil, &Error{Status: 422, Code: CodeValidation, Message: "The request body does not fit this request: " + jsonProblem(err) + "."}
	}
	return obj, nil
}

// decodeQuery converts a query string per the schema's property types,
// validates it like a body and decodes it into dst.
func (is *inputSchema) decodeQuery(q url.Values, dst any) *Error {
	obj := make(map[string]json.RawMessage, len(q))
	var errs []FieldError
	for name, vals := range q {
		p, ok := is.props[name]
		if !ok {
			obj[name] = json.RawMessage(`null`) // reported as unknown by validate
			continue
		}
		v, ok := convertQuery(p.schema, vals)
		if !ok {
			errs = append(errs, FieldError{name, fmt.Sprintf("%s (got %q).", p.rule(name), truncate(strings.Join(vals, ","), 60))})
			continue
		}
		b, _ := json.Marshal(v)
		obj[name] = b
	}
	for _, e := range is.validate(obj) {
		if !slices.ContainsFunc(errs, func(x FieldError) bool { return x.Field == e.Field }) {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
		return validationError(errs)
	}
	b, _ := json.Marshal(obj)
	if err := json.Unmarshal(b, dst); err != nil {
		return &Error{Status: 422, Code: CodeValidation, Message: "The query does not fit this request: " + jsonProblem(err) + "."}
	}
	return nil
}

func convertQuery(s *jsonschema.Schema, vals []string) (any, bool) {
	typ := s.Type
	for _, t := range s.Types {
		if t != "null" {
			typ = t
		}
	}
	if typ == "array" {
		out := make([]any, 0, len(vals))
		for _, v := range vals {
			for part := range strings.SplitSeq(v, ",") {
				x, ok := convertQuery(s.Items, []string{part})
				if !ok {
					return nil, false
				}
				out = append(out, x)
			}
		}
		return out, true
	}
	if len(vals) != 1 {
		return nil, false
	}
	v := vals[0]
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case "boolean":
		b, err := strconv.ParseBool(v)
		return b, err == nil
	default:
		return v, true
	}
}

func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errorsAs(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errorsAs(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("%s cannot hold a JSON %s", te.Field, te.Value)
		}
		return "expected a JSON object, got a JSON " + te.Value
	default:
		return "it could not be read as JSON"
	}
}

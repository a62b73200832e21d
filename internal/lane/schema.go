package lane

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/schema"
	"github.com/otherwise/perform/internal/text"
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
// A string without maxLength, enum or format gets maxLength 4000
// (schema.MaxFreeText); every string of a request must be text Perform
// accepts (internal/text), whatever its tags.
//
// inputSchema infers the JSON schema once, applies those keywords and
// prepares every property for checking (internal/schema), so the validator
// and the OpenAPI document read the very same schema.
type inputSchema struct {
	schema *jsonschema.Schema
	object *schema.Object
}

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
		reflect.TypeFor[money.Money]():     {Type: "number"}, // major units, beside a currency
	},
}

// inputSchemas and outputSchemas are the schemas built so far, by type:
// one per type for the process, shared by every lane (a schema is read,
// never changed, once built; contracts take clones), so building a lane
// does not infer them again (it was a fifth of New's cost).
var inputSchemas, outputSchemas sync.Map // reflect.Type → *inputSchema, *jsonschema.Schema

func newInputSchema(t reflect.Type) (*inputSchema, error) {
	return cachedByType(&inputSchemas, t, buildInputSchema)
}

func outputSchema(t reflect.Type) (*jsonschema.Schema, error) {
	return cachedByType(&outputSchemas, t, func(t reflect.Type) (*jsonschema.Schema, error) {
		return jsonschema.ForType(t, inferOptions)
	})
}

// cachedByType is m's value for t, built once (a race may build it twice;
// one is kept).
func cachedByType[V any](m *sync.Map, t reflect.Type, build func(reflect.Type) (V, error)) (V, error) {
	if v, ok := m.Load(t); ok {
		return v.(V), nil
	}
	v, err := build(t)
	if err != nil {
		return v, err
	}
	got, _ := m.LoadOrStore(t, v)
	return got.(V), nil
}

func buildInputSchema(t reflect.Type) (*inputSchema, error) {
	s, err := inferSchema(t)
	if err != nil {
		return nil, err
	}
	o, err := schema.NewObject(s)
	if err != nil {
		return nil, err
	}
	return &inputSchema{schema: s, object: o}, nil
}

// inferSchema infers the schema of the struct type t and applies the lane
// tags of its fields, and of the structs in its lists.
func inferSchema(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, inferOptions)
	if err != nil {
		return nil, err
	}
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
		if rule, ok := f.Tag.Lookup("when"); ok {
			ps.Description = describeWhen(ps.Description, rule)
		}
		base := baseType(f.Type)
		if base == reflect.TypeFor[time.Time]() && ps.Format == "" {
			ps.Format = "date-time"
		}
		boundText(ps)
		if ps.Items != nil {
			boundText(ps.Items)
		}
		if base.Kind() == reflect.Slice && baseType(base.Elem()).Kind() == reflect.Struct && baseType(base.Elem()) != reflect.TypeFor[time.Time]() {
			if ps.Items, err = inferSchema(baseType(base.Elem())); err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
		}
	}
	return s, nil
}

// boundText gives a free-text string a length when its tags give none, so
// no field, today's or tomorrow's, takes a string of any length.
func boundText(s *jsonschema.Schema) {
	if (s.Type == "string" || slices.Contains(s.Types, "string")) && s.MaxLength == nil && len(s.Enum) == 0 && s.Format == "" {
		n := schema.MaxFreeText
		s.MaxLength = &n
	}
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

// validate checks every property of obj separately (schema.Object.Check),
// so the 422 names every bad field, and every unknown and missing one.
func (is *inputSchema) validate(obj map[string]json.RawMessage) []FieldError {
	problems := is.object.Check(obj)
	if len(problems) == 0 {
		return nil
	}
	errs := make([]FieldError, len(problems))
	for i, p := range problems {
		errs[i] = FieldError{Field: p.Path, Message: p.Message}
	}
	return errs
}

// decodeBody validates a JSON object body and decodes it into dst (a
// pointer to the schema's type). It returns the fields the body carries, so
// a PATCH can tell "absent" from "null".
func (is *inputSchema) decodeBody(body []byte, dst any) (map[string]json.RawMessage, *Error) {
	obj := map[string]json.RawMessage{}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, &Error{Status: 400, Code: CodeBadRequest, Message: "The request body is not a JSON object: " + schema.JSONProblem(err) + "."}
		}
		if obj == nil { // the body was "null"
			obj = map[string]json.RawMessage{}
		}
	}
	if errs := is.validate(obj); len(errs) > 0 {
		return nil, ValidationError(errs)
	}
	if err := json.Unmarshal(body, dst); err != nil && len(obj) > 0 {
		// The schema admitted something the Go type cannot hold (e.g. 1e400).
		return nil, &Error{Status: 422, Code: CodeValidation, Message: "The request body does not fit this request: " + schema.JSONProblem(err) + "."}
	}
	return obj, nil
}

// decodeQuery converts a query string per the schema's property types,
// validates it like a body and decodes it into dst.
func (is *inputSchema) decodeQuery(q url.Values, dst any) *Error {
	obj := make(map[string]json.RawMessage, len(q))
	var errs []FieldError
	for name, vals := range q {
		// A query parameter is text too, its name and its values: the one
		// rule of internal/text, as for a body's strings. A bad name is
		// shown in Printable form.
		if shown, bad := text.ValuesProblem(url.Values{name: vals}); bad != "" {
			errs = append(errs, FieldError{shown, schema.TextMessage(shown, bad)})
			continue
		}
		p := is.object.Property(name)
		if p == nil {
			obj[name] = json.RawMessage(`null`) // reported as unknown by validate
			continue
		}
		v, ok := convertQuery(p.Schema, vals)
		if !ok {
			errs = append(errs, FieldError{name, p.Rule(name) + "; got " + schema.ShortJSON(strings.Join(vals, ",")) + "."})
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
		return ValidationError(errs)
	}
	b, _ := json.Marshal(obj)
	if err := json.Unmarshal(b, dst); err != nil {
		return &Error{Status: 422, Code: CodeValidation, Message: "The query does not fit this request: " + schema.JSONProblem(err) + "."}
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

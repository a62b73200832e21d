package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// define builds a Tool from its typed input In: the input schema is inferred
// from In (every field's description is its jsonschema tag), narrowed by the
// conventions every tool shares (see conventions) and by narrow; call maps a
// decoded, valid input to its lane request.
func define[In any](name, title string, readOnly bool, description string, call func(In) Request, narrow ...func(*jsonschema.Schema)) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: inferring the input schema: %v", name, err))
	}
	conventions(schema)
	for _, n := range narrow {
		n(schema)
	}
	v, err := newValidator(name, schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	// Defaults are applied by decoding the arguments over a value that
	// already holds them.
	var withDefaults In
	if d := defaultsOf(schema); d != nil {
		if err := json.Unmarshal(d, &withDefaults); err != nil {
			panic(fmt.Sprintf("tool %s: schema defaults do not fit the input type: %v", name, err))
		}
	}
	return Tool{
		Name:        name,
		Title:       title,
		Description: description,
		ReadOnly:    readOnly,
		InputSchema: schema,
		Build: func(args json.RawMessage) (Request, error) {
			if err := v.check(args); err != nil {
				return Request{}, err
			}
			in := withDefaults
			if !isNull(args) {
				if err := json.Unmarshal(args, &in); err != nil {
					return Request{}, argumentError(name, jsonProblem(err)+".")
				}
			}
			return call(in), nil
		},
	}
}

// Limits that hold wherever a field of that name appears, so each definition
// states only what is particular to it.
func conventions(s *jsonschema.Schema) {
	for name, p := range s.Properties {
		switch name {
		case "limit":
			p.Minimum, p.Maximum = ptr(1.0), ptr(200.0)
			p.Default = json.RawMessage("50")
		case "offset":
			p.Minimum = ptr(0.0)
		case "prompt":
			p.MaxLength = ptr(500)
		case "detail":
			p.MaxLength = ptr(2000)
		case "priority":
			p.Minimum, p.Maximum = ptr(0.0), ptr(5.0)
		case "weightKg":
			p.ExclusiveMinimum, p.Maximum = ptr(0.0), ptr(500.0)
		}
	}
	// A required id or name is never empty.
	for _, name := range s.Required {
		if p := s.Properties[name]; p != nil && p.Type == "string" {
			p.MinLength = ptr(1)
		}
	}
}

// oneOf narrows the string property name to the given values.
func oneOf(name string, values ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[name]
		if p == nil {
			panic("oneOf: no property " + name)
		}
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
}

// atLeast sets a minimum on the numeric property name.
func atLeast(name string, min float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[name]
		if p == nil {
			panic("atLeast: no property " + name)
		}
		p.Minimum = ptr(min)
	}
}

func ptr[T any](v T) *T { return &v }

// defaultsOf returns the top-level defaults as one JSON object, or nil.
func defaultsOf(s *jsonschema.Schema) []byte {
	d := map[string]json.RawMessage{}
	for name, p := range s.Properties {
		if p.Default != nil {
			d[name] = p.Default
		}
	}
	if len(d) == 0 {
		return nil
	}
	b, _ := json.Marshal(d)
	return b
}

func isNull(args json.RawMessage) bool {
	s := strings.TrimSpace(string(args))
	return s == "" || s == "null"
}

// ArgumentError is a tool's refusal of the model's arguments, before any
// lane call. Sentence says what to fix, naming the tool.
type ArgumentError struct {
	Tool     string
	Sentence string
}

func (e *ArgumentError) Error() string { return e.Sentence }

func argumentError(tool, problem string) *ArgumentError {
	return &ArgumentError{Tool: tool, Sentence: "Invalid arguments for " + tool + ": " + problem}
}

// validator checks arguments against the resolved schema and, when they
// fail, finds the field at fault to say in one sentence what to fix.
type validator struct {
	tool     string
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	fields   map[string]*jsonschema.Resolved // each property on its own, for diagnosis
}

func newValidator(tool string, s *jsonschema.Schema) (*validator, error) {
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("resolving the input schema: %w", err)
	}
	v := &validator{tool: tool, schema: s, resolved: resolved, fields: map[string]*jsonschema.Resolved{}}
	for name, p := range s.Properties {
		r, err := p.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("resolving property %s: %w", name, err)
		}
		v.fields[name] = r
	}
	return v, nil
}

func (v *validator) check(args json.RawMessage) error {
	m := map[string]any{}
	if !isNull(args) {
		if err := json.Unmarshal(args, &m); err != nil {
			return &ArgumentError{Tool: v.tool, Sentence: fmt.Sprintf("The arguments for %s must be one JSON object of named fields (%s).", v.tool, v.argumentList())}
		}
	}
	if err := v.resolved.Validate(m); err == nil {
		return nil
	} else if sentence := v.diagnose(m); sentence != "" {
		return argumentError(v.tool, sentence)
	} else {
		return argumentError(v.tool, err.Error())
	}
}

// diagnose names the first problem in m in the order of the schema's
// properties, or returns "" when it cannot tell.
func (v *validator) diagnose(m map[string]any) string {
	var unknown []string
	for k := range m {
		if _, ok := v.schema.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Sprintf("there is no argument %s; the arguments are: %s.", quoteList(unknown), v.argumentList())
	}
	for _, name := range v.schema.Required {
		if _, ok := m[name]; !ok {
			return fmt.Sprintf("%s is required. %s", name, v.schema.Properties[name].Description)
		}
	}
	for _, name := range v.schema.PropertyOrder {
		val, ok := m[name]
		if !ok {
			continue
		}
		if err := v.fields[name].Validate(val); err != nil {
			return fmt.Sprintf("%s must be %s; got %s.", name, expectation(v.schema.Properties[name]), shortJSON(val))
		}
	}
	return ""
}

func (v *validator) argumentList() string {
	if len(v.schema.PropertyOrder) == 0 {
		return "none"
	}
	return strings.Join(v.schema.PropertyOrder, ", ")
}

// expectation says in words what a value of schema s looks like.
func expectation(s *jsonschema.Schema) string {
	var b strings.Builder
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	typ := ""
	for _, t := range types {
		if t != "null" {
			typ = t
		}
	}
	switch {
	case len(s.Enum) > 0:
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprintf("%q", e)
		}
		b.WriteString("one of " + strings.Join(vals, ", "))
	case typ == "string":
		b.WriteString("a string")
	case typ == "integer":
		b.WriteString("a whole number")
	case typ == "number":
		b.WriteString("a number")
	case typ == "boolean":
		b.WriteString("true or false")
	case typ == "array" && s.Items != nil:
		b.WriteString("a list of " + strings.TrimPrefix(strings.TrimPrefix(expectation(s.Items), "a "), "an ") + "s")
	case typ == "array":
		b.WriteString("a list")
	case typ == "object":
		b.WriteString("an object")
	default:
		b.WriteString("a valid value")
	}
	switch {
	case s.Minimum != nil && s.Maximum != nil:
		fmt.Fprintf(&b, " from %s to %s", num(*s.Minimum), num(*s.Maximum))
	case s.ExclusiveMinimum != nil && s.Maximum != nil:
		fmt.Fprintf(&b, " above %s and at most %s", num(*s.ExclusiveMinimum), num(*s.Maximum))
	case s.Minimum != nil:
		fmt.Fprintf(&b, " of at least %s", num(*s.Minimum))
	case s.Maximum != nil:
		fmt.Fprintf(&b, " of at most %s", num(*s.Maximum))
	}
	switch {
	case s.MaxLength != nil:
		fmt.Fprintf(&b, " of at most %d characters", *s.MaxLength)
	case s.MinLength != nil && *s.MinLength == 1:
		b.WriteString(" that is not empty")
	}
	return b.String()
}

func num(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// shortJSON shows a value the caller sent, cut to a readable length.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// jsonProblem turns a decoding error into words; it is reached only by
// values the schema admits but Go cannot hold (an integer written 5.0).
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field[strings.LastIndex(te.Field, ".")+1:]
		return fmt.Sprintf("%s must be a whole number written without a decimal point; got %s", field, te.Value)
	}
	return err.Error()
}

// query builds a lane query from name/value pairs, leaving out empty values.
func query(pairs ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	return q
}

// itoa writes an optional count for a query: 0 means absent.
func itoa(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// segment escapes one path segment of a lane path.
func segment(s string) string { return url.PathEscape(s) }

package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/schema"
)

// define builds a Tool from its typed input In: the input schema is inferred
// from In (every field's description is its jsonschema tag), narrowed by the
// conventions every tool shares (see conventions) and by narrow; call maps a
// decoded, valid input to its lane request.
func define[In any](name, title string, readOnly bool, description string, call func(In) Request, narrow ...func(*jsonschema.Schema)) Tool {
	input, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: inferring the input schema: %v", name, err))
	}
	conventions(input)
	for _, n := range narrow {
		n(input)
	}
	v, err := newValidator(name, input)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	idArgs := idArgumentsOf(input)
	// Defaults are applied by decoding the arguments over a value that
	// already holds them.
	var withDefaults In
	if d := defaultsOf(input); d != nil {
		if err := json.Unmarshal(d, &withDefaults); err != nil {
			panic(fmt.Sprintf("tool %s: schema defaults do not fit the input type: %v", name, err))
		}
	}
	return Tool{
		Name:        name,
		Title:       title,
		Description: description,
		ReadOnly:    readOnly,
		InputSchema: input,
		Build: func(args json.RawMessage) (Request, error) {
			if err := v.check(args); err != nil {
				return Request{}, err
			}
			if err := checkIDs(name, idArgs, args); err != nil {
				return Request{}, err
			}
			in := withDefaults
			if !isNull(args) {
				if err := json.Unmarshal(args, &in); err != nil {
					return Request{}, argumentError(name, schema.JSONProblem(err)+".")
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

// IDArguments are the arguments that carry an id, by name, and the kind of
// id each must be. Every tool's argument of such a name (a string, or a
// list of strings) is refused before any request when its value is not an
// id of that kind, naming the argument and then the lane's own not-found
// sentence: an id like ".." never reaches a lane path.
var IDArguments = map[string]ids.Kind{
	"traineeId":      ids.Trainee,
	"clientId":       ids.Trainee,
	"coachId":        ids.Coach,
	"coachIds":       ids.Coach,
	"productId":      ids.Product,
	"templateId":     ids.ProgramTemplate,
	"formTemplateId": ids.FormTemplate,
	"taskId":         ids.Task,
}

// idArgumentsOf is the id-typed arguments of a tool's input schema.
func idArgumentsOf(s *jsonschema.Schema) map[string]ids.Kind {
	out := map[string]ids.Kind{}
	for name := range s.Properties {
		if k, ok := IDArguments[name]; ok {
			out[name] = k
		}
	}
	return out
}

// checkIDs refuses the first id argument (in name order) that is not an id
// of its kind. The arguments have passed the schema, so each is a string or
// a list of strings.
func checkIDs(tool string, idArgs map[string]ids.Kind, args json.RawMessage) error {
	if len(idArgs) == 0 || isNull(args) {
		return nil
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(args, &m); err != nil {
		return nil // the validator has answered this already
	}
	for _, name := range slices.Sorted(maps.Keys(idArgs)) {
		raw, ok := m[name]
		if !ok {
			continue
		}
		var values []string
		var one string
		if json.Unmarshal(raw, &one) == nil {
			if one == "" {
				continue // an empty filter is no filter; a required id has minLength 1
			}
			values = []string{one}
		} else if json.Unmarshal(raw, &values) != nil {
			continue
		}
		for _, id := range values {
			if !ids.Is(id, idArgs[name]) {
				return argumentError(tool, name+": "+ids.NotFound(idArgs[name], id))
			}
		}
	}
	return nil
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

// validator checks arguments property by property (internal/schema) and,
// when they fail, says in one sentence what to fix.
type validator struct {
	tool   string
	object *schema.Object
}

func newValidator(tool string, s *jsonschema.Schema) (*validator, error) {
	// Resolving the whole schema checks that its defaults fit it.
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return nil, fmt.Errorf("resolving the input schema: %w", err)
	}
	o, err := schema.NewObject(s)
	if err != nil {
		return nil, err
	}
	return &validator{tool: tool, object: o}, nil
}

func (v *validator) check(args json.RawMessage) error {
	m := map[string]json.RawMessage{}
	if !isNull(args) {
		if err := json.Unmarshal(args, &m); err != nil {
			return &ArgumentError{Tool: v.tool, Sentence: fmt.Sprintf("The arguments for %s must be one JSON object of named fields (%s).", v.tool, v.argumentList())}
		}
	}
	if problems := v.object.Check(m); len(problems) > 0 {
		return argumentError(v.tool, v.diagnose(problems))
	}
	return nil
}

// diagnose names the first problem: unknown arguments (all of them), else
// the first missing one with its description, else the first bad value in
// the order of the schema's properties.
func (v *validator) diagnose(problems []schema.Problem) string {
	var unknown []string
	for _, p := range problems {
		if p.Kind == schema.Unknown {
			unknown = append(unknown, p.Path)
		}
	}
	if len(unknown) > 0 {
		return fmt.Sprintf("there is no argument %s; the arguments are: %s.", quoteList(unknown), v.argumentList())
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

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

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/schema"
)

// spec is one tool as data. Its input schema is not written here: it is the
// lane's own schema of the route (see Contract), narrowed and described for
// the model by derive, so the model sees every bound the lane enforces.
type spec struct {
	name, title string
	readOnly    bool
	// idempotent: a repeat with the same arguments changes nothing more.
	// Every read is; a write only when it sets values (a PATCH).
	idempotent bool
	// openWorld: the tool reaches people or systems outside the studio's
	// own data (a message to a phone); every other tool acts only inside
	// the studio's database.
	openWorld bool
	// destructive: the tool's change cannot be undone (a deletion, a
	// cancellation that cannot be restored). A create or an update that
	// another call can set back is not destructive; no tool is today.
	destructive bool
	description string
	// route is the lane route the tool calls, "GET /trainees/{id}", as the
	// lane serves it; the tool set does not build if the lane disagrees.
	route string
	// pathArg is the argument that fills the route's wildcard ({id} or {phone}).
	pathArg string
	// forced are body fields the tool always sends and never offers: the
	// forced-silent flags of writes that could notify a trainee.
	forced map[string]any
	// keep, when set, are the only arguments of the lane's input the tool
	// offers: a tool that is one operation of a route of several
	// (swap_exercise of POST /sessions/{id}/modify) leaves the others out.
	keep []string
	// require are arguments the tool needs that its route needs only for
	// some operations (the forced one's).
	require []string
	// args describe this tool's arguments for the model where the shared
	// descriptions (argDescriptions) do not fit.
	args map[string]string
	// unkeyed: no repeat key is derived for the write (Tool.Unkeyed). A
	// weekly plan's draft is one: the lane answers a second ask from the
	// pending draft only while what the rules read is the same, and a
	// repeat key would answer the first draft after a new injury.
	unkeyed bool
}

// toolSet is what tells the coach set from the trainee set when a tool is
// defined: which contract names it, the scope it must carry and the
// shared argument descriptions.
type toolSet struct {
	trainee bool
	// platform: the agent platform's tools (platform.go), on routes the
	// lane opens to platform keys only.
	platform     bool
	descriptions map[string]string
	// renames rewrite the lane's descriptions (nested fields' among them)
	// that name a tool of the other set.
	renames *strings.Replacer
	// pagingSaid: the set's instructions state the paging bounds (limit
	// 1-200, offset from 0) once, so its catalogue leaves them out of each
	// list tool (catalogued).
	pagingSaid bool
}

var (
	coachSet   = toolSet{descriptions: argDescriptions, pagingSaid: true}
	traineeSet = toolSet{trainee: true, descriptions: traineeArgDescriptions, renames: traineeRenames}
)

// renameTools rewrites every description in s, recursively.
func renameTools(s *jsonschema.Schema, r *strings.Replacer) {
	if s == nil {
		return
	}
	s.Description = r.Replace(s.Description)
	for _, p := range s.Properties {
		renameTools(p, r)
	}
	renameTools(s.Items, r)
	renameTools(s.AdditionalProperties, r)
}

// MePath is the {id} a trainee tool calls its /trainees/{id}/… route with:
// the lane reads it as the trainee the credential belongs to.
const MePath = "me"

// RepeatSentence says once, in the coach and trainee servers'
// instructions, what a retry of any write does (the executor derives the
// write's Idempotency-Key from the key, the tool and the arguments); the
// tools' descriptions leave it out, which the catalogue's budget needs.
const RepeatSentence = "A repeat within 10 minutes changes nothing."

// DateRule is said once in the instructions instead of in every dated
// argument: the lane refuses a date outside its field's range with a
// sentence that gives the range.
const DateRule = "Dates are YYYY-MM-DD; one outside what its field allows (years back, a year ahead, the future for what already happened) is refused with a sentence giving the range. " + ClosedRule

// ClosedRule says once what every schema's "additionalProperties": false
// would say on every object (catalogued leaves it out).
const ClosedRule = "Arguments a tool's schema does not list are refused."

// DefaultLimit is a list tool's page when the model gives no limit: a
// model reads every row it is given, so its first page is shorter than the
// lane's (50, which integrations page by). The instructions say so.
const DefaultLimit = 20

// define builds the coach Tool of s from the lane's contract of its route.
func define(s spec, contracts map[string]Contract) Tool {
	return defineIn(coachSet, s, contracts)
}

// defineTrainee builds the trainee Tool of s from the lane's contract of
// its route: its scope is the route's trainee scope, and a /trainees/{id}/…
// path is called with MePath.
func defineTrainee(s spec, contracts map[string]Contract) Tool {
	return defineIn(traineeSet, s, contracts)
}

func defineIn(set toolSet, s spec, contracts map[string]Contract) Tool {
	c, ok := contracts[s.name]
	if !ok {
		panic(fmt.Sprintf("tool %s: no lane route names it (tool or traineeTool); run go generate ./internal/tools", s.name))
	}
	scope := c.Scope
	if set.trainee {
		scope = c.TraineeScope
		if got := c.Method + " " + c.Path; got != s.route || !slices.Contains(auth.TraineeScopes, scope) || strings.HasSuffix(scope, ":read") != s.readOnly {
			panic(fmt.Sprintf("trainee tool %s calls %s, but the lane serves it at %s with the trainee scope %q", s.name, s.route, got, scope))
		}
		if s.pathArg == "" && strings.Contains(c.Path, "{") && !strings.HasPrefix(c.Path, "/trainees/{id}/") {
			panic(fmt.Sprintf("trainee tool %s: %s has a wildcard but the tool names no argument for it", s.name, c.Path))
		}
	} else if set.platform {
		if got := c.Method + " " + c.Path; got != s.route || scope != auth.ScopePublicRead {
			panic(fmt.Sprintf("platform tool %s calls %s, but the lane serves it at %s with the scope %q", s.name, s.route, got, scope))
		}
	} else {
		want := auth.ScopeStudioWrite
		if s.readOnly {
			want = auth.ScopeStudioRead
		}
		if got := c.Method + " " + c.Path; got != s.route || (c.Scope != want && c.Scope != auth.ScopeBilling) {
			panic(fmt.Sprintf("tool %s calls %s, but the lane serves it at %s with the scope %q", s.name, s.route, got, c.Scope))
		}
	}
	if s.destructive && s.readOnly {
		panic(fmt.Sprintf("tool %s: a read cannot be destructive", s.name))
	}
	var pairArgs []string // open maps of the lane's, offered as pairs
	if c.Input != nil {
		for name, p := range c.Input.Properties {
			if isOpenMap(p) && s.forced[name] == nil && (s.keep == nil || slices.Contains(s.keep, name)) {
				pairArgs = append(pairArgs, name)
			}
		}
	}
	input, order := derive(s, c, set.descriptions, set.renames)
	input.PropertyOrder = order
	v, err := newValidator(s.name, input)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", s.name, err))
	}
	idArgs := idArgumentsOf(input)

	description := s.description
	usesQuery := c.Method == "GET" || c.Method == "DELETE"
	var reword func(string) string
	if set.renames != nil {
		reword = set.renames.Replace
	}
	return Tool{
		Unkeyed:     set.platform || s.unkeyed,
		Reword:      reword,
		Name:        s.name,
		Title:       s.title,
		Description: description,
		ReadOnly:    s.readOnly,
		Scope:       scope,
		Idempotent:  s.readOnly || s.idempotent,
		OpenWorld:   s.openWorld,
		Destructive: s.destructive,
		Method:      c.Method,
		Path:        c.Path,
		View:        c.View,
		InputSchema: catalogued(input, set.pagingSaid),
		Validates:   input,
		Build: func(args json.RawMessage) (Request, error) {
			m, err := v.decode(args)
			if err != nil {
				return Request{}, err
			}
			for name, raw := range m {
				m[name] = withoutNulls(raw)
			}
			if err := v.check(m); err != nil {
				return Request{}, err
			}
			for _, name := range pairArgs {
				if raw, ok := m[name]; ok {
					if m[name], err = mapOfPairs(s.name, name, raw); err != nil {
						return Request{}, err
					}
				}
			}
			if err := checkIDs(s.name, set.trainee, idArgs, m); err != nil {
				return Request{}, err
			}
			if err := checkWhole(s.name, input, m); err != nil {
				return Request{}, err
			}
			r := Request{Method: c.Method, Path: c.Path}
			if set.trainee && s.pathArg == "" {
				r.Path = strings.Replace(r.Path, "{id}", MePath, 1)
			}
			if s.pathArg != "" {
				var id string
				_ = json.Unmarshal(m[s.pathArg], &id) // a string: the schema said so
				delete(m, s.pathArg)
				open := strings.Index(r.Path, "{")
				r.Path = r.Path[:open] + segment(id) + r.Path[strings.Index(r.Path, "}")+1:]
			}
			if usesQuery {
				if _, given := m["limit"]; !given && input.Properties["limit"] != nil {
					m["limit"] = json.RawMessage(strconv.Itoa(DefaultLimit))
				}
				r.Query = queryOf(m)
				return r, nil
			}
			for name, val := range s.forced {
				b, _ := json.Marshal(val)
				m[name] = b
			}
			r.Body = m
			return r, nil
		},
	}
}

// derive is the tool's input schema: the lane's, without the forced fields,
// with the path argument first, every argument described for the model, and
// no null in any type (an optional argument is left out, not sent as null).
func derive(s spec, c Contract, descriptions map[string]string, renames *strings.Replacer) (*jsonschema.Schema, []string) {
	in := c.Input
	if in == nil || in.Type != "object" {
		panic(fmt.Sprintf("tool %s: the lane's input of %s %s is not an object schema", s.name, c.Method, c.Path))
	}
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	order := slices.Clone(c.Order)
	if s.keep != nil {
		for name := range in.Properties {
			if slices.Contains(s.keep, name) || s.forced[name] != nil {
				continue
			}
			if slices.Contains(in.Required, name) {
				panic(fmt.Sprintf("tool %s: leaves out %s, which the lane requires", s.name, name))
			}
			delete(in.Properties, name)
			order = slices.DeleteFunc(order, func(r string) bool { return r == name })
		}
	}
	for _, name := range s.require {
		if in.Properties[name] == nil {
			panic(fmt.Sprintf("tool %s: requires %s, which the lane's input does not have", s.name, name))
		}
		if !slices.Contains(in.Required, name) {
			in.Required = append(in.Required, name)
		}
	}
	for name := range s.forced {
		if in.Properties[name] == nil {
			panic(fmt.Sprintf("tool %s: forced field %s is not in the lane's input", s.name, name))
		}
		delete(in.Properties, name)
		in.Required = slices.DeleteFunc(in.Required, func(r string) bool { return r == name })
		order = slices.DeleteFunc(order, func(r string) bool { return r == name })
	}
	if s.pathArg != "" {
		if !strings.Contains(c.Path, "{") {
			panic(fmt.Sprintf("tool %s: path argument %s, but %s has no wildcard", s.name, s.pathArg, c.Path))
		}
		// A path id's upper bound is its shape (checked by kind before any
		// call, and said by the description); a phone's is the lane's 40.
		p := &jsonschema.Schema{Type: "string", MinLength: new(1)}
		if s.pathArg == "phone" {
			p.MaxLength = new(40)
		}
		in.Properties[s.pathArg] = p
		in.Required = append([]string{s.pathArg}, in.Required...)
		order = append([]string{s.pathArg}, order...)
	}
	for name, p := range in.Properties {
		if isOpenMap(p) {
			if d, ok := s.args[name]; ok {
				p.Description = d
			}
			in.Properties[name] = pairsOf(p) // strict mode has no open object (strict.go)
			continue
		}
		withoutNull(p)
		// The lane ends a dated field's description with its plausible
		// range ("Must be …"); the catalogue leaves it to the lane's refusal,
		// which says it (the instructions say so once, DateRule).
		p.Description, _, _ = strings.Cut(p.Description, "Must be ")
		p.Description = strings.TrimSpace(p.Description)
		if d, ok := s.args[name]; ok {
			p.Description = d
		} else if d, ok := descriptions[name]; ok {
			p.Description = d
		}
	}
	if renames != nil {
		renameTools(in, renames)
	}
	for name := range s.args {
		if in.Properties[name] == nil {
			panic(fmt.Sprintf("tool %s: describes argument %s, which the lane's input does not have", s.name, name))
		}
	}
	in.Schema, in.ID = "", ""
	return in, order
}

// withoutNull makes a nullable type its one other type, recursively into
// list items, and takes null out of enums: strict MCP clients warn on type
// arrays, and a model should leave an optional argument out.
func withoutNull(p *jsonschema.Schema) {
	if p == nil {
		return
	}
	if i := slices.Index(p.Types, "null"); i >= 0 && len(p.Types) == 2 {
		p.Type, p.Types = p.Types[1-i], nil
	}
	p.Enum = slices.DeleteFunc(p.Enum, func(v any) bool { return v == nil })
	if len(p.Enum) == 0 {
		p.Enum = nil
	}
	withoutNull(p.Items)
	for _, sub := range p.Properties { // the objects of a list of objects
		withoutNull(sub)
	}
	if p.AdditionalProperties != nil {
		withoutNull(p.AdditionalProperties)
	}
}

// queryOf writes arguments as a lane query: strings as they are (an empty
// one is no filter), anything else as its JSON text.
func queryOf(m map[string]json.RawMessage) url.Values {
	q := url.Values{}
	for name, raw := range m {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if s != "" {
				q.Set(name, s)
			}
			continue
		}
		q.Set(name, string(raw))
	}
	return q
}

// checkWhole refuses an integer argument written as 5.0 or 5e0: JSON
// Schema counts it whole, but the lane reads integers into Go ints and
// refuses it, so the tool says so first, in the same words.
func checkWhole(tool string, in *jsonschema.Schema, m map[string]json.RawMessage) error {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if p := in.Properties[name]; p != nil && p.Type == "integer" && strings.ContainsAny(string(m[name]), ".eE") {
			return argumentError(tool, fmt.Sprintf("%s must be a whole number written without a decimal point; got %s.", name, schema.ShortJSON(m[name])))
		}
	}
	return nil
}

func isNull(args json.RawMessage) bool {
	s := strings.TrimSpace(string(args))
	return s == "" || s == "null"
}

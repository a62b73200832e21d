package lane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// route is one endpoint: how it is served and how the OpenAPI document
// describes it. Both read the same request schema.
type route struct {
	method  string
	path    string // relative to Prefix, with {id} wildcards
	summary string
	// tool is the coach tool that calls this endpoint.
	tool string
	// scope is what the caller's credential must hold: studio:read for
	// reads, studio:write for writes, studio:admin for the endpoints that
	// exist for the studio's own apps and never become tools. "" (only
	// /validate) lets any authenticated key in.
	scope string
	// traineeScope, when set, lets a trainee's OAuth grant holding it in:
	// for its own trainee only (the {id} of /trainees/{id}/…). A route
	// without one is closed to trainee principals.
	traineeScope string
	// traineeTools are the trainee tools (internal/tools, the trainee set)
	// that call this endpoint; they need traineeScope.
	traineeTools []string
	// view is the ui:// address of the view (an MCP App) that draws the
	// route's answer, for every tool that calls it (see View).
	view string
	// allow is what a trainee principal's answer may hold (see allow).
	allow []string
	// shared: open to trainees without naming one (see shared).
	shared bool
	// platform: open to an agent platform's key (see platform).
	platform bool
	// fanout: the handler makes its writes through the lane again
	// (ForEach), each its own dry run when asked; it runs in no
	// transaction of its own.
	fanout bool
	// word: the path's second segment is a word where the collection's
	// other routes take an {id} (see Word).
	word bool
	// reasonFilter is the input field that filters by reason (ReasonFilter).
	reasonFilter string
	// limit is the declared limit the route is held to (Limited).
	limit  string
	idKind ids.Kind // the kind of the {id} wildcard, if any (set by New)
	status int      // success status
	input  *inputSchema
	refs   []refField // the input's fields that name rows, checked before the handler (set by New)
	inType reflect.Type
	dates  []dateField // the input's date fields with a plausible range (when tags)
	output *jsonschema.Schema
	handle func(c *Call) (any, error)
	newIn  func() any // a new input value
}

// call is one request as a handler sees it.
type Call struct {
	Ctx context.Context
	Req *http.Request
	l   *Lane
	P   *auth.Principal
	// present is the body's fields as sent, so a PATCH tells absent from null.
	present map[string]json.RawMessage
	// raw is the body once read: the Idempotency-Key hash and the decoder
	// share it.
	raw     []byte
	rawRead bool
	// status, when set, is the success status the handler chose instead
	// of the route's (a write that found its work already done answers 200).
	status int
	// tx, during a dry run, is the transaction the handler runs in (see db).
	tx store.Store
	// at is the request's one instant (Now).
	at time.Time
	// refund gives back what the route's limit counted (admitLimit).
	refund func(status int)
}

// body reads the request body once; later calls return the same bytes.
func (c *Call) body() ([]byte, *Error) {
	if !c.rawRead {
		b, e := readBody(c.Req)
		if e != nil {
			return nil, e
		}
		c.raw, c.rawRead = b, true
	}
	return c.raw, nil
}

// studio is this studio's store (outside any transaction, but inside a
// dry run's).
func (c *Call) Studio() store.StudioStore { return c.DB().Studio(c.P.StudioID) }

// id is the path's {id}.
func (c *Call) ID() string { return c.Req.PathValue("id") }

// Author is who logs what this call writes, as the withdrawable records
// keep it (domain.LoggedByTrainee for a trainee's own call, on any of her
// surfaces; domain.LoggedByCoach for the studio's): the one rule of who
// may withdraw a record.
func (c *Call) Author() string {
	if c.P.IsTrainee() {
		return domain.LoggedByTrainee
	}
	return domain.LoggedByCoach
}

// has reports whether the body carried field.
func (c *Call) Has(field string) bool { _, ok := c.present[field]; return ok }

// setResource names the resource the request concerns, for the audit.
func (c *Call) SetResource(id string) { infoFrom(c.Ctx).resourceID = id }

// noInput is the input of an endpoint that takes none.
type NoInput struct{}

type Opt func(*route)

func Tool(name string) Opt { return func(r *route) { r.tool = name } }
func Admin() Opt           { return func(r *route) { r.scope = auth.ScopeStudioAdmin } }
func AnyScope() Opt        { return func(r *route) { r.scope = "" } }
func Created() Opt         { return func(r *route) { r.status = http.StatusCreated } }

// Scope is the one scope a studio credential needs for the route, in place
// of studio:read or studio:write (auth.ScopeBilling).
func Scope(scope string) Opt { return func(r *route) { r.scope = scope } }

// Fanout marks a group write, whose handler makes one write per trainee
// through the lane again (Call.ForEach): a dry run of the group is a dry
// run of each of them.
func Fanout() Opt { return func(r *route) { r.fanout = true } }

// trainee opens the route to a trainee's own OAuth grant holding scope.
// The route concerns the trainee by its path (/trainees/{id}/…, the id the
// grant's subject or `me`), or a record the lane traces to its trainee
// (/sessions/{id}, /goals/{id}, /benchmarks/{id}, /programs/{id}), or is
// shared(); see the trainee policy (trainee.go).
func Trainee(scope string) Opt { return func(r *route) { r.traineeScope = scope } }

// shared marks a route open to trainees that names no trainee and holds
// no person's data (the methodologies, the studio's coaching persona).
func Shared() Opt { return func(r *route) { r.shared = true } }

// platform opens the route to an agent platform's key and to nothing else:
// the studio's public offer, which an anonymous end user may read.
func Platform() Opt {
	return func(r *route) { r.platform, r.scope = true, auth.ScopePublicRead }
}

// traineeTool names the trainee tools that call the route.
func TraineeTool(names ...string) Opt {
	return func(r *route) { r.traineeTools = append(r.traineeTools, names...) }
}

// ViewScheme is how a view's address starts.
const ViewScheme = "ui://perform/"

// View names the view that draws the route's answer: an HTML document at
// uri (ui://perform/NAME) an MCP client that renders views shows beside
// the answer of every tool that calls the route, the coach's and the
// trainee's. The answer itself is unchanged: a client without views reads
// the same data as text.
func View(uri string) Opt {
	if !strings.HasPrefix(uri, ViewScheme) || len(uri) == len(ViewScheme) {
		panic("lane: view " + uri + " is not " + ViewScheme + "NAME")
	}
	return func(r *route) { r.view = uri }
}

// allow lists the fields a trainee principal's answer keeps: dotted paths
// through objects, lists passed through ("items.date" keeps the date of
// every item), an entry keeping its whole subtree. Everything else is
// dropped, after identifiers are redacted: adding a field to a trainee's
// answer is a deliberate change to this list.
func Allow(paths ...string) Opt { return func(r *route) { r.allow = append(r.allow, paths...) } }

// add registers an endpoint whose input (query for GET and DELETE, JSON
// body otherwise) is In and whose data is Out.
func Add[In, Out any](rs *Routes, method, path, summary string, fn func(c *Call, in *In) (Out, error), opts ...Opt) {
	rt := &route{method: method, path: path, summary: summary, status: http.StatusOK, input: schemaFor[In](), scope: auth.ScopeStudioRead}
	if isWrite(method) {
		rt.scope = auth.ScopeStudioWrite
	}
	out, err := outputSchema(reflect.TypeFor[Out]())
	if err != nil {
		panic("lane: output schema of " + path + ": " + err.Error())
	}
	rt.output = out
	for _, o := range opts {
		o(rt)
	}
	checkAllow(method, path, rt.output, rt.allow)
	if rt.view != "" && rt.tool == "" && len(rt.traineeTools) == 0 {
		panic("lane: " + method + " " + path + " has a view but no tool calls it")
	}
	usesQuery := method == http.MethodGet || method == http.MethodDelete
	rt.inType = reflect.TypeFor[In]()
	dates := dateFieldsOf(reflect.TypeFor[In]())
	rt.dates = dates
	rt.newIn = func() any { return new(In) }
	rt.handle = func(c *Call) (any, error) {
		if rt.idKind != "" && !ids.Valid(c.ID(), rt.idKind) {
			// Not an id of the route's kind: a name of one record (of a
			// kind people name), or nothing, whatever bytes it holds, and
			// no handler, store or log sees it.
			id, err := c.Resolve(rt.idKind, "id", c.ID())
			if err != nil {
				return nil, err
			}
			c.Req.SetPathValue("id", id)
			c.SetResource(id)
		}
		if e := c.admitLimit(rt); e != nil {
			return nil, e
		}
		in := new(In)
		if usesQuery {
			if e := rt.input.decodeQuery(c.Req.URL.Query(), in); e != nil {
				return nil, e
			}
		} else {
			body, e := c.body()
			if e != nil {
				return nil, e
			}
			present, e := rt.input.decodeBody(body, in)
			if e != nil {
				return nil, e
			}
			c.present = present
		}
		if e := c.checkDates(dates, in); e != nil {
			return nil, e
		}
		if err := c.checkRefs(rt.refs, in); err != nil {
			return nil, err
		}
		return fn(c, in)
	}
	rs.list = append(rs.list, rt)
}

func (l *Lane) endpoint(rt *route) http.Handler {
	pattern := rt.method + " " + Prefix + rt.path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := infoFrom(r.Context())
		ri.route = pattern
		if strings.Contains(rt.path, "{id}") {
			ri.resourceID = r.PathValue("id")
		}
		p, ok := l.authenticate(w, r)
		if !ok {
			return
		}
		defer func() {
			// A bug in a handler answers 500 in the envelope, not a dropped connection.
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				l.internal(w, r, pattern, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
			}
		}()
		if e := resolveMe(r, rt, p); e != nil {
			l.writeError(w, r, e)
			return
		}
		if e := rt.authorize(r, p); e != nil {
			l.writeError(w, r, e)
			return
		}
		settle, ok := l.admitPerson(w, r, p)
		if !ok {
			return
		}
		// Deferred after the recover above, so it runs first: a panic has
		// no status yet (0), and is given back too.
		sw := &httpx.StatusWriter{ResponseWriter: w}
		w = sw
		c := &Call{Ctx: r.Context(), Req: r, l: l, P: p, at: l.now()}
		defer func() {
			if settle(sw.Status); c.refund != nil {
				c.refund(sw.Status)
			}
		}()
		if err := l.checkOwner(r, rt, p); err != nil {
			l.fail(w, r, rt, err)
			return
		}
		if l.dryRun(w, r, rt, c) {
			return
		}
		if keys := r.Header.Values(IdempotencyHeader); len(keys) > 0 && isWrite(r.Method) {
			l.idempotent(w, r, rt, c, keys)
			return
		}
		l.serve(w, r, rt, c)
	})
}

// authorize checks the principal against the route: the route's scope,
// or for a trainee principal the route's trainee scope (whose {id} the
// trainee policy checks next: checkOwner).
func (rt *route) authorize(r *http.Request, p *auth.Principal) *Error {
	if p.Kind == auth.KindPlatformKey && (rt.platform || !p.IsTrainee()) {
		// An agent platform speaks for people Perform has not verified:
		// only the routes opened to it, whatever scopes it claims. A
		// verified conversation is a trainee principal on the rest.
		if !rt.platform {
			return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: fmt.Sprintf(
				"%s %s is not open to an agent platform's key; it reads only the studio's public offer (GET %s/public/studio).", rt.method, Prefix+rt.path, Prefix)}
		}
		return nil
	}
	if rt.platform {
		return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: fmt.Sprintf(
			"%s %s is for an agent platform's key (perform key create --kind platform), which answers the studio's customers; a studio key reads the studio's plans and templates with GET %s/products and GET %s/program-templates.", rt.method, Prefix+rt.path, Prefix, Prefix)}
	}
	if !p.IsTrainee() {
		if rt.scope != "" && !p.Has(rt.scope) {
			return forbidden(rt, p, rt.scope)
		}
		return nil
	}
	switch {
	case rt.scope == "": // /validate: any credential
		return nil
	case rt.traineeScope == "":
		return forbidden(rt, p, rt.scope)
	case !p.Has(rt.traineeScope):
		return forbidden(rt, p, rt.traineeScope)
	}
	return nil
}

// scrubs reports whether rt's answers to p go through the trainee
// scrubber: a trainee's, except on the platform routes, which hold no
// person's data. The first answer and a replayed one alike.
func (rt *route) scrubs(p *auth.Principal) bool { return p.IsTrainee() && !rt.platform }

// adminOnly reports whether the route is for the studio's own apps only.
func (rt *route) adminOnly() bool { return rt.scope == auth.ScopeStudioAdmin }

// forbidden is the one answer to a credential without the scope a route needs.
func forbidden(rt *route, p *auth.Principal, scope string) *Error {
	has := "none"
	if len(p.Scopes) > 0 {
		has = strings.Join(p.Scopes, ", ")
	}
	if p.Kind == auth.KindOAuthGrant {
		msg := fmt.Sprintf("%s %s needs the scope %s, and this connection has %s.", rt.method, Prefix+rt.path, scope, has)
		if p.IsTrainee() && rt.traineeScope == "" {
			msg += " It is for the studio's coaches and apps, not a trainee's connection."
		} else {
			msg += " Connect the app again and allow " + scope + "."
		}
		return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: msg}
	}
	msg := fmt.Sprintf("%s %s needs the scope %s, and this key has %s.", rt.method, Prefix+rt.path, scope, has)
	if rt.adminOnly() || p.Kind == auth.KindPlatformKey {
		msg += fmt.Sprintf(" Use a key that has %s: the studio creates one with perform key create --studio SLUG --name NAME --scopes %s (or POST %s/keys).", scope, scope, Prefix)
	} else {
		msg += fmt.Sprintf(" The studio adds it to this key with perform key scopes %s --add %s (or PATCH %s/keys/%s), or creates a key that has it (perform key create --scopes, or POST %s/keys).", p.CredentialID, scope, Prefix, p.CredentialID, Prefix)
	}
	if rt.adminOnly() {
		msg += " This endpoint is for the studio's own apps; no AI tool calls it."
	}
	return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: msg}
}

// serve runs the route's handler and writes its answer.
func (l *Lane) serve(w http.ResponseWriter, r *http.Request, rt *route, c *Call) {
	data, err := rt.handle(c)
	if err != nil {
		l.fail(w, r, rt, err)
		return
	}
	status := rt.status
	if c.status != 0 {
		status = c.status
	}
	if rt.scrubs(c.P) {
		people, err := c.people()
		if err == nil {
			data, err = scrubAnswer(data, rt.allow, people)
		}
		if err != nil {
			l.internal(w, r, "scrubbing a trainee's answer", err)
			return
		}
	}
	l.writeData(w, r, status, data)
}

// fail answers a handler's error: lane errors as they are, a store's
// not-found about the path's id and conflicts as sentences, the rest 500.
func (l *Lane) fail(w http.ResponseWriter, r *http.Request, rt *route, err error) {
	var le *Error
	var ce *store.ConflictError
	switch {
	case errors.As(err, &le):
		l.writeError(w, r, le)
	case errors.As(err, &ce):
		l.writeError(w, r, Conflict(ce.Message))
	case errors.Is(err, store.ErrNotFound) && rt.idKind != "":
		l.writeError(w, r, NotFound(rt.idKind, r.PathValue("id")))
	default:
		l.internal(w, r, rt.method+" "+rt.path, err)
	}
}

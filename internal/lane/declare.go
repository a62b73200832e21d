package lane

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/schema"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// A Declarer is an area that holds more than routes, and says what in one
// Declaration the kernel (New) and the server read: a new area adds its
// routes and its declaration, and nothing in the kernel or the server.
type Declarer interface {
	Area
	Declare(d *Declaration)
}

// A Declaration is what an area holds beyond its routes.
type Declaration struct {
	Nouns []Noun
	// Refs are the checks a ref tag may name (ref:"product"), by name.
	Refs map[string]RefCheck
	// Limits are the counts its routes are held to (Limited).
	Limits []Limit
	// Workers adds its River workers; Periodic are its periodic jobs;
	// Jobs is given the River client once built; Close waits (a few
	// seconds at most) for its background work.
	Workers  func(w *river.Workers)
	Periodic []*river.PeriodicJob
	Jobs     func(c *river.Client[*sql.Tx])
	Close    func() error
	// Adds is what it adds to the reads other areas own.
	Adds Adds
}

// A Noun is a kind of record an area holds.
type Noun struct {
	Kind ids.Kind
	// Collections are the path segments whose {id} is of this kind
	// ("sessions": /sessions/{id}, /sessions/{id}/sets).
	Collections []string
	// Owner is the trainee a record belongs to, read through the studio's
	// store (another studio's record is store.ErrNotFound there). Set, a
	// trainee's route may name the record by its {id}, and reaches only
	// her own (trainee.go).
	Owner func(ctx context.Context, ss store.StudioStore, id string) (string, error)
	// Name is a record's display name (a dry run's names); nil: none.
	Name func(ctx context.Context, ss store.StudioStore, id string) (string, error)
	// Named lists the records a name given for an id may mean (names.go;
	// ListNamed); nil: taken by id only. Person: people's names, never
	// resolved for a trainee.
	Named  func(c *Call, name string) (rows []Named, fits bool, err error)
	Person bool
}

// A RefCheck checks a ref field's value and answers the value the handler
// reads: an id as given, or the id a name resolves to (names.go).
type RefCheck func(c *Call, field, value string) (string, error)

// RefOf is the check of an id of kind (or a name of one): the record must
// be this studio's.
func RefOf[T any](kind ids.Kind, get func(ss store.StudioStore) func(context.Context, string) (T, error)) RefCheck {
	return func(c *Call, field, v string) (string, error) {
		id, err := c.Resolve(kind, field, v)
		if err != nil {
			return "", err
		}
		_, err = Lookup(c.Ctx, kind, id, get(c.Studio()))
		return id, err
	}
}

// A Limit is a count routes are held to at the policy point (Limited):
// Max per Window, shared between instances when the server has Redis
// (WhenDown says what then while Redis does not answer). Refused is the
// sentence over it (nil: the limiter's).
type Limit struct {
	Name     string
	Max      int
	Window   time.Duration
	WhenDown ratelimit.WhenDown
	Refused  func(d ratelimit.Decision) string
}

// Limited holds the route to the declared limit name, per studio and the
// record its {id} names, whoever asks: counted before the handler, given
// back unless the answer is the route's own success status (a create that
// answers what exists, a refusal and a dry run cost nothing).
func Limited(name string) Opt { return func(r *route) { r.limit = name } }

// Adds is what an area adds to the reads other areas own, which ask every
// area's (Call.Adds): more reasons trainees need a coach, by trainee (the
// roster's needs-attention, and the coach's digest that reads it); lines
// of a trainee's overview.
type Adds struct {
	// Codes are every reason code Reasons may answer: a route's
	// ReasonFilter takes each one, and an area that adds reasons declares
	// them or the lane does not start.
	Codes    []ReasonCode
	Reasons  func(c *Call, traineeIDs []string) (map[string][]training.Reason, error)
	Overview func(c *Call, traineeID string) ([]string, error)
}

// A ReasonCode is a reason an area adds: its code, what it means (a few
// words, or none) and the scope a credential needs to be told it ("" for
// any), as the reason filter's description says them.
type ReasonCode struct {
	Code, Means, Scope string
}

// ReasonFilter makes the route's input field the filter by reason: beside
// the reasons its lane tag lists (its own area's), it takes every reason
// code the areas declare (Adds.Codes), and its description says them, so
// no reason an area adds is left out of the filter.
func ReasonFilter(field string) Opt { return func(r *route) { r.reasonFilter = field } }

// declaredReasons are the reason codes the areas add, in declaration order.
func (h *held) declaredReasons() []ReasonCode {
	var out []ReasonCode
	for _, a := range h.adds {
		out = append(out, a.Codes...)
	}
	return out
}

// withReasons is the route's input with the declared reasons added to its
// reason filter's enum and description (the process-wide schema of the
// input type is left as it is: the route gets its own).
func (l *Lane) withReasons(rt *route) {
	codes := l.held.declaredReasons()
	s := rt.input.schema.CloneSchemas()
	p := s.Properties[rt.reasonFilter]
	if p == nil || len(p.Enum) == 0 {
		panic("lane: " + rt.method + " " + rt.path + " filters by reason on " + rt.reasonFilter + ", which is not a field with its own reasons (enum=…)")
	}
	// CloneSchemas copies schemas, not their slices: the enum the type's
	// schema shares is copied before it grows.
	p.Enum = slices.Clone(p.Enum)
	var plain, scoped []string
	scopes := map[string][]string{}
	for _, c := range codes {
		if slices.Contains(p.Enum, any(c.Code)) {
			panic("lane: the reason " + c.Code + " is declared twice")
		}
		p.Enum = append(p.Enum, c.Code)
		said := c.Code
		if c.Means != "" {
			said += " (" + c.Means + ")"
		}
		if c.Scope == "" {
			plain = append(plain, said)
			continue
		}
		if scopes[c.Scope] == nil {
			scoped = append(scoped, c.Scope)
		}
		scopes[c.Scope] = append(scopes[c.Scope], said)
	}
	desc := strings.TrimSuffix(p.Description, ".")
	if len(plain) > 0 {
		desc += ", " + strings.Join(plain, ", ")
	}
	for _, scope := range scoped {
		desc += "; with the " + scope + " scope " + strings.Join(scopes[scope], ", ")
	}
	p.Description = desc + "."
	o, err := schema.NewObject(s)
	if err != nil {
		panic("lane: " + rt.method + " " + rt.path + ": " + err.Error())
	}
	rt.input = &inputSchema{schema: s, object: o}
}

// Adds is what every area adds to the reads other areas own.
func (c *Call) Adds() []Adds { return c.l.held.adds }

// held is what the areas declared, as the kernel reads it.
type held struct {
	nouns  map[ids.Kind]Noun
	paths  map[string]ids.Kind // collection → the kind of its {id}
	refs   map[string]RefCheck
	limits map[string]Limit
	adds   []Adds
}

// Declarations are the areas' declarations.
func Declarations(areas []Area) []Declaration {
	var out []Declaration
	for _, a := range areas {
		if d, ok := a.(Declarer); ok {
			var x Declaration
			d.Declare(&x)
			out = append(out, x)
		}
	}
	return out
}

// hold reads the declarations; a name declared twice stops the lane.
func hold(decls []Declaration) *held {
	h := &held{nouns: map[ids.Kind]Noun{}, paths: map[string]ids.Kind{}, refs: map[string]RefCheck{}, limits: map[string]Limit{}}
	for _, d := range decls {
		for _, n := range d.Nouns {
			once(h.nouns, n.Kind, n, "id kind")
			for _, c := range n.Collections {
				once(h.paths, c, n.Kind, "collection")
			}
		}
		for name, check := range d.Refs {
			once(h.refs, name, check, "ref")
		}
		for _, lim := range d.Limits {
			once(h.limits, lim.Name, lim, "limit")
		}
		if d.Adds.Reasons != nil && len(d.Adds.Codes) == 0 {
			panic("lane: an area adds reasons (Adds.Reasons) without declaring their codes (Adds.Codes)")
		}
		h.adds = append(h.adds, d.Adds)
	}
	return h
}

func once[K comparable, V any](m map[K]V, k K, v V, what string) {
	if _, seen := m[k]; seen {
		panic(fmt.Sprintf("lane: the %s %v is declared twice", what, k))
	}
	m[k] = v
}

// bind completes a route once every declaration is known: the kind of its
// {id} (the collection before it), the trainee policy's shapes, its ref
// fields, its limit. A mistake stops the lane at start.
func (l *Lane) bind(rt *route) {
	if before, _, ok := strings.Cut(rt.path, "/{id}"); ok {
		rt.idKind = l.held.paths[before[strings.LastIndexByte(before, '/')+1:]]
	}
	l.checkTraineeRoute(rt)
	if rt.reasonFilter != "" {
		l.withReasons(rt)
	}
	rt.refs = l.refFieldsOf(rt.inType)
	if _, ok := l.held.limits[rt.limit]; rt.limit != "" && (!ok || rt.idKind == "") {
		panic("lane: " + rt.method + " " + rt.path + " is Limited(" + rt.limit + "), a limit nobody declared or a path without an {id}")
	}
	if l.limits[rt.limit] == nil && rt.limit != "" {
		lim := l.held.limits[rt.limit]
		l.limits[rt.limit] = ratelimit.NewMemory(lim.Max, lim.Window).WithClock(l.now)
	}
}

// admitLimit counts the request against its route's limit (not a dry
// run's); a limit that cannot be read lets it through, logged.
func (c *Call) admitLimit(rt *route) *Error {
	if rt.limit == "" || c.DryRun() || c.refund != nil {
		return nil
	}
	key, counter := "limit:"+rt.limit+":"+c.P.StudioID+":"+c.ID(), c.l.limits[rt.limit]
	d, err := counter.Allow(c.Ctx, key)
	if err != nil {
		c.Logger().Warn("lane: a route's limit could not be read; serving all the same", "limit", rt.limit, "error", err)
		return nil
	}
	if !d.Allowed {
		msg := d.Message()
		if refused := c.l.held.limits[rt.limit].Refused; refused != nil {
			msg = refused(d)
		}
		return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, Message: msg, RetryAfterSeconds: ratelimit.RetryAfterSeconds(d.RetryAfter)}
	}
	c.refund = func(status int) {
		if status != rt.status {
			c.l.giveBack(c.Ctx, counter, key)
		}
	}
	return nil
}

// Word marks a route whose second segment is a word where the collection's
// other routes take an {id} (/trainees/by-phone/{phone} beside
// /trainees/{id}/weights). ServeMux cannot tell the two apart, so it is
// registered as the pattern they are more specific than
// (/trainees/{id}/{phone}), serving only its word.
func Word() Opt { return func(r *route) { r.word = true } }

func (l *Lane) wordRoute(rt *route, endpoint http.Handler) (string, http.Handler) {
	parts := strings.SplitN(rt.path, "/", 4) // "", collection, word, rest
	if len(parts) != 4 || strings.Contains(parts[2], "{") {
		panic("lane: " + rt.method + " " + rt.path + " is Word() without a word as its second segment")
	}
	pattern := rt.method + " " + Prefix + "/" + parts[1] + "/{id}/" + parts[3]
	l.words[pattern] = parts[2]
	return pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.notWord(pattern, r) {
			l.noRoute(w, r)
			return
		}
		endpoint.ServeHTTP(w, r)
	})
}

// notWord reports that pattern is a Word route's and r names another word.
func (l *Lane) notWord(pattern string, r *http.Request) bool {
	word, ok := l.words[pattern]
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, Prefix), "/", 4)
	return ok && (len(parts) < 3 || parts[2] != word)
}

// Package lane is the automation lane /v1/automation: the one HTTP API
// through which every AI surface and integration reads and writes a studio's
// data. A request goes through: request id -> audit -> route (ServeMux,
// patterns fixed at start) -> authentication (an auth.Authenticator:
// credentials.Authenticator) -> rate limit (keyed on the credential, or the address
// when it is missing or failed) -> the route's scope -> validation -> plan
// limits (in the write's transaction) -> store. Paths no route serves are
// limited by address and answered 404 or 405 without authentication.
//
// Every answer is the envelope {"ok":true,"data":…,"requestId":…} or
// {"ok":false,"error":{"code":…,"message":…},"requestId":…}; messages are
// sentences a model can act on. Request schemas are Go structs whose JSON
// schemas (github.com/google/jsonschema-go) validate requests and make the
// OpenAPI document at /v1/automation/openapi.json.
package lane

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// Prefix is where the lane is mounted.
const Prefix = "/v1/automation"

// maxBody bounds a request body; the largest legitimate one is a form template.
const maxBody = 1 << 20

// Options configure a Lane.
type Options struct {
	Store   store.Store
	Limiter ratelimit.Limiter // nil: unlimited
	// TraineeReads and TraineeWrites hold each trainee principal to its
	// reads and writes per window, counted per person (studio and trainee)
	// after the request is authorized; studio keys and coaches are not
	// held to them. nil: unlimited.
	TraineeReads, TraineeWrites ratelimit.Limiter
	// Authenticator turns credentials into principals; nil: the studio
	// and platform keys in Store (credentials.Authenticator, recording
	// their use on the lane's clock).
	Authenticator auth.Authenticator
	Audit         audit.Sink // nil: no audit
	Logger        *slog.Logger
	Now           func() time.Time // nil: time.Now
	// IdempotencyRenewEvery is how often a write holding an
	// Idempotency-Key renews its hold while it runs (0: a quarter of the
	// lease, idempotencyLease/4); tests shorten it.
	IdempotencyRenewEvery time.Duration
	// Areas are the route packages the lane serves.
	Areas []Area
	// Limits count the areas' declared limits (Declaration.Limits) by
	// name; a limit not given is counted in this process.
	Limits map[string]ratelimit.Limiter
}

// Lane is the automation lane's http.Handler; it serves the full paths
// under /v1/automation.
type Lane struct {
	store   store.Store
	limiter ratelimit.Limiter
	// traineeReads and traineeWrites: see Options.
	traineeReads, traineeWrites ratelimit.Limiter
	authn                       auth.Authenticator
	audit                       audit.Sink
	logger                      *slog.Logger
	now                         func() time.Time
	renewEvery                  time.Duration // see Options.IdempotencyRenewEvery

	mux     *http.ServeMux
	routes  []*route
	handler http.Handler
	openAPI func() []byte
	held    *held                        // what the areas declared
	limits  map[string]ratelimit.Limiter // the declared limits' counters
	words   map[string]string            // a Word route's pattern → its word
}

// New builds the lane.
func New(o Options) *Lane {
	l := &Lane{
		store:         o.Store,
		limiter:       o.Limiter,
		traineeReads:  o.TraineeReads,
		traineeWrites: o.TraineeWrites,
		authn:         o.Authenticator,
		audit:         o.Audit,
		logger:        o.Logger,
		now:           o.Now,
		renewEvery:    o.IdempotencyRenewEvery,
		mux:           http.NewServeMux(),
	}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	if l.renewEvery <= 0 {
		l.renewEvery = idempotencyLease / 4
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.authn == nil {
		l.authn = credentials.New(credentials.Options{Keys: o.Store, Now: l.now, Logger: l.logger})
	}
	l.held, l.limits = hold(Declarations(o.Areas)), map[string]ratelimit.Limiter{}
	for name, lim := range o.Limits {
		l.limits[name] = lim
	}
	rs := &Routes{}
	for _, a := range o.Areas {
		a.Routes(rs)
	}
	l.routes = rs.list
	l.words = map[string]string{}
	for _, rt := range l.routes {
		l.bind(rt)
		pattern, h := rt.method+" "+Prefix+rt.path, l.endpoint(rt)
		if rt.word {
			pattern, h = l.wordRoute(rt, h)
		}
		l.mux.Handle(pattern, h) // a clash panics here, on every start alike
	}
	l.mux.HandleFunc("GET "+Prefix+"/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		infoFrom(r.Context()).route = "GET " + Prefix + "/openapi.json"
		if l.admit(w, r, ratelimit.AddrKey(auth.ClientAddr(r))) {
			l.serveOpenAPI(w, r)
		}
	})
	l.mux.HandleFunc(Prefix+"/", l.noRoute)
	l.openAPI = sync.OnceValue(l.buildOpenAPI) // on first use: most lanes never serve it

	l.handler = l.withRequestID(l.withAudit(l.mux))
	return l
}

func (l *Lane) ServeHTTP(w http.ResponseWriter, r *http.Request) { l.handler.ServeHTTP(w, r) }

// OpenAPI returns the lane's OpenAPI 3.1 document.
func (l *Lane) OpenAPI() []byte { return l.openAPI() }

// reqInfo is the per-request record the middlewares and the handler fill
// in; the audit middleware writes it out when the answer is sent.
type reqInfo struct {
	id         string
	principal  *auth.Principal
	route      string
	resourceID string
	dryRun     bool     // the write ran as a dry run and was rolled back
	matched    []string // what each name given for an id was taken for (names.go)
}

type reqInfoKey struct{}

func infoFrom(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(reqInfoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

func (l *Lane) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := &reqInfo{id: ids.New(ids.Request)}
		w.Header().Set("X-Request-Id", ri.id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, ri)))
	})
}

// withAudit records one event per request whose studio is known: every
// authenticated request, whatever its status, and requests with a revoked
// key. Requests without a studio (no key, an unknown key, over the rate
// limit before the key is read) are logged only: there is no studio to file
// them under.
//
// A write's answer is held until its event is in the database
// (audit.DurableSink), so no acknowledged write can lose its audit row to
// a crash; reads are queued and batched, off the request's path: a crash
// may lose the last moments of them, and they changed nothing.
func (l *Lane) withAudit(next http.Handler) http.Handler {
	durable, _ := l.audit.(audit.DurableSink)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &httpx.StatusWriter{ResponseWriter: w}
		var held *httpx.Held // a write's answer, until its event is in
		if durable != nil && isWrite(r.Method) {
			held = httpx.NewHeld(w.Header())
			sw.ResponseWriter = held
		}
		next.ServeHTTP(sw, r)
		if held != nil {
			defer held.SendTo(w) // once the event below is written
		}
		ri := infoFrom(r.Context())
		status := sw.Sent()
		elapsed := time.Since(start)
		route := ri.route
		if route == "" {
			route = text.Truncate(r.URL.Path, maxPathInAnswer)
		} else {
			metrics.SetRoute(r.Context(), route)
		}
		if ri.dryRun {
			route += " (dry run)" // after the metrics: a dry run is its route's request
		}
		l.logger.Debug("lane request", "requestId", ri.id, "method", r.Method, "route", route, "status", status, "durationMs", float64(elapsed.Microseconds())/1000)
		if ri.principal == nil || l.audit == nil {
			return
		}
		record := l.audit.Record
		if held != nil {
			record = durable.RecordDurable
		}
		record(domain.AuditEvent{
			ID:           ids.New(ids.Audit),
			StudioID:     ri.principal.StudioID,
			CredentialID: ri.principal.CredentialID,
			Method:       r.Method,
			Route:        route,
			ResourceID:   ri.resourceID,
			Status:       status,
			DurationMs:   float64(elapsed.Microseconds()) / 1000,
			RequestID:    ri.id,
			Source:       ri.principal.Source,
			Conversation: ConversationOf(r.Context(), ri.principal),
			At:           l.now().UTC(),
		})
	})
}

// ConversationOf is what the audit records of an agent platform's claims
// about its end user: only on a platform key's call, and only as the /mcp
// endpoint put them in the context (never from this request's headers).
func ConversationOf(ctx context.Context, p *auth.Principal) json.RawMessage {
	c, ok := auth.ConversationFrom(ctx)
	if !ok || p.Kind != auth.KindPlatformKey {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	return b
}

// authenticate runs the authenticator on every request to a route (see
// credentials.Authenticator for how a revocation holds on the next
// request), then the rate limit, keyed on the principal's credential; a
// missing or refused credential is counted against the caller's address,
// so inventing tokens buys no budget. It answers the request itself unless it returns
// the principal (also the request's reqInfo's).
func (l *Lane) authenticate(w http.ResponseWriter, r *http.Request) (*auth.Principal, bool) {
	ri := infoFrom(r.Context())
	// An in-process call from a surface that authenticated this very
	// credential for the request it serves (the /mcp gate) is not read
	// twice; nothing from the network can carry that admission.
	admission, _ := auth.AdmissionFrom(r.Context())
	p, ok := admission.For(r)
	var err error
	if !ok {
		p, err = l.authn.Authenticate(r.Context(), r)
	}
	if p != nil {
		p.Source = sourceOf(r.Context())
		ri.principal = p // a refused but known key is audited under its studio
	}
	var refusal *auth.Refusal
	if errors.As(err, &refusal) {
		if l.admit(w, r, ratelimit.AddrKey(auth.ClientAddr(r))) {
			l.writeError(w, r, &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: refusal.Message})
		}
		return nil, false
	}
	if err != nil {
		l.internal(w, r, "authenticating the request", err)
		return nil, false
	}
	if p, err = l.speakingFor(r.Context(), p); errors.As(err, &refusal) {
		l.writeError(w, r, &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: refusal.Message})
		return nil, false
	} else if err != nil {
		l.internal(w, r, "reading the person a studio key speaks for", err)
		return nil, false
	}
	ri.principal = p
	// A call the /mcp endpoint already counted for this credential is not
	// counted twice: one tool call is one unit of the limit.
	if !admission.Take(p.CredentialID) && !l.admit(w, r, ratelimit.CredentialKey(p.CredentialID)) {
		return nil, false
	}
	return p, true
}

// admit counts the request against the caller named key; over the limit it
// answers 429 and reports false.
func (l *Lane) admit(w http.ResponseWriter, r *http.Request, key string) bool {
	d, ok := ratelimit.Check(w, r, l.limiter, key, l.logger)
	if !ok {
		l.writeError(w, r, &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, Message: d.Message(), RetryAfterSeconds: ratelimit.RetryAfterSeconds(d.RetryAfter)})
	}
	return ok
}

// sourceOf is the surface the context was marked with by Perform's own
// in-process transport; anything else (every network request) is api.
func sourceOf(ctx context.Context) string {
	switch s, _ := auth.SourceFrom(ctx); s {
	case domain.SourceMCP, domain.SourceAgent, domain.SourceWhatsApp:
		return s
	default:
		return domain.SourceAPI
	}
}

// noRoute answers paths no route serves: 405 when the path exists under
// another method, 404 otherwise; both counted against the address.
func (l *Lane) noRoute(w http.ResponseWriter, r *http.Request) {
	if !l.admit(w, r, ratelimit.AddrKey(auth.ClientAddr(r))) {
		return
	}
	if allowed := AllowedMethods(l.mux, r, Prefix+"/", l.notWord); len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		l.writeError(w, r, &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Message: MethodNotAllowedMessage(r, allowed)})
		return
	}
	l.writeError(w, r, &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: NotFoundMessage(r)})
}

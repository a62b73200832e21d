package server

import (
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/redis/go-redis/v9"
	"github.com/riverqueue/river"
)

// Parts is what a plug-in builds on while the server is composed.
type Parts struct {
	Config config.Config
	Store  store.Store
	Logger *slog.Logger
	Redis  *redis.Client // nil when PERFORM_REDIS_URL is unset
	// Courier sends a door's one-time codes as River jobs (a plug-in's
	// door passes it as otc.Options.Courier, login.Options.Courier).
	Courier *otc.Courier
	// Limits counts a plug-in's own limits in Redis as the lane's are
	// (Limits.Limiter), falling back as they do while Redis is down (nil
	// when PERFORM_REDIS_URL is unset).
	Limits *ratelimit.Shared
	// Lane serves /v1/automation in process with its full middleware chain
	// (auth, rate limit, validation, audit): wrap it in
	// laneclient.HandlerTransport to call the lane without a TCP hop.
	Lane http.Handler
	// Limiter is the lane's rate limiter, for such a surface to count with.
	Limiter ratelimit.Limiter
	// Workers takes the plug-in's River workers (river.AddWorker).
	Workers *river.Workers

	s            *Server
	periodicJobs []*river.PeriodicJob
	holding      bool // a plug-in's jobs use jobs.QueueHolding
	// authenticator is the lane's: the base one while the Authns run, the
	// one their chain built while the Plugins run.
	authenticator auth.Authenticator
}

// Authenticator is the lane's: a surface that must know its caller
// before the lane does (/mcp) asks it, so a credential means one thing.
// In a Plugin it is the final one, every Authn applied; a Plugin cannot
// change it.
func (p *Parts) Authenticator() auth.Authenticator { return p.authenticator }

// Handle mounts h at pattern (http.ServeMux syntax, e.g. "POST /v1/agent/webhook").
// rateLimited puts it behind the server's limiter, shared with the lane,
// answering over-limit requests with the lane's RATE_LIMITED envelope.
func (p *Parts) Handle(pattern string, h http.Handler, rateLimited bool) {
	if rateLimited {
		p.HandleLimited(pattern, h, denyRateLimited)
		return
	}
	p.s.mux.Handle(pattern, h)
}

// HandleLimited mounts h behind the server's limiter, like Handle, for a
// route that answers in its own protocol: deny writes the over-limit answer.
func (p *Parts) HandleLimited(pattern string, h http.Handler, deny ratelimit.Deny) {
	p.s.mux.Handle(pattern, ratelimit.Middleware(p.s.limiter, deny, p.s.logger)(h))
}

// UseHoldingQueue has the River client work jobs.QueueHolding, for a
// plug-in whose jobs wait there.
func (p *Parts) UseHoldingQueue() { p.holding = true }

// AddPeriodicJob schedules a River periodic job.
func (p *Parts) AddPeriodicJob(j *river.PeriodicJob) { p.periodicJobs = append(p.periodicJobs, j) }

// OnJobs is called with the River client once it is built (before serving),
// for plug-ins that insert jobs.
func (p *Parts) OnJobs(f func(*river.Client[*sql.Tx])) { p.s.onJobs = append(p.s.onJobs, f) }

// OnClose is called by Close, after the HTTP server has stopped and before
// the store closes, for plug-ins with goroutines of their own to stop.
func (p *Parts) OnClose(f func() error) { p.s.onClose = append(p.s.onClose, f) }

// Plugin adds an optional part to the server (the hosted MCP endpoint, the
// WhatsApp agent). It runs during New, after every Authn and before River
// is built.
type Plugin func(p *Parts) error

// Authn adds a kind of credential to the lane's (OAuth access tokens beside
// studio keys): it may mount routes on p and answers an authenticator that
// wraps inner. New runs every Authn, in the order given, before any
// Plugin, whatever the order of the options: the plug-ins (/mcp) and the
// lane all use the chain's last authenticator, so a credential means one
// thing on every surface.
type Authn func(p *Parts, inner auth.Authenticator) (auth.Authenticator, error)

// Option configures New.
type Option func(*options)

type options struct {
	plugins  []Plugin
	authns   []Authn
	timeouts *Timeouts
	clock    func() time.Time
	codes    areas.CodeGateway
	// planModel lays out drafted weeks (nil: the rules' own week).
	planModel  llm.Provider
	planPrices llm.Prices
}

// WithClock sets the clock of the store and the lane (time.Now when unset),
// so rows and answers agree on the time.
func WithClock(clock func() time.Time) Option { return func(o *options) { o.clock = clock } }

// WithTimeouts replaces DefaultTimeouts (tests use short ones).
func WithTimeouts(t Timeouts) Option { return func(o *options) { o.timeouts = &t } }

// WithCodes sends the lane's verification codes (an agent platform's end
// users) over WhatsApp; without it they are written to the log.
func WithCodes(g areas.CodeGateway) Option { return func(o *options) { o.codes = g } }

// WithPlanModel gives the weekly plan's drafts a model to lay weeks out,
// and its prices for the drafts' cost; without it a draft is the rules'
// own week.
func WithPlanModel(p llm.Provider, prices llm.Prices) Option {
	return func(o *options) { o.planModel, o.planPrices = p, prices }
}

// WithPlugin adds a plug-in.
func WithPlugin(p Plugin) Option { return func(o *options) { o.plugins = append(o.plugins, p) } }

// WithAuthn adds a link to the lane's authenticator chain (see Authn).
func WithAuthn(a Authn) Option { return func(o *options) { o.authns = append(o.authns, a) } }

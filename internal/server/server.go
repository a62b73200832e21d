// Package server composes Perform's HTTP server from its parts: the store
// (migrated on open), the batching audit writer, the rate limiter (memory or
// Redis), River on the store's database, the automation lane at
// /v1/automation/, plug-ins such as the hosted MCP endpoint and the WhatsApp
// agent, and the operations endpoints /healthz, /readyz and /metrics.
package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/webui"
)

// Timeouts bound how long one connection may take over each part of a
// request, so a client trickling its headers or body (one byte every few
// seconds) is cut off instead of holding a connection and a goroutine.
type Timeouts struct {
	ReadHeader time.Duration // the request line and headers
	Read       time.Duration // the whole request, body included
	Write      time.Duration // from the end of the headers to the end of the answer
	Idle       time.Duration // a keep-alive connection between requests
}

// DefaultTimeouts fit the longest legitimate request: a 1 MiB body (the
// lane's limit) arrives in well under 30 s on any working link, and the
// slowest answer (an MCP tool call under load, a lane write waiting for
// SQLite's writer) stays far below a minute.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 2 * time.Minute}

// Shutdown budgets: how long draining HTTP and stopping River may take
// before in-flight work is cut off.
const (
	drainTimeout     = 20 * time.Second
	jobsStopTimeout  = 10 * time.Second
	readyPingTimeout = 2 * time.Second
)

// Server is a composed Perform server. Build it with New, then Serve it
// (or serve Handler yourself) and Close it.
type Server struct {
	cfg     config.Config
	docs    docs // the texts of /privacy and /terms
	logger  *slog.Logger
	store   store.Store
	audit   *audit.Writer
	limiter ratelimit.Limiter
	// traineeReads and traineeWrites are the per-person limits of trainee
	// connections (lane.Options).
	traineeReads, traineeWrites ratelimit.Limiter
	redis                       *redis.Client
	jobs                        *river.Client[*sql.Tx]
	lane                        *lane.Lane
	areas                       *areas.Set
	mux                         *http.ServeMux
	handler                     http.Handler
	timeouts                    Timeouts

	// shared is the limiters' record of whether Redis answers (nil
	// without Redis), for /readyz.
	shared *ratelimit.Shared

	onJobs []func(*river.Client[*sql.Tx])
	// onClose are the plug-ins' stops, run by Close before the store closes.
	onClose []func() error

	jobsStarted bool
	closeOnce   sync.Once
	closeErr    error
	url         string

	// stopping is set when the shutdown begins: /readyz answers 503 from
	// then on, so a load balancer stops sending new requests.
	stopping atomic.Bool
}

// New opens the store (applying migrations) and composes the server.
// Nothing listens until Run or Serve.
func New(ctx context.Context, cfg config.Config, logger *slog.Logger, opts ...Option) (*Server, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, logger: logger, mux: http.NewServeMux(), timeouts: DefaultTimeouts}
	docs, err := loadDocs(cfg.PrivacyText, cfg.TermsText)
	if err != nil {
		return nil, err
	}
	s.docs = docs
	if o.timeouts != nil {
		s.timeouts = *o.timeouts
	}

	if o.clock == nil {
		o.clock = time.Now
	}
	st, err := store.Open(ctx, cfg.DatabaseURL, logger, store.WithClock(o.clock), store.WithMaxConns(cfg.DatabaseMaxConns))
	if err != nil {
		return nil, fmt.Errorf("opening the database (PERFORM_DATABASE_URL or --database-url): %w", err)
	}
	s.store = st
	fail := func(err error) (*Server, error) {
		s.closeParts()
		return nil, err
	}

	if cfg.RedisURL != "" {
		connectCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s.redis, err = ratelimit.Connect(connectCtx, cfg.RedisURL)
		cancel()
		if err != nil {
			return fail(err)
		}
		// While Redis is down the request limits count per instance in
		// memory; the verification codes, a count that must not become N
		// times itself, are refused (see ratelimit.Shared).
		s.shared = ratelimit.NewShared(s.redis, logger).WithClock(o.clock)
		s.limiter = s.shared.Limiter(cfg.RateLimitMax, cfg.RateLimitWindow, ratelimit.CountInMemory)
		s.traineeReads = s.shared.Limiter(cfg.TraineeReadsPerHour, time.Hour, ratelimit.CountInMemory)
		s.traineeWrites = s.shared.Limiter(cfg.TraineeWritesPerHour, time.Hour, ratelimit.CountInMemory)
	} else {
		s.limiter = ratelimit.NewMemory(cfg.RateLimitMax, cfg.RateLimitWindow)
		s.traineeReads = ratelimit.NewMemory(cfg.TraineeReadsPerHour, time.Hour).WithClock(o.clock)
		s.traineeWrites = ratelimit.NewMemory(cfg.TraineeWritesPerHour, time.Hour).WithClock(o.clock)
	}

	s.audit = audit.NewWriter(st, audit.Options{Logger: logger})
	authn := credentials.New(credentials.Options{Keys: st, Conversations: areas.Conversations(st), Now: o.clock, Logger: logger})

	// The public area's outbound work (agent platforms' callbacks and
	// verification codes) runs as River jobs: its workers are registered
	// here, its client given once River is built.
	if err := cfg.CheckCallbackLoopback(); err != nil {
		return fail(err)
	}
	if cfg.AgentPlatformCallbackLoopback {
		logger.Warn("PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK is on: agent platform callbacks may go to 127.0.0.1 and localhost over http, on any port. This is for trying the callback on a laptop; never set it on a server others reach.")
	}
	// Every door's one-time codes go out as River jobs inserted with the
	// code, sealed under PERFORM_SECRET_KEY or, without one, a key and a
	// queue of this process's own (internal/otc).
	courier, err := otc.NewCourier(cfg.SecretKey, logger)
	if err != nil {
		return fail(fmt.Errorf("PERFORM_SECRET_KEY cannot seal the one-time codes: %w", err))
	}
	env := areas.Env{Config: cfg, Store: st, Logger: logger, Audit: s.audit, Clock: o.clock, Courier: courier, Codes: o.codes,
		Limiter: s.areaLimiter(o.clock), PlanModel: o.planModel, PlanPrices: o.planPrices}
	if s.shared != nil {
		env.Down = func() bool { return s.shared.Health().Down }
	}
	s.areas = areas.Compose(env)

	workers := river.NewWorkers()
	s.areas.Register(workers)
	courier.Register(workers)
	parts := &Parts{
		Courier:       courier,
		Config:        cfg,
		Store:         st,
		Logger:        logger,
		Redis:         s.redis,
		Limits:        s.shared,
		Lane:          http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.lane.ServeHTTP(w, r) }),
		authenticator: authn,
		Limiter:       s.limiter,
		Workers:       workers,
		s:             s,
		periodicJobs:  s.areas.PeriodicJobs(),
	}
	for _, a := range o.authns {
		wrapped, err := a(parts, parts.authenticator)
		if err != nil {
			return fail(err)
		}
		if wrapped == nil {
			return fail(errors.New("an authenticator plug-in (server.WithAuthn) answered no authenticator: answer the one it was given, wrapped"))
		}
		parts.authenticator = wrapped
	}
	for _, plug := range o.plugins {
		if err := plug(parts); err != nil {
			return fail(err)
		}
	}

	s.jobs, err = jobs.NewClient(st, jobs.Config{Workers: workers, PeriodicJobs: parts.periodicJobs, Holding: parts.holding, ProcessQueue: courier.Queue(), Logger: logger})
	if err != nil {
		return fail(fmt.Errorf("setting up background jobs: %w", err))
	}
	for _, f := range s.onJobs {
		f(s.jobs)
	}
	s.areas.SetJobs(s.jobs)
	courier.SetJobs(s.jobs)

	// The Authns may have wrapped the authenticator (OAuth access tokens
	// beside studio keys): the lane uses the chain's last, as the plug-ins did.
	s.lane = lane.New(lane.Options{Store: st, Now: o.clock, Authenticator: parts.authenticator, Limiter: s.limiter,
		TraineeReads: s.traineeReads, TraineeWrites: s.traineeWrites, Audit: s.audit, Logger: logger,
		Areas: s.areas.Areas(), Limits: s.areas.Limits(env.Limiter)})

	s.mux.Handle(lane.Prefix+"/", s.lane)
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.mux.Handle("GET /metrics", metrics.Handler())
	s.mux.HandleFunc("GET "+IconPath, serveIcon)
	s.mux.HandleFunc("GET "+OpenAIAppsChallengePath, s.openAIAppsChallenge)
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /privacy", s.privacy)
	s.mux.HandleFunc("GET /terms", s.terms)
	s.mux.HandleFunc("/", s.noRoute)
	// The browser pages speak the configured language to a browser that
	// asks for neither of theirs.
	s.handler = webui.WithDefault(s.observe(s.mux), cfg.DefaultLanguage)
	return s, nil
}

// Handler is the whole server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Store is the server's store.
func (s *Server) Store() store.Store { return s.store }

// Jobs is the server's River client.
func (s *Server) Jobs() *river.Client[*sql.Tx] { return s.jobs }

// URL is the root URL the server is reached at, known once it serves.
func (s *Server) URL() string { return s.url }

// Serve serves on ln until ctx is cancelled (SIGTERM or SIGINT in the
// command), then shuts down in order: fail /readyz (and serve on for
// PERFORM_SHUTDOWN_DELAY_MS), stop accepting and drain in-flight
// requests, stop River (letting running jobs finish), flush the audit
// writer, close Redis and the store.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// The MCP SDK allocates heavily per stateless request, so the server is
	// GC-bound under load; PERFORM_GC_PERCENT trades memory for fewer cycles.
	previousGC := debug.SetGCPercent(s.cfg.GCPercent)
	defer debug.SetGCPercent(previousGC)

	port := 0
	if addr, ok := ln.Addr().(*net.TCPAddr); ok {
		port = addr.Port
	}
	s.url = s.cfg.BaseURL(port)

	// River gets its own context: it is stopped explicitly, after HTTP drains.
	if err := s.jobs.Start(context.WithoutCancel(ctx)); err != nil {
		ln.Close()
		s.Close()
		return fmt.Errorf("starting background jobs: %w", err)
	}
	s.jobsStarted = true
	stopEvents := s.observeJobs()

	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.timeouts.ReadHeader,
		ReadTimeout:       s.timeouts.Read,
		WriteTimeout:      s.timeouts.Write,
		IdleTimeout:       s.timeouts.Idle,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	s.logger.Info("perform serving", "address", ln.Addr().String(), "url", s.url, "engine", s.store.Engine(),
		"rateLimiter", s.limiterName(), "gcPercent", s.cfg.GCPercent)

	var err error
	select {
	case <-ctx.Done():
		s.stopping.Store(true)
		if d := s.cfg.ShutdownDelay; d > 0 {
			// Keep serving while /readyz answers 503, so the load balancer
			// takes this instance out before its port closes.
			s.logger.Info("shutting down: /readyz answers 503; serving on for PERFORM_SHUTDOWN_DELAY_MS", "delay", d.String())
			select {
			case <-time.After(d):
			case err = <-serveErr:
				s.logger.Error("the HTTP server stopped", "error", err)
			}
		}
		s.logger.Info("shutting down: draining requests")
	case err = <-serveErr:
		s.logger.Error("the HTTP server stopped", "error", err)
	}
	drainCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
	defer cancel()
	if shutdownErr := srv.Shutdown(drainCtx); shutdownErr != nil {
		s.logger.Warn("requests still running after the drain timeout were cut off", "error", shutdownErr)
		srv.Close()
	}
	closeErr := s.Close() // stops River first, so the jobs it lets finish are counted
	stopEvents()
	if err == nil || errors.Is(err, http.ErrServerClosed) {
		err = closeErr
	}
	s.logger.Info("perform stopped")
	return err
}

// Close stops River, flushes the audit writer and closes Redis and the
// store. Serve calls it; call it yourself when you only used Handler.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if s.jobs != nil && s.jobsStarted {
			stopCtx, cancel := context.WithTimeout(context.Background(), jobsStopTimeout)
			if err := s.jobs.Stop(stopCtx); err != nil {
				s.logger.Warn("jobs did not finish in time; cancelling them", "error", err)
				cancelCtx, cancel2 := context.WithTimeout(context.Background(), jobsStopTimeout)
				_ = s.jobs.StopAndCancel(cancelCtx)
				cancel2()
			}
			cancel()
		}
		s.closeErr = s.closeParts()
	})
	return s.closeErr
}

// closeParts lets the verification codes this process still sends itself
// (without PERFORM_SECRET_KEY) go out, flushes the audit writer, then closes Redis
// and the store.
func (s *Server) closeParts() error {
	var errs []error
	for _, f := range s.onClose {
		errs = append(errs, f())
	}
	if s.areas != nil {
		if err := s.areas.CloseWait(); err != nil {
			s.logger.Warn("shutting down", "error", err)
		}
	}
	if s.audit != nil {
		errs = append(errs, s.audit.Close())
	}
	if s.redis != nil {
		errs = append(errs, s.redis.Close())
	}
	if s.store != nil {
		errs = append(errs, s.store.Close())
	}
	return errors.Join(errs...)
}

// areaLimiter builds the areas' counts: in Redis when set, else in this
// process on the server's clock.
func (s *Server) areaLimiter(clock func() time.Time) func(int, time.Duration, ratelimit.WhenDown) ratelimit.Limiter {
	return func(max int, window time.Duration, whenDown ratelimit.WhenDown) ratelimit.Limiter {
		if s.shared != nil {
			return s.shared.Limiter(max, window, whenDown)
		}
		return ratelimit.NewMemory(max, window).WithClock(clock)
	}
}

func (s *Server) limiterName() string {
	if s.redis != nil {
		return "redis"
	}
	return "memory"
}

// observeJobs counts finished River jobs in metrics until the returned
// func is called.
func (s *Server) observeJobs() (stop func()) {
	events, cancel := s.jobs.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			outcome := strings.TrimPrefix(string(e.Kind), "job_")
			var ran time.Duration
			if e.JobStats != nil {
				ran = e.JobStats.RunDuration
			}
			metrics.Job(e.Job.Kind, outcome, ran)
			if e.Kind == river.EventKindJobFailed {
				s.logger.Warn("job failed", "kind", e.Job.Kind, "id", e.Job.ID, "attempt", e.Job.Attempt)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// index tells a person who opens the root URL where things are.
func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	// A browser gets the front page; every other client the JSON, as ever.
	if webui.WantsHTML(r) {
		s.home(w, r)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"ok":      true,
		"name":    "Perform",
		"lane":    lane.Prefix,
		"openapi": lane.Prefix + "/openapi.json",
		"health":  "/healthz",
		"ready":   "/readyz",
		"metrics": "/metrics",
	})
}

// noRoute answers what no pattern serves as the lane does: 405 with Allow
// when the path exists under another method (GET /v1/agent/webhook), 404
// otherwise; the path repeated at most 100 bytes. A browser's GET (Accept
// prefers text/html) gets the 404 as a page (webui.NotFound).
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if allowed := lane.AllowedMethods(s.mux, r, "/"); len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		_ = httpx.WriteError(w, http.StatusMethodNotAllowed, httpx.ErrorBody{Code: lane.CodeMethodNotAllowed, Message: lane.MethodNotAllowedMessage(r, allowed)}, 0, "")
		return
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && webui.PrefersHTML(r) {
		webui.NotFound(w, r) // a person in a browser: a page in both languages, with a way home
		return
	}
	_ = httpx.WriteError(w, http.StatusNotFound, httpx.ErrorBody{Code: lane.CodeNotFound, Message: lane.NotFoundMessage(r)}, 0, "")
}

// denyRateLimited answers an over-limit request to a plug-in route.
func denyRateLimited(w http.ResponseWriter, _ *http.Request, d ratelimit.Decision) {
	_ = httpx.WriteError(w, http.StatusTooManyRequests, httpx.ErrorBody{Code: lane.CodeRateLimited, Message: d.Message()}, 0, "")
}

func writeJSON(w http.ResponseWriter, status int, v any) { _ = httpx.WriteJSON(w, status, v) }

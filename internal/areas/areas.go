// Package areas composes the lane's areas: every route Perform serves
// under /v1/automation, by the package that holds it.
//
//	studio   /validate, settings, keys, coaches, tags, tasks
//	catalog  plans (products), program and form templates, exercises, resources, persona
//	roster   trainees, subscriptions, assignments, forms, the trainee's own plan and feedback, triage
//	sessions sessions, workouts, personal records, benchmarks
//	health   measurements, check-ins, injuries, goals, the training profile
//	public   an agent platform's routes: the public offer, verification, the broker
//	weekplans  weekly plan drafts and applying them
//	billing  session credits, charges, payments and refunds, membership renewals
//	appointments  coaches' hours and slots, bookings, the waiting list, the calendar feed
//	payhook  the payments webhook's settings and the events it took
//
// Each area declares what it holds (lane.Declaration): the kernel and the
// server read the declarations, and name no area.
package areas

import (
	"database/sql"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas/appointments"
	"github.com/otherwise/perform/internal/areas/billing"
	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/areas/health"
	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/areas/public"
	"github.com/otherwise/perform/internal/areas/roster"
	"github.com/otherwise/perform/internal/areas/sessions"
	"github.com/otherwise/perform/internal/areas/studio"
	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// Options configure the areas that need more than the kernel gives.
type Options struct {
	Public    public.Options
	WeekPlans weekplans.Options
	// PayHook is the payments webhook's: PERFORM_SECRET_KEY and the
	// public URL its URL is given on.
	PayHook payhook.Options
	// ModelBudget are the operator's model budget ceilings (a studio may
	// set its own below them).
	ModelBudget modelbudget.Ceilings
	// Store and Logger serve the roster's background work (the forms'
	// announcer); nil Store: none.
	Store  store.Store
	Logger *slog.Logger
}

// Set is every area, built, and what they declared.
type Set struct {
	// WeekPlans is the weekly plans' area, for the tests that drive its
	// refinement worker themselves.
	WeekPlans *weekplans.Area
	// Budget is the one model budget, when the composer set one.
	Budget *modelbudget.Budget
	list   []lane.Area
	decls  []lane.Declaration
}

// New builds every area.
func New(o Options) *Set {
	pub, plans := public.New(o.Public), weekplans.New(o.WeekPlans)
	list := []lane.Area{&studio.Area{Budget: o.ModelBudget}, &catalog.Area{}, &roster.Area{Store: o.Store, Logger: o.Logger}, &sessions.Area{}, &health.Area{}, &appointments.Area{}, plans, pub,
		&billing.Area{Store: o.Store, Logger: o.Logger}, payhook.New(o.PayHook)}
	return &Set{WeekPlans: plans, list: list, decls: lane.Declarations(list)}
}

// CodeGateway sends an agent platform's end user a one-time code.
type CodeGateway = public.CodeGateway

// Env is what the server gives the areas.
type Env struct {
	Config config.Config
	Store  store.Store
	Logger *slog.Logger
	Audit  audit.Sink
	Clock  func() time.Time
	// Courier sends every door's one-time codes as River jobs.
	Courier *otc.Courier
	// Codes sends verification codes over WhatsApp (nil: to the log).
	Codes CodeGateway
	// Limiter builds a count shared between instances when Redis is set
	// (else in this process); Down reports that Redis does not answer
	// (nil: never).
	Limiter func(max int, window time.Duration, whenDown ratelimit.WhenDown) ratelimit.Limiter
	Down    func() bool
	// PlanModel lays out drafted weeks (nil: the rules' own week).
	PlanModel  llm.Provider
	PlanPrices llm.Prices
}

// Compose builds every area for the server, with the one model budget
// every model call is held to: the weekly plans' refinements here, the
// WhatsApp assistant's through Set.Budget.
func Compose(e Env) *Set {
	cfg := e.Config
	ceilings := modelbudget.Ceilings{PersonDayTokens: int64(cfg.ModelTokensPerPersonDay), StudioHourTokens: int64(cfg.ModelTokensPerStudioHour)}
	budget := modelbudget.New(e.Store, ceilings, e.Clock)
	set := New(Options{ModelBudget: ceilings, Store: e.Store, Logger: e.Logger,
		Public: public.Options{Store: e.Store, Codes: e.Codes, Courier: e.Courier, SecretKey: cfg.SecretKey, Audit: e.Audit, Logger: e.Logger,
			// A count that must not become N times itself: refused while Redis is down.
			CodeSends: e.Limiter(public.VerifyCodesPerHour, time.Hour, ratelimit.Refuse), CodeSendsDown: e.Down,
			Broker: public.BrokerOptions{Hosts: cfg.AgentPlatformCallbackHosts, AllowLoopback: cfg.AgentPlatformCallbackLoopback}},
		WeekPlans: weekplans.Options{Model: e.PlanModel, Prices: e.PlanPrices, Store: e.Store, Budget: budget, Logger: e.Logger},
		PayHook:   payhook.Options{SecretKey: cfg.SecretKey, PublicURL: cfg.PublicURL, Logger: e.Logger}})
	set.Budget = budget
	return set
}

// Areas lists the areas for lane.Options.
func (s *Set) Areas() []lane.Area { return s.list }

// Limits builds the counters of the areas' declared limits, for
// lane.Options.Limits.
func (s *Set) Limits(build func(max int, window time.Duration, whenDown ratelimit.WhenDown) ratelimit.Limiter) map[string]ratelimit.Limiter {
	out := map[string]ratelimit.Limiter{}
	for _, d := range s.decls {
		for _, l := range d.Limits {
			out[l.Name] = build(l.Max, l.Window, l.WhenDown)
		}
	}
	return out
}

// Register adds the areas' River workers.
func (s *Set) Register(workers *river.Workers) {
	for _, d := range s.decls {
		if d.Workers != nil {
			d.Workers(workers)
		}
	}
}

// PeriodicJobs are the areas' periodic jobs.
func (s *Set) PeriodicJobs() []*river.PeriodicJob {
	var out []*river.PeriodicJob
	for _, d := range s.decls {
		out = append(out, d.Periodic...)
	}
	return out
}

// SetJobs gives the areas the River client their jobs are inserted with.
func (s *Set) SetJobs(c *river.Client[*sql.Tx]) {
	for _, d := range s.decls {
		if d.Jobs != nil {
			d.Jobs(c)
		}
	}
}

// CloseWait waits (a few seconds at most) for the areas' background work.
func (s *Set) CloseWait() error {
	var errs []error
	for _, d := range s.decls {
		if d.Close != nil {
			errs = append(errs, d.Close())
		}
	}
	return errors.Join(errs...)
}

// All is every area, for a lane whose background work nobody waits for.
func All(o Options) []lane.Area { return New(o).Areas() }

// Lane is lane.New with every area when o names none: for the surfaces
// and tests that serve the whole lane and need no area's options.
func Lane(o lane.Options) *lane.Lane {
	if o.Areas == nil {
		o.Areas = All(Options{})
	}
	return lane.New(o)
}

// Conversations are the agent platforms' verified conversations the one
// authenticator (auth/credentials) reads: the public area's.
func Conversations(st store.Store) credentials.Conversations { return public.Conversations(st) }

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
package areas

import (
	"database/sql"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/areas/health"
	"github.com/otherwise/perform/internal/areas/public"
	"github.com/otherwise/perform/internal/areas/roster"
	"github.com/otherwise/perform/internal/areas/sessions"
	"github.com/otherwise/perform/internal/areas/studio"
	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/modelbudget"
)

// Options configure the areas that need more than the kernel gives.
type Options struct {
	Public    public.Options
	WeekPlans weekplans.Options
	// ModelBudget are the operator's model budget ceilings (a studio may
	// set its own below them).
	ModelBudget modelbudget.Ceilings
}

// Set is every area, built; Close waits for their background work.
type Set struct {
	Public    *public.Area
	WeekPlans *weekplans.Area
	// Budget is the one model budget, when the composer set one.
	Budget *modelbudget.Budget
	list   []lane.Area
}

// Register adds the areas' River workers: the public area's callbacks and
// codes, the weekly plans' refinements.
func (s *Set) Register(workers *river.Workers) {
	s.Public.Register(workers)
	s.WeekPlans.Register(workers)
}

// SetJobs gives the areas the River client their jobs are inserted with.
func (s *Set) SetJobs(c *river.Client[*sql.Tx]) {
	s.Public.SetJobs(c)
	s.WeekPlans.SetJobs(c)
}

// New builds every area.
func New(o Options) *Set {
	pub, plans := public.New(o.Public), weekplans.New(o.WeekPlans)
	return &Set{Public: pub, WeekPlans: plans, list: []lane.Area{&studio.Area{Budget: o.ModelBudget}, &catalog.Area{}, &roster.Area{}, &sessions.Area{}, &health.Area{}, plans, pub}}
}

// Areas lists the areas for lane.Options.
func (s *Set) Areas() []lane.Area { return s.list }

// CloseWait waits (a few seconds at most) for the areas' background work:
// the agent platforms' callbacks and verification codes.
func (s *Set) CloseWait() error { return s.Public.CloseWait() }

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

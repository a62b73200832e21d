package server

import (
	"log/slog"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/areas/public"
	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// newAreas builds the lane's areas with the one model budget every model
// call is held to: the weekly plans' refinements here, the WhatsApp
// assistant's through Parts.Budget.
func newAreas(cfg config.Config, st store.Store, logger *slog.Logger, o options, pub public.Options, drafts ratelimit.Limiter) *areas.Set {
	ceilings := modelbudget.Ceilings{PersonDayTokens: int64(cfg.ModelTokensPerPersonDay), StudioHourTokens: int64(cfg.ModelTokensPerStudioHour)}
	budget := modelbudget.New(st, ceilings, o.clock)
	set := areas.New(areas.Options{Public: pub, ModelBudget: ceilings,
		WeekPlans: weekplans.Options{Model: o.planModel, Prices: o.planPrices, Drafts: drafts, Store: st, Budget: budget, Logger: logger}})
	set.Budget = budget
	return set
}

// Budget is the one model budget (internal/modelbudget): a plug-in that
// calls a model (the WhatsApp assistant) checks and charges it.
func (p *Parts) Budget() *modelbudget.Budget { return p.s.areas.Budget }

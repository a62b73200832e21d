// Package weekplans is the weekly plan's routes: a trainee or her coach
// drafts a training week (internal/weekplan makes it), the coach applies
// it, and only then do planned sessions exist.
//
//	POST /trainees/{id}/plan-drafts   draft a week (coach: draft_weekly_plan; trainee: generate_weekly_plan)
//	GET  /plan-drafts/{id}            one draft
//	POST /plan-drafts/{id}/apply      lay a draft out as planned sessions (coach: apply_weekly_plan)
package weekplans

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas/health"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/weekplan"
)

// Options configure drafting.
type Options struct {
	// Model lays the week out, off the request (refine.go); nil drafts the
	// rules' own week.
	Model  llm.Provider
	Prices llm.Prices
	// Store and Budget serve the refinement's job: the drafts it refines
	// and the one model budget it is counted against (nil: none).
	Store  store.Store
	Budget *modelbudget.Budget
	Logger *slog.Logger
}

// Area is the weekly plan's routes and the refinement's job.
type Area struct {
	o    Options
	jobs atomic.Pointer[river.Client[*sql.Tx]]
}

// New builds the area.
func New(o Options) *Area { return &Area{o: o} }

// DraftsPerHour is how many weeks may be drafted for one trainee in an
// hour, by her and her coaches together (each may cost a model call).
const DraftsPerHour = 10

// DraftsLimit names the drafts' limit (Declare), counted at the policy
// point per trainee: a draft answered with 201; a pending draft answered
// again, a refusal and a dry run cost nothing.
const DraftsLimit = "weekly plan drafts"

// Declare says what the weekly plans hold: the drafts (a trainee's own),
// their limit, and the refinement's job.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns, lane.Noun{Kind: ids.PlanDraft, Collections: []string{"plan-drafts"},
		Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
			x, err := ss.GetPlanDraft(ctx, id)
			return x.TraineeID, err
		}})
	d.Limits = append(d.Limits, lane.Limit{Name: DraftsLimit, Max: DraftsPerHour, Window: time.Hour, Refused: func(x ratelimit.Decision) string {
		return fmt.Sprintf("This trainee's weeks were drafted %d times within the hour, the most there may be. Apply or read the latest draft (its id is in the answer that drafted it: apply_weekly_plan, GET /plan-drafts/{id}), or draft again in %d minutes.",
			x.Limit, (ratelimit.RetryAfterSeconds(x.RetryAfter)+59)/60)
	}})
	d.Workers, d.Jobs = a.Register, a.SetJobs
}

// DraftLife is how long a draft waits to be applied (never past its week).
const DraftLife = 7 * 24 * time.Hour

type draftInput struct {
	Week  *string `json:"week,omitempty" jsonschema:"The week to plan (the studio's week, from its first day): next (the default), this, any day of it (YYYY-MM-DD), or an ISO week (2026-W50)." lane:"maxLength=10"`
	Days  []int   `json:"days,omitempty" jsonschema:"The ISO weekdays to train (1 Monday … 7 Sunday); default: the trainee's availability." lane:"min=1,max=7,maxItems=7"`
	Rule  *string `json:"rule,omitempty" jsonschema:"The progression: double_progression, rpe or linear; default by experience (beginner linear, intermediate double, advanced rpe)." lane:"enum=double_progression|rpe|linear"`
	Fresh *bool   `json:"fresh,omitempty" jsonschema:"Draft anew even when a pending draft of the week exists (which is answered otherwise)."`
}

// draftView is a draft as the tools answer it: what to do next first,
// then the week.
type draftView struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	WeekStart   string          `json:"weekStart"`
	RequestedBy string          `json:"requestedBy"`
	ExpiresAt   time.Time       `json:"expiresAt"`
	Existing    bool            `json:"existing,omitempty"`
	Next        string          `json:"next"`
	Plan        weekplan.Plan   `json:"plan"`
	Report      weekplan.Report `json:"report"`
	SessionIDs  []string        `json:"sessionIds,omitempty"`
	// Refinement is where the model's refinement stands: pending, done,
	// failed or skipped; RefinementNote says why it failed or was skipped.
	Refinement       string  `json:"refinement"`
	RefinementNote   *string `json:"refinementNote,omitempty"`
	SupersededReason *string `json:"supersededReason,omitempty"`
	// Why says why this is a new draft beside an older pending one.
	Why string `json:"why,omitempty"`
}

type applyView struct {
	Summary        string    `json:"summary"`
	AlreadyApplied bool      `json:"alreadyApplied,omitempty"`
	Draft          draftView `json:"draft"`
}

// draftFields are what a trainee's answer may hold: her own week, whole.
var draftFields = []string{"id", "status", "weekStart", "requestedBy", "expiresAt", "existing", "next", "sessionIds",
	"refinement", "refinementNote", "supersededReason", "why",
	"plan.weekStart", "plan.rule", "plan.deload", "plan.hardSets", "plan.lastWeekHardSets", "plan.summary",
	"plan.adjustments.kind", "plan.adjustments.reason", "plan.adjustments.exercises",
	"plan.sessions.plannedId", "plan.sessions.date", "plan.sessions.weekday", "plan.sessions.title", "plan.sessions.durationMin", "plan.sessions.note",
	"plan.sessions.exercises.exerciseId", "plan.sessions.exercises.name", "plan.sessions.exercises.sets", "plan.sessions.exercises.reps",
	"plan.sessions.exercises.repsMax", "plan.sessions.exercises.seconds", "plan.sessions.exercises.minutes", "plan.sessions.exercises.distanceKm", "plan.sessions.exercises.loadKg", "plan.sessions.exercises.percent1RM",
	"plan.sessions.exercises.rpe", "plan.sessions.exercises.rir", "plan.sessions.exercises.restSeconds", "plan.sessions.exercises.basis",
	"plan.sessions.exercises.note",
	"report.valid", "report.problems", "report.repaired", "report.fallback", "report.fallbackReason", "report.model", "report.promptVersion",
	"report.modelCalls", "report.inputTokens", "report.outputTokens", "report.costUsd"}

// Routes adds the weekly plan's routes.
func (a *Area) Routes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/plan-drafts", "Draft a trainee's training week from her profile (days, equipment, sport, goal, health conditions), injuries, planned week, logged sets and readiness: the rules' week at once, refined by a model off the request when one is configured (refinement says where that stands). A draft plans nothing: her coach applies it (POST /plan-drafts/{id}/apply). A pending draft of the week is answered while what it was drafted from is unchanged (else a new draft supersedes it and why says what changed), unless fresh, days or rule ask for another.",
		a.draft, lane.Tool("draft_weekly_plan"), lane.Created(), lane.Limited(DraftsLimit),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("generate_weekly_plan"), lane.Allow(draftFields...))
	lane.Add(rs, "GET", "/plan-drafts/{id}", "One weekly plan draft: its week, how it was made and its status.", func(c *lane.Call, _ *lane.NoInput) (draftView, error) {
		d, err := lane.Lookup(c.Ctx, ids.PlanDraft, c.ID(), c.Studio().GetPlanDraft)
		if err != nil {
			return draftView{}, err
		}
		return a.view(c, d, false, wordsOf(c, c.Studio(), d.TraineeID))
	}, lane.Trainee(auth.ScopeTrainingRead), lane.Allow(draftFields...))
	lane.Add(rs, "POST", "/plan-drafts/{id}/apply", "Apply a weekly plan draft as it stands: a day that adjusts a planned session (plannedId) changes it in place, the others become planned sessions (source coach); days past and sessions already done are left out. Applying twice answers the sessions of the first.",
		a.apply, lane.Tool("apply_weekly_plan"))
}

// weekOf reads the week field (next by default) by the studio's week
// rule, and answers its first day.
func weekOf(c *lane.Call, v *string) (string, error) {
	week := "next"
	if v != nil {
		week = *v
	}
	start, err := training.ParseWeek(week, c.LocalToday(), c.FirstDay())
	if err != nil {
		return "", lane.InvalidField("week", err.Error()+".")
	}
	return start, nil
}

func (a *Area) draft(c *lane.Call, in *draftInput) (draftView, error) {
	ss := c.Studio()
	t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
	if err != nil {
		return draftView{}, err
	}
	week, err := weekOf(c, in.Week)
	if err != nil {
		return draftView{}, err
	}
	studio, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	if err != nil {
		return draftView{}, err
	}
	p := params{StudioID: c.P.StudioID, TraineeID: t.ID, Week: week, Today: c.LocalToday(), FirstDay: c.FirstDay(),
		Days: in.Days, Language: languageOf(c, studio)}
	if in.Rule != nil {
		p.Rule = *in.Rule
	}
	w := wordsFor(p.Language, t)
	pin, fp, err := gather(c.Ctx, ss, studio, t, p)
	if err != nil {
		return draftView{}, err
	}
	// A plain ask answers the pending draft of the week while what the
	// rules read is the same; fresh, days or a rule ask for another.
	var reason, why string
	if lane.IsTrue(in.Fresh) || len(in.Days) > 0 || in.Rule != nil {
		reason = w.askedAnew()
	} else if d, err := ss.PendingPlanDraft(c.Ctx, t.ID, week, c.Now()); err == nil {
		if d.Fingerprint == fp {
			c.SetStatus(http.StatusOK)
			return a.view(c, d, true, w)
		}
		reason = w.reasons(changed(d.Fingerprint, fp))
		why = w.why(reason)
	} else if !errors.Is(err, store.ErrNotFound) {
		return draftView{}, err
	}
	// The rules' week answers at once; the model refines it off the
	// request (refine.go).
	plan, rep, err := weekplan.Generate(c.Ctx, pin, nil, a.o.Prices)
	var ie *weekplan.InputError
	if errors.As(err, &ie) {
		return draftView{}, lane.InvalidField(ie.Field, ie.Message+".")
	}
	if err != nil {
		return draftView{}, err
	}
	pairPlanned(&plan, pin.Planned, p.Today)
	refinement, note := a.refinementOf(c, t.ID, p.Language, len(pin.Planned) > 0)
	if refinement == domain.RefinePending {
		rep.FallbackReason = "the rules' week while the model refines it off the request (refinement pending)"
	}
	pb, _ := json.Marshal(plan)
	rb, _ := json.Marshal(rep)
	now := c.Now().UTC()
	d := domain.PlanDraft{ID: ids.New(ids.PlanDraft), TraineeID: t.ID, WeekStart: week, Status: domain.DraftPending,
		RequestedBy: "coach", Plan: pb, Report: rb, CreatedAt: now, ExpiresAt: expiry(now, week), Fingerprint: fp,
		Refinement: refinement, RefinementNote: note}
	if c.P.IsTrainee() {
		d.RequestedBy = "trainee"
	} else if co := c.Coach(); co != "" {
		d.CoachID = &co
	}
	err = c.DB().InTx(c.Ctx, func(tx store.Store) error {
		ss := tx.Studio(c.P.StudioID)
		if err := ss.CreatePlanDraft(c.Ctx, &d); err != nil {
			return err
		}
		if reason != "" {
			if err := ss.SupersedePlanDrafts(c.Ctx, t.ID, week, d.ID, reason); err != nil {
				return err
			}
		}
		if d.Refinement == domain.RefinePending {
			if err := a.enqueue(c.Ctx, tx, refineArgs{params: p, DraftID: d.ID}); err != nil {
				return err
			}
		}
		if d.RequestedBy != "trainee" {
			return nil
		}
		title, detail := w.task(t, week, d.ID, plan.Summary)
		tasks, err := tellCoaches(c, ss, t, week, title, detail)
		if err != nil {
			return err
		}
		d.TaskIDs = tasks
		return ss.SetPlanDraftTasks(c.Ctx, d.ID, tasks)
	})
	if err != nil {
		return draftView{}, err
	}
	c.SetResource(d.ID)
	v, err := a.view(c, d, false, w)
	v.Why = why
	return v, err
}

// tellCoaches gives her coaches the week's one task: the tasks of an
// earlier draft of the week are updated (open again, this draft's words),
// new ones made only when the week has none.
func tellCoaches(c *lane.Call, ss store.StudioStore, t domain.Trainee, week, title, detail string) ([]string, error) {
	existing, err := ss.WeekTaskIDs(c.Ctx, t.ID, week)
	if err != nil {
		return nil, err
	}
	now := c.Now().UTC()
	var kept []string
	for _, id := range existing {
		task, err := ss.GetTask(c.Ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted since: not repeated for it
		}
		if err != nil {
			return nil, err
		}
		task.Title, task.Detail, task.Status, task.SnoozeUntil, task.UpdatedAt = title, &detail, domain.TaskOpen, nil, now
		if err := ss.UpdateTask(c.Ctx, &task); err != nil {
			return nil, err
		}
		kept = append(kept, id)
	}
	if len(kept) > 0 {
		return kept, nil
	}
	return health.TellCoaches(c, ss, t, title, detail, 2)
}

// expiry is when a draft made at now stops waiting: DraftLife later, and
// never after its week ends.
func expiry(now time.Time, week string) time.Time {
	end, _ := time.Parse(time.DateOnly, lane.AddDays(week, 7))
	if at := now.Add(DraftLife); at.Before(end) {
		return at
	}
	return end
}

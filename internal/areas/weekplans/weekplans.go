// Package weekplans is the weekly plan's routes: a trainee or her coach
// drafts a training week (internal/weekplan makes it), the coach applies
// it, and only then do planned sessions exist.
//
//	POST /trainees/{id}/plan-drafts   draft a week (coach: draft_weekly_plan; trainee: generate_weekly_plan)
//	GET  /plan-drafts/{id}            one draft
//	POST /plan-drafts/{id}/apply      lay a draft out as planned sessions (coach: apply_weekly_plan)
package weekplans

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/agent/llm"
	"github.com/otherwise/perform/internal/areas/health"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
	"github.com/otherwise/perform/internal/weekplan"
)

// Options configure drafting.
type Options struct {
	// Model lays the week out; nil drafts the rules' own week.
	Model  llm.Provider
	Prices llm.Prices
	// Drafts limits drafts per trainee (each may cost a model call),
	// whoever asks; nil: unlimited.
	Drafts ratelimit.Limiter
}

// Area is the weekly plan's routes.
type Area struct{ o Options }

// New builds the area.
func New(o Options) *Area { return &Area{o: o} }

// DraftsPerHour is how many weeks may be drafted for one trainee in an
// hour, by her and her coaches together.
const DraftsPerHour = 10

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
}

type applyView struct {
	Summary        string    `json:"summary"`
	AlreadyApplied bool      `json:"alreadyApplied,omitempty"`
	Draft          draftView `json:"draft"`
}

// draftFields are what a trainee's answer may hold: her own week, whole.
var draftFields = []string{"id", "status", "weekStart", "requestedBy", "expiresAt", "existing", "next", "sessionIds",
	"plan.weekStart", "plan.rule", "plan.deload", "plan.hardSets", "plan.lastWeekHardSets", "plan.summary",
	"plan.adjustments.kind", "plan.adjustments.reason", "plan.adjustments.exercises",
	"plan.sessions.date", "plan.sessions.weekday", "plan.sessions.title", "plan.sessions.durationMin", "plan.sessions.note",
	"plan.sessions.exercises.exerciseId", "plan.sessions.exercises.name", "plan.sessions.exercises.sets", "plan.sessions.exercises.reps",
	"plan.sessions.exercises.repsMax", "plan.sessions.exercises.seconds", "plan.sessions.exercises.loadKg", "plan.sessions.exercises.percent1RM",
	"plan.sessions.exercises.rpe", "plan.sessions.exercises.rir", "plan.sessions.exercises.restSeconds", "plan.sessions.exercises.basis",
	"plan.sessions.exercises.note",
	"report.valid", "report.problems", "report.repaired", "report.fallback", "report.fallbackReason", "report.model", "report.promptVersion",
	"report.modelCalls", "report.inputTokens", "report.outputTokens", "report.costUsd"}

// Routes adds the weekly plan's routes.
func (a *Area) Routes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/trainees/{id}/plan-drafts", "Draft a trainee's training week from her availability, equipment, injuries, program, logged sets and readiness: loads by the progression rules, a model's layout when one is configured (else the rules' own week), checked before it is kept. A draft plans nothing: her coach applies it (POST /plan-drafts/{id}/apply). A pending draft of the week is answered unless fresh, days or rule ask for another.",
		a.draft, lane.Tool("draft_weekly_plan"), lane.Created(),
		lane.Trainee(auth.ScopeTrainingWrite), lane.TraineeTool("generate_weekly_plan"), lane.Allow(draftFields...))
	lane.Add(rs, "GET", "/plan-drafts/{id}", "One weekly plan draft: its week, how it was made and its status.", func(c *lane.Call, _ *lane.NoInput) (draftView, error) {
		d, err := lane.Lookup(c.Ctx, ids.PlanDraft, c.ID(), c.Studio().GetPlanDraft)
		if err != nil {
			return draftView{}, err
		}
		return a.view(c, d, false)
	}, lane.Trainee(auth.ScopeTrainingRead), lane.Allow(draftFields...))
	lane.Add(rs, "POST", "/plan-drafts/{id}/apply", "Apply a weekly plan draft: its sessions become the trainee's planned sessions (source coach), the days already past left out. Applying twice answers the sessions of the first.",
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
	// A plain ask answers the pending draft of the week; fresh, days or a
	// rule ask for another.
	if !lane.IsTrue(in.Fresh) && len(in.Days) == 0 && in.Rule == nil {
		if d, err := ss.PendingPlanDraft(c.Ctx, t.ID, week, c.Now()); err == nil {
			c.SetStatus(http.StatusOK)
			return a.view(c, d, true)
		} else if !errors.Is(err, store.ErrNotFound) {
			return draftView{}, err
		}
	}
	pin, err := a.input(c, ss, t, week, in)
	if err != nil {
		return draftView{}, err
	}
	// A dry run drafts by the rules alone: it neither pays for a model call
	// nor counts against the limit.
	model := a.o.Model
	if c.DryRun() {
		model = nil
	} else if e := a.admit(c, t.ID); e != nil {
		return draftView{}, e
	}
	plan, rep, err := weekplan.Generate(c.Ctx, pin, model, a.o.Prices)
	var ie *weekplan.InputError
	if errors.As(err, &ie) {
		if !c.DryRun() {
			a.refund(c, t.ID) // a refusal drafted nothing
		}
		return draftView{}, lane.InvalidField(ie.Field, ie.Message+".")
	}
	if err != nil {
		return draftView{}, err
	}
	pb, _ := json.Marshal(plan)
	rb, _ := json.Marshal(rep)
	now := c.Now().UTC()
	d := domain.PlanDraft{ID: ids.New(ids.PlanDraft), TraineeID: t.ID, WeekStart: week, Status: domain.DraftPending,
		RequestedBy: "coach", Plan: pb, Report: rb, CreatedAt: now, ExpiresAt: expiry(now, week)}
	if c.P.IsTrainee() {
		d.RequestedBy = "trainee"
	} else if co := c.Coach(); co != "" {
		d.CoachID = &co
	}
	err = c.InTx(func(ss store.StudioStore) error {
		if err := ss.CreatePlanDraft(c.Ctx, &d); err != nil {
			return err
		}
		if d.RequestedBy != "trainee" {
			return nil
		}
		title := fmt.Sprintf("%s drafted a training week from %s: review and apply it", t.FirstName, week)
		detail := fmt.Sprintf("Draft %s: %s Apply it with apply_weekly_plan, or draft another with draft_weekly_plan.", d.ID, plan.Summary)
		return health.TellCoaches(c, ss, t, title, detail, 2)
	})
	if err != nil {
		return draftView{}, err
	}
	c.SetResource(d.ID)
	return a.view(c, d, false)
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

// admit counts a draft against the trainee's drafts; over the limit it
// says when she may draft again.
func (a *Area) admit(c *lane.Call, traineeID string) error {
	if a.o.Drafts == nil {
		return nil
	}
	d, err := a.o.Drafts.Allow(c.Ctx, draftsKey(c, traineeID))
	if err != nil {
		c.Logger().Warn("weekplans: the draft limit could not be read; drafting all the same", "error", err)
		return nil
	}
	if d.Allowed {
		return nil
	}
	wait := ratelimit.RetryAfterSeconds(d.RetryAfter)
	return &lane.Error{Status: http.StatusTooManyRequests, Code: lane.CodeRateLimited, RetryAfterSeconds: wait,
		Message: fmt.Sprintf("This trainee's weeks were drafted %d times within the hour, the most there may be. Apply or read the latest draft (draft_weekly_plan without fresh answers it), or draft again in %d minutes.", d.Limit, (wait+59)/60)}
}

// draftsKey names one trainee's drafts for the limit.
func draftsKey(c *lane.Call, traineeID string) string {
	return "weekplan:" + c.P.StudioID + ":" + traineeID
}

// refund gives back a draft the limit counted that drafted nothing.
func (a *Area) refund(c *lane.Call, traineeID string) {
	if a.o.Drafts == nil {
		return
	}
	if err := ratelimit.Refund(c.Ctx, a.o.Drafts, draftsKey(c, traineeID)); err != nil {
		c.Logger().Warn("weekplans: a refused draft stays counted", "error", err)
	}
}

// input gathers what the core plans from.
func (a *Area) input(c *lane.Call, ss store.StudioStore, t domain.Trainee, week string, in *draftInput) (weekplan.Input, error) {
	today := c.LocalToday()
	pin := weekplan.Input{Today: today, WeekStart: week, FirstDay: c.FirstDay(), Minutes: 60, Language: "he"}
	prof, err := ss.GetTrainingProfile(c.Ctx, t.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return pin, err
	default:
		pin.Days, pin.Equipment = prof.Availability, prof.Equipment
		if prof.SessionMinutes != nil {
			pin.Minutes = *prof.SessionMinutes
		}
		if prof.Experience != nil {
			pin.Experience = *prof.Experience
		}
	}
	if len(in.Days) > 0 {
		pin.Days = in.Days
	}
	if in.Rule != nil {
		pin.Rule = *in.Rule
	}
	if t.BirthDate != nil {
		if b, err := time.Parse(time.DateOnly, *t.BirthDate); err == nil {
			now, _ := time.Parse(time.DateOnly, today)
			age := now.Year() - b.Year()
			if now.Month() < b.Month() || now.Month() == b.Month() && now.Day() < b.Day() {
				age-- // the birthday is still ahead this year
			}
			pin.Age = &age
		}
	}
	injuries, err := ss.ListInjuries(c.Ctx, t.ID, "")
	if err != nil {
		return pin, err
	}
	for _, inj := range injuries {
		if inj.Status == domain.InjuryActive || inj.Status == domain.InjuryRecovering {
			pin.Injuries = append(pin.Injuries, inj)
		}
	}
	if pin.History, err = ss.SessionsBetween(c.Ctx, t.ID, lane.AddDays(week, -28), today); err != nil {
		return pin, err
	}
	checks, err := ss.ListCheckIns(c.Ctx, t.ID, lane.AddDays(today, -14), today, store.Page{Limit: 15})
	if err != nil {
		return pin, err
	}
	pin.CheckIns = checks.Items
	own, err := ss.ListExercises(c.Ctx)
	if err != nil {
		return pin, err
	}
	pin.Exercises = append(append([]domain.Exercise(nil), exercises.All()...), own...)
	pin.Program, err = programIn(c, ss, t.ID, week)
	return pin, err
}

// programIn is where the trainee's active program stands in the week.
func programIn(c *lane.Call, ss store.StudioStore, traineeID, week string) (*weekplan.Program, error) {
	progs, err := ss.ListPrograms(c.Ctx, traineeID)
	if err != nil {
		return nil, err
	}
	for _, p := range progs {
		if p.Status != domain.ProgramActive {
			continue
		}
		var structure *domain.ProgramStructure
		if tpl, err := ss.GetProgramTemplate(c.Ctx, p.TemplateID); err == nil {
			structure = tpl.Structure
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		pos := training.ProgramAt(p, structure, week, c.FirstDay())
		out := &weekplan.Program{Name: p.Name, Week: pos.Week}
		if pos.Phase != nil {
			out.Phase = *pos.Phase
		}
		return out, nil
	}
	return nil, nil
}

// view is a stored draft as the tools answer it.
func (a *Area) view(c *lane.Call, d domain.PlanDraft, existing bool) (draftView, error) {
	v := draftView{ID: d.ID, Status: d.Status, WeekStart: d.WeekStart, RequestedBy: d.RequestedBy, ExpiresAt: d.ExpiresAt,
		Existing: existing, SessionIDs: d.SessionIDs}
	if err := json.Unmarshal(d.Plan, &v.Plan); err != nil {
		return v, err
	}
	if err := json.Unmarshal(d.Report, &v.Report); err != nil {
		return v, err
	}
	switch {
	case d.Status == domain.DraftApplied:
		v.Next = fmt.Sprintf("Applied: %d planned sessions (list_sessions shows them).", len(d.SessionIDs))
	case !c.Now().Before(d.ExpiresAt):
		v.Status = "expired"
		v.Next = "This draft expired unapplied; draft the week again."
	case c.P.IsTrainee():
		v.Next = "A draft for your coach: nothing is planned until your coach applies it."
	default:
		v.Next = fmt.Sprintf("Nothing is planned yet: apply_weekly_plan with draftId %s lays these sessions out.", d.ID)
	}
	return v, nil
}

func (a *Area) apply(c *lane.Call, _ *lane.NoInput) (applyView, error) {
	var out applyView
	err := c.InTx(func(ss store.StudioStore) error {
		d, err := lane.Lookup(c.Ctx, ids.PlanDraft, c.ID(), ss.GetPlanDraft)
		if err != nil {
			return err
		}
		if d.Status == domain.DraftApplied {
			out.AlreadyApplied = true
			out.Draft, err = a.view(c, d, false)
			out.Summary = fmt.Sprintf("Draft %s was applied already: its %d planned sessions stand.", d.ID, len(d.SessionIDs))
			c.SetStatus(http.StatusOK)
			return err
		}
		if !c.Now().Before(d.ExpiresAt) {
			return lane.Conflict(fmt.Sprintf("Draft %s expired on %s unapplied; draft the week again (draft_weekly_plan with fresh true).", d.ID, d.ExpiresAt.In(c.Zone()).Format("2006-01-02 15:04")))
		}
		var plan weekplan.Plan
		if err := json.Unmarshal(d.Plan, &plan); err != nil {
			return err
		}
		today, now := c.LocalToday(), c.Now().UTC()
		var sessions []*domain.Session
		for _, s := range plan.Sessions {
			if s.Date < today {
				continue
			}
			sessions = append(sessions, sessionOf(d, s, now))
		}
		if len(sessions) == 0 {
			return lane.Conflict(fmt.Sprintf("Every day of draft %s has passed (the week of %s); draft a coming week.", d.ID, d.WeekStart))
		}
		if err := ss.CreateSessions(c.Ctx, sessions); err != nil {
			return err
		}
		sids := make([]string, len(sessions))
		for i, s := range sessions {
			sids[i] = s.ID
		}
		var coach *string
		if co := c.Coach(); co != "" {
			coach = &co
		}
		if err := ss.ApplyPlanDraft(c.Ctx, d.ID, coach, sids, now); err != nil {
			var ce *store.ConflictError
			if errors.As(err, &ce) {
				return lane.Conflict(ce.Message + "; read it again for its sessions.")
			}
			return err
		}
		d.Status, d.SessionIDs, d.AppliedAt = domain.DraftApplied, sids, &now
		out.Draft, err = a.view(c, d, false)
		out.Summary = fmt.Sprintf("Planned %d sessions for the week of %s (%d hard sets).", len(sids), d.WeekStart, plan.HardSets)
		return err
	})
	if err == nil {
		c.SetResource(c.ID())
	}
	return out, err
}

// sessionOf is a planned session of a draft's day.
func sessionOf(d domain.PlanDraft, s weekplan.Session, now time.Time) *domain.Session {
	dur := s.DurationMin
	out := &domain.Session{ID: ids.New(ids.Session), TraineeID: d.TraineeID, Date: s.Date, Sport: "strength", Title: s.Title,
		Status: domain.SessionPlanned, Source: domain.SessionFromCoach, DurationMin: &dur, CreatedAt: now, UpdatedAt: now}
	if out.Title == "" {
		out.Title = "strength"
	}
	if s.Note != "" {
		note := s.Note
		out.Notes = &note
	}
	for _, it := range s.Items {
		tg := domain.ExerciseTarget{Sets: new(it.Sets), LoadKg: it.LoadKg, PercentRM: it.Percent1RM, RPE: it.RPE, RIR: it.RIR, RestSeconds: new(it.RestSeconds)}
		if it.Reps > 0 {
			tg.Reps = new(it.Reps)
		}
		if it.Seconds > 0 {
			tg.Seconds = new(it.Seconds)
		}
		basis := it.Basis
		out.Exercises = append(out.Exercises, domain.SessionExercise{ExerciseID: it.ExerciseID, Name: it.Name, Target: &tg, Sets: []domain.SetEntry{}, Notes: &basis})
	}
	return out
}

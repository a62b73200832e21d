package weekplans

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/weekplan"
)

// view is a stored draft as the tools answer it, its next step in w's
// language.
func (a *Area) view(c *lane.Call, d domain.PlanDraft, existing bool, w words) (draftView, error) {
	v := draftView{ID: d.ID, Status: d.Status, WeekStart: d.WeekStart, RequestedBy: d.RequestedBy, ExpiresAt: d.ExpiresAt,
		Existing: existing, SessionIDs: d.SessionIDs, Refinement: d.Refinement, RefinementNote: d.RefinementNote, SupersededReason: d.SupersededReason}
	if err := json.Unmarshal(d.Plan, &v.Plan); err != nil {
		return v, err
	}
	if err := json.Unmarshal(d.Report, &v.Report); err != nil {
		return v, err
	}
	switch {
	case d.Status == domain.DraftApplied:
		v.Next = w.applied(len(d.SessionIDs))
	case d.Status == domain.DraftSuperseded:
		reason := ""
		if d.SupersededReason != nil {
			reason = *d.SupersededReason
		}
		v.Next = w.superseded(reason)
	case !c.Now().Before(d.ExpiresAt):
		v.Status = "expired"
		v.Next = w.expired()
	case c.P.IsTrainee():
		v.Next = w.forCoach()
	default:
		v.Next = w.toApply(d.ID)
	}
	if d.Status == domain.DraftPending && d.Refinement == domain.RefinePending {
		v.Next += w.refining()
	}
	return v, nil
}

// wordsOf are the words of the draft's trainee in the request's or the
// studio's language.
func wordsOf(c *lane.Call, ss store.StudioStore, traineeID string) words {
	studio, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	lang := "he"
	if err == nil {
		lang = languageOf(c, studio)
	}
	t, _ := ss.GetTrainee(c.Ctx, traineeID)
	return wordsFor(lang, t)
}

// apply lays a draft out as it stands: a session that adjusts a planned
// one (PlannedID) changes that session in place, one without is added; a
// planned session already logged, skipped or missed is never touched, nor
// any day already past.
func (a *Area) apply(c *lane.Call, _ *lane.NoInput) (applyView, error) {
	var out applyView
	err := c.InTx(func(ss store.StudioStore) error {
		d, err := lane.Lookup(c.Ctx, ids.PlanDraft, c.ID(), ss.GetPlanDraft)
		if err != nil {
			return err
		}
		w := wordsOf(c, ss, d.TraineeID)
		switch {
		case d.Status == domain.DraftApplied:
			out.AlreadyApplied = true
			out.Draft, err = a.view(c, d, false, w)
			out.Summary = w.alreadyApplied(d.ID, len(d.SessionIDs))
			c.SetStatus(http.StatusOK)
			return err
		case d.Status == domain.DraftSuperseded:
			return lane.Conflict(fmt.Sprintf("Draft %s was superseded by a newer draft of the week (%s); draft_weekly_plan answers the newer one, apply that.", d.ID, deref(d.SupersededReason)))
		case !c.Now().Before(d.ExpiresAt):
			return lane.Conflict(fmt.Sprintf("Draft %s expired on %s unapplied; draft the week again (draft_weekly_plan with fresh true).", d.ID, d.ExpiresAt.In(c.Zone()).Format("2006-01-02 15:04")))
		}
		var plan weekplan.Plan
		if err := json.Unmarshal(d.Plan, &plan); err != nil {
			return err
		}
		today, now := c.LocalToday(), c.Now().UTC()
		var added []*domain.Session
		var sids []string
		adjusted := 0
		for _, s := range plan.Sessions {
			if s.Date < today {
				continue
			}
			if s.PlannedID != "" {
				done, err := adjust(c, ss, d, s, now)
				if err != nil {
					return err
				}
				if done {
					adjusted++
					sids = append(sids, s.PlannedID)
					continue
				}
				if still, err := stands(c, ss, d.TraineeID, s.PlannedID); err != nil || still {
					continue // logged, skipped or missed: never touched
				}
			}
			x := sessionOf(d, s, now)
			added = append(added, x)
			sids = append(sids, x.ID)
		}
		if len(sids) == 0 {
			return lane.Conflict(fmt.Sprintf("Every day of draft %s has passed or was done already (the week of %s); draft a coming week.", d.ID, d.WeekStart))
		}
		if len(added) > 0 {
			if err := ss.CreateSessions(c.Ctx, added); err != nil {
				return err
			}
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
		out.Draft, err = a.view(c, d, false, w)
		out.Summary = w.appliedSummary(adjusted, len(added), d.WeekStart, plan.HardSets)
		return err
	})
	if err == nil {
		c.SetResource(c.ID())
	}
	return out, err
}

// adjust changes the planned session s adjusts to the draft's day: its
// date, title, length, note and exercises. done is false when that session
// is not hers or no longer planned (then it is left as it is).
func adjust(c *lane.Call, ss store.StudioStore, d domain.PlanDraft, s weekplan.Session, now time.Time) (bool, error) {
	x, err := ss.GetSession(c.Ctx, s.PlannedID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil || x.TraineeID != d.TraineeID || x.Status != domain.SessionPlanned {
		return false, err
	}
	fresh := sessionOf(d, s, now)
	x.Date, x.Title, x.DurationMin, x.Exercises, x.UpdatedAt = fresh.Date, fresh.Title, fresh.DurationMin, fresh.Exercises, now
	if fresh.Notes != nil {
		x.Notes = fresh.Notes
	}
	return true, ss.UpdateSession(c.Ctx, &x)
}

// stands reports a session of hers that exists and is not planned: one the
// draft's day must not replace.
func stands(c *lane.Call, ss store.StudioStore, traineeID, id string) (bool, error) {
	x, err := ss.GetSession(c.Ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil && x.TraineeID == traineeID && x.Status != domain.SessionPlanned, err
}

// sessionOf is a planned session of a draft's day.
func sessionOf(d domain.PlanDraft, s weekplan.Session, now time.Time) *domain.Session {
	dur := s.DurationMin
	out := &domain.Session{ID: ids.New(ids.Session), TraineeID: d.TraineeID, Date: s.Date, Sport: sportOf(s), Title: s.Title,
		Status: domain.SessionPlanned, Source: domain.SessionFromCoach, DurationMin: &dur, CreatedAt: now, UpdatedAt: now}
	if out.Title == "" {
		out.Title = out.Sport
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
		if it.Minutes > 0 {
			tg.Seconds = new(it.Minutes * 60)
		}
		if it.DistanceKm != nil {
			tg.Metres = new(*it.DistanceKm * 1000)
		}
		basis := it.Basis
		out.Exercises = append(out.Exercises, domain.SessionExercise{ExerciseID: it.ExerciseID, Name: it.Name, Target: &tg, Sets: []domain.SetEntry{}, Notes: &basis})
	}
	return out
}

// sportOf is a drafted day's sport: strength, unless every item is an
// endurance one (minutes or distance), then the sport its exercise names.
func sportOf(s weekplan.Session) string {
	sport := ""
	for _, it := range s.Items {
		if it.Minutes == 0 && it.DistanceKm == nil {
			return "strength"
		}
		if sport == "" {
			sport = enduranceSport(it.ExerciseID)
		}
	}
	if sport == "" {
		return "strength"
	}
	return sport
}

func enduranceSport(id string) string {
	for _, k := range []struct{ in, sport string }{{"run", "running"}, {"jog", "running"}, {"walk", "walking"}, {"cycl", "cycling"},
		{"bike", "cycling"}, {"spin", "cycling"}, {"swim", "swimming"}, {"row", "rowing"}} {
		if strings.Contains(id, k.in) {
			return k.sport
		}
	}
	return "conditioning"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// pairPlanned keeps the week one week. When the planner paired none of
// the drafted days with the sessions already planned in the week (from
// today on), each drafted day adjusts one of them, the same day's first,
// then the nearest: applying then changes the planned week in place and
// adds a day only past the planned ones. A plan that pairs any day is the
// planner's own pairing, and is kept as it is.
func pairPlanned(plan *weekplan.Plan, planned []domain.Session, today string) {
	var open []domain.Session
	for _, p := range planned {
		if p.Date >= today {
			open = append(open, p)
		}
	}
	for _, s := range plan.Sessions {
		if s.PlannedID != "" {
			return
		}
	}
	used := map[string]bool{}
	pair := func(i int, match func(p domain.Session) int) {
		best, gap := -1, 1<<30
		for j, p := range open {
			if g := match(p); !used[p.ID] && g >= 0 && g < gap {
				best, gap = j, g
			}
		}
		if best >= 0 {
			plan.Sessions[i].PlannedID = open[best].ID
			used[open[best].ID] = true
		}
	}
	for i, s := range plan.Sessions {
		pair(i, func(p domain.Session) int {
			if p.Date == s.Date {
				return 0
			}
			return -1
		})
	}
	for i, s := range plan.Sessions {
		if plan.Sessions[i].PlannedID == "" {
			pair(i, func(p domain.Session) int { return dayGap(p.Date, s.Date) })
		}
	}
}

// dayGap is how many days apart two dates are.
func dayGap(a, b string) int {
	x, err1 := time.Parse(time.DateOnly, a)
	y, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return 1 << 20
	}
	d := int(x.Sub(y).Hours() / 24)
	if d < 0 {
		return -d
	}
	return d
}

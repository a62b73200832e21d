package requests_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/store"
)

// traineeRequests are what a trainee asks an AI about their own training,
// signed in as themselves.
func traineeRequests(w *world) []request {
	me, mon, today := w.trainee, w.weekStart, w.today
	total := func(n int) string { return fmt.Sprintf(`"total":%d`, n) }
	// The first planned session from today on, and its first exercise.
	nextPlanned := func(w *world) (domain.Session, string) {
		l, _ := w.ss.ListSessions(w.ctx, store.SessionFilter{TraineeID: me.ID, From: today, Status: domain.SessionPlanned, Ascending: true, Page: store.Page{Limit: 1}})
		if len(l.Items) == 0 {
			return domain.Session{}, ""
		}
		s, _ := w.ss.GetSession(w.ctx, l.Items[0].ID)
		if len(s.Exercises) == 0 {
			return s, ""
		}
		return s, s.Exercises[0].ExerciseID
	}
	return []request{
		{trainee: true, ask: "Plan my next week", steps: []step{call("generate_weekly_plan", nil)},
			check: func(w *world, a []string) error { return weekDrafted(w, me.ID, a[0]) }},
		{trainee: true, ask: "What did I do this week?", steps: []step{call("list_sessions", map[string]any{"from": mon})},
			check: func(w *world, a []string) error { return contains(a[0], total(len(w.sessions(me.ID, mon, today, "")))) }},
		{trainee: true, ask: "What did I do last month?", steps: []step{call("list_sessions", map[string]any{"from": "2026-11-01", "to": "2026-11-30", "status": "completed"})},
			check: func(w *world, a []string) error {
				return contains(a[0], total(len(w.sessions(me.ID, "2026-11-01", "2026-11-30", domain.SessionCompleted))))
			}},
		{trainee: true, ask: "What's my next workout?", steps: []step{call("list_sessions", map[string]any{"status": "planned", "from": today, "limit": 3})},
			check: func(w *world, a []string) error {
				s, _ := nextPlanned(w)
				if s.ID == "" {
					return contains(a[0], total(0))
				}
				return contains(a[0], s.ID)
			}},
		{trainee: true, ask: "How am I doing?", steps: []step{call("get_training_overview", nil)},
			check: func(w *world, a []string) error { return contains(a[0], `"summary"`) }},
		{trainee: true, ask: "How was my week?", steps: []step{call("get_weekly_debrief", nil)},
			check: func(w *world, a []string) error {
				return contains(a[0], `"week":"2026-11-29"`, fmt.Sprintf(`"completed":%d`, len(w.sessions(me.ID, mon, today, domain.SessionCompleted))))
			}},
		{trainee: true, ask: "How was last week?", steps: []step{call("get_weekly_debrief", map[string]any{"week": "last"})},
			check: func(w *world, a []string) error { return contains(a[0], `"week":"2026-11-22"`, `"to":"2026-11-28"`) }},
		{trainee: true, ask: "What are my best lifts?", steps: []step{call("get_benchmarks", nil)},
			check: func(w *world, a []string) error {
				bs, _ := w.ss.ListBenchmarks(w.ctx, me.ID)
				return contains(a[0], total(len(bs)))
			}},
		{trainee: true, ask: "Is my weight going down?", steps: []step{call("get_body_analysis", map[string]any{"from": "2026-09-01"})},
			check: func(w *world, a []string) error { return contains(a[0], `"metrics"`) }},
		{trainee: true, ask: "What are my goals?", steps: []step{call("manage_goals", map[string]any{"action": "list"})},
			check: func(w *world, a []string) error {
				gs, _ := w.ss.ListGoals(w.ctx, me.ID, "")
				return contains(a[0], total(len(gs)))
			}},
		{trainee: true, ask: "Which program am I on?", steps: []step{call("get_active_program", nil)},
			check: func(w *world, a []string) error {
				ps, _ := w.ss.ListPrograms(w.ctx, me.ID)
				for _, p := range ps {
					if p.Status == domain.ProgramActive {
						return contains(a[0], p.ID)
					}
				}
				return nil
			}},
		{trainee: true, ask: "My programs", steps: []step{call("list_programs", nil)},
			check: func(w *world, a []string) error {
				ps, _ := w.ss.ListPrograms(w.ctx, me.ID)
				return contains(a[0], total(len(ps)))
			}},
		{trainee: true, ask: "When does my membership end?", steps: []step{call("get_my_plan", nil)},
			check: func(w *world, a []string) error {
				subs, _ := w.ss.ListSubscriptions(w.ctx, me.ID)
				for _, s := range subs {
					if s.Status == domain.SubLive {
						return contains(a[0], s.StartedOn)
					}
				}
				return nil
			}},
		{trainee: true, ask: "Do I have forms to fill in?", steps: []step{call("list_my_forms", nil)},
			check: func(w *world, a []string) error { return contains(a[0], `"items"`) }},
		{trainee: true, ask: "What does my coach think?", steps: []step{call("get_coach_insight", nil)},
			check: func(w *world, a []string) error { return contains(a[0], `"consistency"`) }},
		{trainee: true, ask: "Am I set up?", steps: []step{call("get_onboarding_status", nil)},
			check: func(w *world, a []string) error { return contains(a[0], `"onboardingStatus"`) }},
		{trainee: true, ask: "Show me my last session in detail", steps: []step{call("list_sessions", map[string]any{"status": "completed", "limit": 1}),
			{tool: "get_session_details", args: func(_ *world, prev []string) map[string]any { return map[string]any{"sessionId": firstID(prev[0])} }}},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListSessions(w.ctx, store.SessionFilter{TraineeID: me.ID, To: today, Status: domain.SessionCompleted, Page: store.Page{Limit: 1}})
				return contains(a[1], l.Items[0].ID)
			}},
		{trainee: true, ask: "Exercises for my hamstrings", steps: []step{call("search_training_resources", map[string]any{"q": "hamstring", "limit": 5})},
			check: func(w *world, a []string) error { return contains(a[0], `"items"`) }},
		// Writes come last.
		{trainee: true, ask: "I weighed 69.8 this morning", steps: []step{call("log_weight", map[string]any{"weightKg": 69.8, "recordedAt": "2026-12-03T05:30:00Z"})},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListWeights(w.ctx, me.ID, store.Page{Limit: 1})
				return contains(a[0], "69.8", l.Items[0].ID)
			}},
		{trainee: true, ask: "Check in: readiness 7, a bit sore in the calves", steps: []step{call("daily_check_in", map[string]any{"readiness": 7, "soreness": 4, "soreAreas": []string{"calf"}})},
			check: func(w *world, a []string) error {
				l, _ := w.ss.ListCheckIns(w.ctx, me.ID, today, today, store.Page{Limit: 1})
				return contains(a[0], l.Items[0].ID, `"calf"`)
			}},
		{trainee: true, ask: "I ran 5 km in 27 minutes today", steps: []step{call("log_workout", map[string]any{"sport": "running", "durationMin": 27, "title": "5 km run"})},
			check: func(w *world, a []string) error { return contains(a[0], `"5 km run"`, `"completed"`) }},
		{trainee: true, ask: "My 5 km time is now 26:40", steps: []step{call("record_benchmark", map[string]any{"name": "5 km run", "value": 1600, "unit": "s", "direction": "lower"})},
			check: func(w *world, a []string) error { return contains(a[0], "1600") }},
		{trainee: true, ask: "I twisted my left ankle", steps: []step{call("record_injury", map[string]any{"area": "ankle", "side": "left", "severity": 2})},
			check: func(w *world, a []string) error {
				is, _ := w.ss.ListInjuries(w.ctx, me.ID, domain.InjuryActive)
				for _, i := range is {
					if i.Area == "ankle" {
						return contains(a[0], i.ID, `"guidance"`)
					}
				}
				return fmt.Errorf("no ankle injury stored")
			}},
		{trainee: true, ask: "Move my Tuesday session to Thursday 18:00", steps: []step{call("list_my_appointments", nil),
			{tool: "move_appointment", args: func(_ *world, prev []string) map[string]any {
				return map[string]any{"appointmentId": firstOn(prev[0], "Tue "), "day": "next thursday", "time": "18:00"}
			}}},
			check: func(w *world, a []string) error { return movedToThursday(w, me.ID, a) }},
		{trainee: true, ask: "Tell the studio the Wednesday class is too crowded", steps: []step{call("log_feedback", map[string]any{"text": "The Wednesday class is too crowded", "rating": 3})},
			check: func(w *world, a []string) error {
				fb, _ := w.ss.ListFeedback(w.ctx, me.ID, store.Page{Limit: 1})
				return contains(a[0], fb.Items[0].ID)
			}},
		{trainee: true, ask: "Set me a goal: 12 push-ups in a row", steps: []step{call("manage_goals", map[string]any{"action": "create", "title": "12 push-ups in a row", "kind": "text"})},
			check: func(w *world, a []string) error { return contains(a[0], "12 push-ups in a row") }},
		{trainee: true, ask: "I train with dumbbells at home, 45 minutes", steps: []step{call("update_training_profile", map[string]any{"equipment": []string{"dumbbells"}, "sessionMinutes": 45})},
			check: func(w *world, a []string) error {
				p, err := w.ss.GetTrainingProfile(w.ctx, me.ID)
				if err != nil || p.SessionMinutes == nil || *p.SessionMinutes != 45 {
					return fmt.Errorf("the profile was not stored: %+v, %v", p, err)
				}
				return nil
			}},
		{trainee: true, ask: "Plan me a mobility session on Saturday", steps: []step{call("create_planned_session", map[string]any{"date": "2026-12-05", "sport": "mobility", "title": "Saturday mobility"})},
			check: func(w *world, a []string) error { return contains(a[0], `"Saturday mobility"`, `"planned"`) }},
		{trainee: true, ask: "What's in my next session?", steps: []step{call("list_sessions", map[string]any{"status": "planned", "from": today, "limit": 1}),
			{tool: "get_session_details", args: func(_ *world, prev []string) map[string]any { return map[string]any{"sessionId": firstID(prev[0])} }}},
			check: func(w *world, a []string) error {
				s, exercise := nextPlanned(w)
				return contains(a[1], s.ID, exercise)
			}},
	}
}

// firstOn is the id of the first appointment of a list answer whose local
// start begins with day ("Tue ").
func firstOn(answer, day string) string {
	var a struct {
		Items []struct {
			ID    string `json:"id"`
			Local string `json:"local"`
		} `json:"items"`
	}
	_ = json.Unmarshal([]byte(answer), &a)
	for _, it := range a.Items {
		if strings.HasPrefix(it.Local, day) {
			return it.ID
		}
	}
	return ""
}

// movedToThursday checks a move of her coming Tuesday's appointment
// against the store: the Tuesday one cancelled with its credit given
// back, hers booked on Thursday 10 December at 18:00 in its place.
func movedToThursday(w *world, traineeID string, a []string) error {
	from := firstOn(a[0], "Tue ")
	if from == "" {
		return fmt.Errorf("the demo gives her no appointment on Tuesday: the request tests nothing")
	}
	var got struct {
		ID string `json:"id"`
	}
	if err := decode(a[1], &got); err != nil {
		return err
	}
	old, err := w.ss.GetAppointment(w.ctx, from)
	if err != nil || old.TraineeID != traineeID || old.Status != domain.AppointmentCancelled || old.StartsAt.In(w.zone).Weekday() != time.Tuesday {
		return fmt.Errorf("her Tuesday appointment %s is not cancelled: %+v (%v)", from, old, err)
	}
	moved, err := w.ss.GetAppointment(w.ctx, got.ID)
	if err != nil || moved.TraineeID != traineeID || moved.Status != domain.AppointmentBooked || moved.CoachID != old.CoachID ||
		moved.StartsAt.In(w.zone).Format("Mon 2006-01-02 15:04") != "Thu 2026-12-10 18:00" {
		return fmt.Errorf("the stored appointment %s is not hers on Thursday 10 December at 18:00: %+v (%v)", got.ID, moved, err)
	}
	return nil
}

// weekDrafted checks a drafted week against the trainee's records: on her
// training days or the days her appointments of the week fix (each such
// session's note giving the booking's time), and nothing that loads an
// area she has injured.
func weekDrafted(w *world, traineeID, answer string) error {
	var d struct {
		Status string `json:"status"`
		Plan   struct {
			WeekStart string `json:"weekStart"`
			Sessions  []struct {
				Date      string `json:"date"`
				Weekday   int    `json:"weekday"`
				Note      string `json:"note"`
				Exercises []struct {
					ExerciseID string `json:"exerciseId"`
				} `json:"exercises"`
			} `json:"sessions"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(answer), &d); err != nil || d.Status != domain.DraftPending || len(d.Plan.Sessions) == 0 {
		return fmt.Errorf("not a pending draft with sessions: %.200s", answer)
	}
	prof, err := w.ss.GetTrainingProfile(w.ctx, traineeID)
	if err != nil {
		return err
	}
	injuries, _ := w.ss.ListInjuries(w.ctx, traineeID, "")
	start, err := time.ParseInLocation(time.DateOnly, d.Plan.WeekStart, w.zone)
	if err != nil {
		return fmt.Errorf("the draft's week %q: %w", d.Plan.WeekStart, err)
	}
	appts, err := w.ss.ListAppointments(w.ctx, store.AppointmentFilter{TraineeID: traineeID, From: start, To: start.AddDate(0, 0, 7),
		Statuses: []string{domain.AppointmentBooked, domain.AppointmentAttended}, Page: store.Page{Limit: 50}})
	if err != nil {
		return err
	}
	booked := map[string][]string{} // local day → starts
	for _, a := range appts.Items {
		local := a.StartsAt.In(w.zone)
		booked[local.Format(time.DateOnly)] = append(booked[local.Format(time.DateOnly)], local.Format("15:04"))
	}
	for _, s := range d.Plan.Sessions {
		if starts := booked[s.Date]; len(starts) > 0 {
			for _, at := range starts {
				if !strings.Contains(s.Note, at) {
					return fmt.Errorf("the booked %s's session does not say it is booked at %s: %q", s.Date, at, s.Note)
				}
			}
		} else if !slices.Contains(prof.Availability, s.Weekday) {
			return fmt.Errorf("a session on weekday %d, not one of %v nor booked", s.Weekday, prof.Availability)
		}
		for _, e := range s.Exercises {
			ex, ok := exercises.Get(e.ExerciseID)
			for _, inj := range injuries {
				if ok && inj.Status != domain.InjuryResolved && slices.Contains(ex.Loads, inj.Area) {
					return fmt.Errorf("%s loads the injured %s", e.ExerciseID, inj.Area)
				}
			}
		}
	}
	return nil
}

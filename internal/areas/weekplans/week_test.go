package weekplans_test

import (
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// TestTheStudiosWeek asks every weekly route on a Sunday, of a studio whose
// weeks start on Sunday (Jerusalem's custom, the default) and of one set to
// Monday. The clock is 00:30 on Sunday 25 October 2026 in Jerusalem, the
// night its summer time ends, and still Saturday in UTC: a week computed
// in UTC, or by ISO weeks, answers the wrong one.
func TestTheStudiosWeek(t *testing.T) {
	now := time.Date(2026, 10, 24, 21, 30, 0, 0, time.UTC) // Sunday 00:30 IDT (UTC+3)
	const today = "2026-10-25"
	for _, tc := range []struct {
		name, set  string // set: the weekStartsOn sent ("" the default)
		week, next string
		iso43      string // the studio's week holding ISO week 43's Monday, 19 October
		missed     bool   // the week so far has two missed sessions
	}{
		{name: "sunday by default", week: "2026-10-25", next: "2026-11-01", iso43: "2026-10-18"},
		{name: "monday", set: "monday", week: "2026-10-19", next: "2026-10-26", iso43: "2026-10-19", missed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kit.OnSQLite(t, func(t *testing.T, st store.Store) {
				e := lanetest.New(t, st, kit.Options{Now: func() time.Time { return now }})
				_, k, _ := e.Studio("week-"+tc.set, "pro")
				var set struct {
					WeekStartsOn string `json:"weekStartsOn"`
				}
				if tc.set != "" {
					e.OK(200, e.Call(k, "PATCH", "/studio/settings", map[string]any{"weekStartsOn": tc.set})).Into(t, &set)
				} else {
					e.OK(200, e.Call(k, "GET", "/studio/settings", nil)).Into(t, &set)
				}
				if want := domain.WeekdayName(mustDay(t, tc.week).Weekday()); set.WeekStartsOn != want {
					t.Fatalf("weekStartsOn = %q; want %q", set.WeekStartsOn, want)
				}
				var tr domain.Trainee
				e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "Week", "phone": "050-555-0101"})).Into(t, &tr)
				tp := "/trainees/" + tr.ID
				e.OK(200, e.Call(k, "PATCH", tp+"/training-profile", map[string]any{
					"availability": []int{1, 2, 3, 4, 5, 6, 7}, "equipment": []string{"barbell", "rack", "bench", "dumbbell"}, "sessionMinutes": 60, "experience": "intermediate"}))
				session := func(date, status string) {
					if status == domain.SessionCompleted {
						e.OK(201, e.Call(k, "POST", tp+"/workouts", map[string]any{"date": date, "sport": "strength", "durationMin": 50,
							"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": kit.Sets(3, 80)}}}))
						return
					}
					var s domain.Session
					e.OK(201, e.Call(k, "POST", tp+"/sessions", map[string]any{"date": date, "sport": "strength", "title": "S " + date})).Into(t, &s)
					if status != domain.SessionPlanned {
						e.OK(200, e.Call(k, "PATCH", "/sessions/"+s.ID, map[string]any{"status": status}))
					}
				}
				// Completed Monday 12 and Thursday 15 October; this week (either
				// kind) Monday 19 done, Tuesday 20 and Wednesday 21 missed,
				// Sunday 25 and Tuesday 27 planned.
				session("2026-10-12", domain.SessionCompleted)
				session("2026-10-15", domain.SessionCompleted)
				session("2026-10-19", domain.SessionCompleted)
				session("2026-10-20", domain.SessionMissed)
				session("2026-10-21", domain.SessionMissed)
				session("2026-10-25", domain.SessionPlanned)
				session("2026-10-27", domain.SessionPlanned)
				// Weigh-ins on Saturday 24 and, local time, Sunday 25 October.
				e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 70, "recordedAt": "2026-10-24T07:00:00Z"}))
				e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 69, "recordedAt": "2026-10-24T21:15:00Z"}))

				// The debrief: this week, next, an ISO week and a day in it.
				var d training.Debrief
				for q, want := range map[string]string{"": tc.week, "?week=this": tc.week, "?week=next": tc.next, "?week=last": training.WeekStartOn("2026-10-18", mustDay(t, tc.week).Weekday()),
					"?week=2026-W43": tc.iso43, "?week=" + tc.week: tc.week, "?week=2026-10-31": training.WeekStartOn("2026-10-31", mustDay(t, tc.week).Weekday())} {
					e.OK(200, e.Call(k, "GET", tp+"/debrief"+q, nil)).Into(t, &d)
					if d.Week != want || d.From != want || d.To != kit.AddDays(want, 6) {
						t.Errorf("debrief%s: week %s, %s to %s; want %s to %s", q, d.Week, d.From, d.To, want, kit.AddDays(want, 6))
					}
				}
				e.OK(200, e.Call(k, "GET", tp+"/debrief", nil)).Into(t, &d)
				if tc.missed && (d.Completed != 1 || d.Missed != 2 || d.Remaining != 1) || !tc.missed && (d.Completed != 0 || d.Missed != 0 || d.Remaining != 2) {
					t.Errorf("this week's debrief = %+v", d)
				}

				// The roster's "this week so far" and the triage's missed sessions.
				var r struct {
					From, To string
					Total    int
				}
				e.OK(200, e.Call(k, "GET", "/roster?question=trained", nil)).Into(t, &r)
				if r.From != tc.week || r.To != today {
					t.Errorf("roster trained: %s to %s; want %s to %s", r.From, r.To, tc.week, today)
				}
				var triage struct {
					Counts map[string]int `json:"counts"`
				}
				e.OK(200, e.Call(k, "GET", "/trainees/needs-attention", nil)).Into(t, &triage)
				if got := triage.Counts["missed_sessions"] == 1; got != tc.missed {
					t.Errorf("needs_attention counts %v; missed this week: want %v", triage.Counts, tc.missed)
				}

				// The active program's week and position: started Monday 19 October.
				var tmpl domain.ProgramTemplate
				e.OK(201, e.Call(k, "POST", "/program-templates", map[string]any{"name": "Two weeks", "phases": kit.TwoPhases()})).Into(t, &tmpl)
				e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": tmpl.ID, "startsOn": "2026-10-19"}))
				var active struct {
					Position *struct {
						WeekStart, WeekEnd string
						Week               int
					}
					ThisWeek []struct{ Date string }
				}
				e.OK(200, e.Call(k, "GET", tp+"/programs/active", nil)).Into(t, &active)
				// A Sunday studio is in the program's second week (its first held 19 October).
				wantWeek := 1
				if !tc.missed {
					wantWeek = 2
				}
				if active.Position == nil || active.Position.WeekStart != tc.week || active.Position.WeekEnd != kit.AddDays(tc.week, 6) || active.Position.Week != wantWeek {
					t.Errorf("program position = %+v; want the week of %s, week %d", active.Position, tc.week, wantWeek)
				}
				for _, s := range active.ThisWeek {
					if s.Date < tc.week || s.Date > kit.AddDays(tc.week, 6) {
						t.Errorf("this week's session on %s, outside %s to %s", s.Date, tc.week, kit.AddDays(tc.week, 6))
					}
				}

				// Weekly means: the two weigh-ins share a Monday week, not a Sunday one.
				var body struct {
					Metrics []training.MetricChange `json:"metrics"`
				}
				e.OK(200, e.Call(k, "GET", tp+"/body-analysis?from=2026-10-01&to="+today, nil)).Into(t, &body)
				var froms []string
				for _, p := range body.Metrics[0].Trend {
					froms = append(froms, p.From)
				}
				want := []string{"2026-10-19"}
				if !tc.missed {
					want = []string{"2026-10-18", "2026-10-25"}
				}
				if !slices.Equal(froms, want) {
					t.Errorf("weekly weight means from %v; want %v", froms, want)
				}

				// A weekly plan: next week's draft starts on the studio's first day
				// and keeps inside its seven days.
				var draft draftAnswer
				e.OK(201, e.Call(k, "POST", tp+"/plan-drafts", map[string]any{"week": "next", "fresh": true})).Into(t, &draft)
				if draft.WeekStart != tc.next || draft.Plan.WeekStart != tc.next || len(draft.Plan.Sessions) == 0 {
					t.Fatalf("next week's draft: %s, plan %s, %d sessions; want %s", draft.WeekStart, draft.Plan.WeekStart, len(draft.Plan.Sessions), tc.next)
				}
				for i, s := range draft.Plan.Sessions {
					if s.Date < tc.next || s.Date > kit.AddDays(tc.next, 6) || i > 0 && s.Date <= draft.Plan.Sessions[i-1].Date {
						t.Errorf("draft session %d on %s: outside %s to %s or out of order", i, s.Date, tc.next, kit.AddDays(tc.next, 6))
					}
					if training.ISOWeekday(mustDay(t, s.Date).Weekday()) != s.Weekday {
						t.Errorf("draft session on %s says weekday %d", s.Date, s.Weekday)
					}
				}
				e.OK(201, e.Call(k, "POST", tp+"/plan-drafts", map[string]any{"week": "this", "fresh": true})).Into(t, &draft)
				if draft.WeekStart != tc.week {
					t.Errorf("this week's draft starts %s; want %s", draft.WeekStart, tc.week)
				}
			})
		})
	}
}

func mustDay(t *testing.T, day string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAMondayDraftKeepsWorking: a draft stored while the studio's weeks
// began on Monday is read as it was stored (its week_start and its dates
// are days, not weeks, so nothing is migrated): after the studio moves to
// Sunday weeks it is still read and applied on its own dates, and an ask
// for the studio's week drafts that week anew rather than answering it.
func TestAMondayDraftKeepsWorking(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC) // Wednesday
		e := lanetest.New(t, st, kit.Options{Now: func() time.Time { return now }})
		f := e.Seed("monday-draft")
		e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+f.Trainee.ID+"/training-profile", map[string]any{
			"availability": []int{1, 3, 5}, "equipment": []string{"barbell", "rack", "bench", "dumbbell"}, "sessionMinutes": 60, "experience": "intermediate"}))
		const monday = "2026-12-07"
		d := domain.PlanDraft{TraineeID: f.Trainee.ID, WeekStart: monday, RequestedBy: "coach", ExpiresAt: now.Add(24 * time.Hour), CreatedAt: now,
			Plan: []byte(`{"weekStart":"` + monday + `","rule":"linear","sessions":[{"date":"2026-12-07","weekday":1,"title":"Full body","durationMin":30,` +
				`"exercises":[{"exerciseId":"goblet-squat","name":"Goblet squat","sets":3,"reps":10,"rir":2,"restSeconds":90,"basis":"no logged load yet"}]},` +
				`{"date":"2026-12-13","weekday":7,"title":"Full body","durationMin":30,` +
				`"exercises":[{"exerciseId":"goblet-squat","name":"Goblet squat","sets":3,"reps":10,"rir":2,"restSeconds":90,"basis":"no logged load yet"}]}],"adjustments":[]}`),
			Report: []byte(`{"valid":true,"problems":[],"fallback":true,"promptVersion":"weekly-plan/1","modelCalls":0}`)}
		if err := st.Studio(f.Studio.ID).CreatePlanDraft(t.Context(), &d); err != nil {
			t.Fatal(err)
		}
		// The studio's weeks start on Sunday (its zone's custom): next week is 6 to 12 December.
		var fresh draftAnswer
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/plan-drafts", map[string]any{"week": "next"})).Into(t, &fresh)
		if fresh.ID == d.ID || fresh.WeekStart != "2026-12-06" {
			t.Fatalf("next week's ask answered %s of %s; want a new draft of 2026-12-06", fresh.ID, fresh.WeekStart)
		}
		var got draftAnswer
		e.OK(200, e.Call(f.Key, "GET", "/plan-drafts/"+d.ID, nil)).Into(t, &got)
		if got.WeekStart != monday || got.Status != domain.DraftPending || len(got.Plan.Sessions) != 2 {
			t.Fatalf("the Monday draft reads %+v", got)
		}
		var applied applyAnswer
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+d.ID+"/apply", nil)).Into(t, &applied)
		if len(applied.Draft.SessionIDs) != 2 {
			t.Fatalf("applied %+v", applied)
		}
		var planned struct{ Items []struct{ Date string } }
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/sessions?status=planned&from=2026-12-07&to=2026-12-13", nil)).Into(t, &planned)
		var dates []string
		for _, s := range planned.Items {
			dates = append(dates, s.Date)
		}
		slices.Sort(dates)
		if !slices.Equal(dates, []string{"2026-12-07", "2026-12-13"}) {
			t.Fatalf("planned on %v; want the draft's own dates", dates)
		}
	})
}

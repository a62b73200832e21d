package roster_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

type attentionPage struct {
	Summary    string               `json:"summary"`
	Items      []training.Attention `json:"items"`
	Total      int                  `json:"total"`
	NextOffset *int                 `json:"nextOffset"`
}

func attentionIDs(p attentionPage) []string {
	var out []string
	for _, a := range p.Items {
		out = append(out, a.TraineeID)
	}
	return out
}

func TestNeedsAttention(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st, kit.Options{Now: func() time.Time { return kit.InsightsNow }})
		w := kit.SeedTriage(t, e, "triage-"+st.Engine())
		other := kit.SeedTriage(t, e, "triage-other-"+st.Engine())
		k := w.Key

		var p attentionPage
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention", nil)).Into(t, &p)
		// Eden 90 + 35 = 125, Ayala 75 + 30 = 105, Boaz 80; Carmel has none, Paz is paused.
		if want := []string{w.Eden.ID, w.Ayala.ID, w.Boaz.ID}; !slices.Equal(attentionIDs(p), want) || p.Total != 3 || p.NextOffset != nil {
			t.Fatalf("needs-attention = %+v; want Eden, Ayala, Boaz", p)
		}
		if p.Items[0].Score != 125 || p.Items[1].Score != 105 || p.Items[2].Score != 80 {
			t.Fatalf("scores %d %d %d", p.Items[0].Score, p.Items[1].Score, p.Items[2].Score)
		}
		if r := p.Items[1].Reasons; len(r) != 2 || r[0].Code != "plan_ended" || r[0].Message != "The plan ended on 2026-11-28 (4 days ago) and was not renewed." || r[1].Code != "form_past_due" {
			t.Fatalf("Ayala's reasons = %+v", r)
		}
		if p.Summary != "3 of 4 active trainees need attention (low_readiness 1, active_injury 1, plan_ended 1, overdue_tasks 1, form_past_due 1)." {
			t.Fatalf("summary = %q", p.Summary)
		}

		// Paged: one at a time.
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention?limit=1&offset=1", nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.Ayala.ID}) || p.Total != 3 || p.NextOffset == nil || *p.NextOffset != 2 {
			t.Fatalf("page 2 = %+v", p)
		}
		// By reason, by coach, both.
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention?reason=active_injury", nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.Boaz.ID}) {
			t.Fatalf("active_injury = %+v", p)
		}
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention?coachId="+w.Coach1.ID, nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.Ayala.ID}) || !strings.HasPrefix(p.Summary, "1 of 2 active trainees") {
			t.Fatalf("coach 1 = %+v", p)
		}
		e.OK(200, e.Call(k, "GET", "/trainees/needs-attention?coachId="+w.Coach2.ID+"&reason=plan_ended", nil)).Into(t, &p)
		if len(p.Items) != 0 || p.Total != 0 || p.Summary != "None of the 2 active trainees asked about needs attention now." {
			t.Fatalf("coach 2, plan_ended = %+v", p)
		}

		// Bad input names its field; another studio's coach is not found.
		a := e.Fails(422, "VALIDATION", e.Call(k, "GET", "/trainees/needs-attention?reason=sad&limit=500", nil))
		if f := a.Fields(); !slices.Contains(f, "reason") || !slices.Contains(f, "limit") {
			t.Fatalf("fields = %v: %s", f, a.Raw)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/needs-attention?coachId="+other.Coach1.ID, nil))
		// The other studio sees only its own.
		e.OK(200, e.Call(other.Key, "GET", "/trainees/needs-attention", nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{other.Eden.ID, other.Ayala.ID, other.Boaz.ID}) {
			t.Fatalf("other studio = %+v", p)
		}
		// The literal path is not a trainee id: GET /trainees/{id} still answers trainees.
		e.OK(200, e.Call(k, "GET", "/trainees/"+w.Ayala.ID, nil))
	})
}

// readModelWorld is one trainee with two weeks of training around week
// 2026-W48 (23–29 November), today being Wednesday 2 December.
type readModelWorld struct {
	key, otherKey      string
	trainee, foreigner domain.Trainee
	prSession          string
}

func seedReadModels(t *testing.T, e *kit.Env, slug string) readModelWorld {
	t.Helper()
	ctx := context.Background()
	var w readModelWorld
	studio, key, _ := e.Studio(slug, "pro")
	other, otherKey, _ := e.Studio(slug+"-other", "pro")
	w.key, w.otherKey = key, otherKey
	ss := e.St.Studio(studio.ID)
	w.trainee = domain.Trainee{FirstName: "Noa", LastName: "Lev", Phone: "+972521110001"}
	if err := ss.CreateTrainee(ctx, &w.trainee); err != nil {
		t.Fatal(err)
	}
	w.foreigner = domain.Trainee{FirstName: "Far", LastName: "Away", Phone: "+972521110002"}
	if err := e.St.Studio(other.ID).CreateTrainee(ctx, &w.foreigner); err != nil {
		t.Fatal(err)
	}
	tid := w.trainee.ID
	// A program of Base (2 weeks) and Build (3 weeks) from Wednesday 11 November.
	tmpl := domain.ProgramTemplate{Name: "Block", Structure: &domain.ProgramStructure{Phases: []domain.ProgramPhase{
		{Name: "Base", Weeks: make([]domain.ProgramWeek, 2)}, {Name: "Build", Weeks: make([]domain.ProgramWeek, 3)}}}}
	for i := range tmpl.Structure.Phases {
		for j := range tmpl.Structure.Phases[i].Weeks {
			tmpl.Structure.Phases[i].Weeks[j].Days = []domain.ProgramDay{{Title: "Full body", Sport: "strength", Exercises: []domain.PlannedExercise{{ExerciseID: "back-squat", Name: "Back squat"}}}}
		}
	}
	if err := ss.CreateProgramTemplate(ctx, &tmpl); err != nil {
		t.Fatal(err)
	}
	if err := ss.CreateProgram(ctx, &domain.Program{TraineeID: tid, TemplateID: tmpl.ID, Name: "Block", StartsOn: "2026-11-11", Status: domain.ProgramActive}); err != nil {
		t.Fatal(err)
	}
	squat := func(reps int, kg float64) []domain.SessionExercise {
		return []domain.SessionExercise{{ExerciseID: "back-squat", Name: "Back squat", Sets: []domain.SetEntry{{Reps: &reps, LoadKg: &kg, Done: true}}}}
	}
	mk := func(date, status string, volume float64, minutes int, ex []domain.SessionExercise) *domain.Session {
		s := &domain.Session{TraineeID: tid, Date: date, Sport: "strength", Title: "Full body " + date, Status: status, Source: domain.SessionFromProgram,
			Exercises: ex, Totals: domain.SessionTotals{VolumeKg: volume}}
		if minutes > 0 {
			s.DurationMin = &minutes
		}
		if s.Exercises == nil {
			s.Exercises = []domain.SessionExercise{}
		}
		return s
	}
	sessions := []*domain.Session{
		mk("2026-11-18", domain.SessionCompleted, 4000, 60, squat(5, 100)), // the week before W48
		mk("2026-11-23", domain.SessionCompleted, 5000, 60, squat(5, 105)),
		mk("2026-11-25", domain.SessionMissed, 0, 0, nil),
		mk("2026-11-27", domain.SessionCompleted, 4000, 50, squat(5, 100)),
		mk("2026-11-30", domain.SessionCompleted, 3000, 40, squat(5, 100)), // W49
		mk("2026-12-04", domain.SessionPlanned, 0, 0, nil),
	}
	if err := ss.CreateSessions(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	w.prSession = sessions[1].ID
	for day, r := range map[string]int{"2026-11-24": 4, "2026-11-25": 3, "2026-11-26": 2, "2026-12-01": 6} {
		r := r
		if _, err := ss.PutCheckIn(ctx, &domain.CheckIn{TraineeID: tid, Day: day, Readiness: &r, SoreAreas: []string{}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ss.CreateInjury(ctx, &domain.Injury{TraineeID: tid, Area: "knee", Side: "left", Severity: 2, Status: domain.InjuryActive, OnsetOn: "2026-11-20", AffectedExercises: []string{}}); err != nil {
		t.Fatal(err)
	}
	if err := ss.CreateGoal(ctx, &domain.Goal{TraineeID: tid, Title: "Feel strong", Kind: domain.GoalText, Status: domain.GoalActive}); err != nil {
		t.Fatal(err)
	}
	// 105 × (1 + 5/30) = 122.5: the PR of 23 November, after 116.67 of 18 November.
	ex := "back-squat"
	b := domain.Benchmark{TraineeID: tid, Name: "Back squat 1RM", ExerciseID: &ex, Unit: "kg", Direction: domain.HigherIsBetter, Entries: []domain.BenchmarkEntry{
		{Value: 116.67, RecordedAt: time.Date(2026, 11, 18, 17, 0, 0, 0, time.UTC), Source: domain.BenchmarkFromSession, SessionID: &sessions[0].ID},
		{Value: 122.5, RecordedAt: time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC), Source: domain.BenchmarkFromSession, SessionID: &sessions[1].ID},
	}}
	if err := ss.CreateBenchmark(ctx, &b); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestTraineeReadModels(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st, kit.Options{Now: func() time.Time { return kit.InsightsNow }})
		w := seedReadModels(t, e, "models-"+st.Engine())
		k, base := w.key, "/trainees/"+w.trainee.ID

		var o training.Overview
		e.OK(200, e.Call(k, "GET", base+"/overview", nil)).Into(t, &o)
		// The window 19 Nov – 2 Dec holds 23 (done), 25 (missed), 27, 30 (done): 3 of 4.
		// 2 Dec's week starts 30 Nov, 3 weeks after 11 Nov's (9 Nov): week 4, Build's 2nd.
		if o.Completion.Due != 4 || o.Completion.Completed != 3 || o.Program == nil || o.Program.Week != 4 || *o.Program.Phase != "Build" {
			t.Fatalf("overview = %+v", o)
		}
		if len(o.Sessions) != 4 || o.Sessions[0].Date != "2026-11-30" || o.Sessions[0].VolumeKg != 3000 || len(o.ActiveInjuries) != 1 || len(o.ActiveGoals) != 1 || len(o.LatestCheckIns) != 3 {
			t.Fatalf("overview rows = %+v", o)
		}
		if !strings.Contains(o.Summary, "Program Block: week 4 of 5, phase Build (its week 2). Last 14 days: 3 of 4 sessions completed (75%). Latest check-in 2026-12-01: readiness 6/10.") {
			t.Fatalf("overview summary = %q", o.Summary)
		}

		var d training.Debrief
		e.OK(200, e.Call(k, "GET", base+"/debrief?week=2026-W48", nil)).Into(t, &d)
		// W48: 23, 25, 27 planned; 2 done, 1 missed. Volume 5000 + 4000 = 9000 against
		// 4000 (+125%); minutes 60 + 50 = 110 against 60: 50/60 = +83.3%.
		if d.Planned != 3 || d.Completed != 2 || d.Missed != 1 || d.VolumeKg.Week != 9000 || *d.VolumeKg.ChangePct != 125 || d.Minutes.Week != 110 || *d.Minutes.ChangePct != 83.3 {
			t.Fatalf("debrief = %+v", d)
		}
		// The PR of 23 Nov (122.5 after 116.67); readiness (4 + 3 + 2)/3 = 3; three flags; 4 Dec planned next week.
		if len(d.PRs) != 1 || d.PRs[0].Value != 122.5 || *d.PRs[0].PreviousBest != 116.67 || d.PRs[0].SessionID != w.prSession ||
			*d.CheckIns.Readiness != 3 || len(d.Flags) != 3 || len(d.NextWeek) != 1 || d.NextWeek[0].Date != "2026-12-04" {
			t.Fatalf("debrief PRs, check-ins, flags = %+v", d)
		}
		// This week by default, the studio's (Sunday 29 Nov to Saturday 5 Dec): 30 Nov done, 4 Dec to come.
		e.OK(200, e.Call(k, "GET", base+"/debrief", nil)).Into(t, &d)
		if d.Week != "2026-11-29" || d.To != "2026-12-05" || d.Planned != 2 || d.Completed != 1 || d.Remaining != 1 {
			t.Fatalf("this week's debrief = %+v", d)
		}
		// A day stands for its week: Tuesday 24 November is in the week of Sunday 22 November.
		e.OK(200, e.Call(k, "GET", base+"/debrief?week=2026-11-24", nil)).Into(t, &d)
		if d.Week != "2026-11-22" {
			t.Fatalf("the week of 2026-11-24 = %+v", d)
		}
		// Anything else is refused with the sentence naming this week's first day.
		for _, bad := range []string{"2026-W60", "2026-48", "last%20week", "2026-13-01"} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "GET", base+"/debrief?week="+bad, nil))
			if !slices.Equal(a.Fields(), []string{"week"}) || !strings.Contains(a.Message(), "this week starts on 2026-11-29") {
				t.Fatalf("week=%s: %s", bad, a.Raw)
			}
		}

		var in training.Insights
		e.OK(200, e.Call(k, "GET", base+"/insights", nil)).Into(t, &in)
		// 4 weeks from 5 Nov: 18, 23, 25 (missed), 27, 30 Nov: 4 of 5. Week streak: W48 has a
		// missed session, so 0; the last 2 due (27, 30 Nov) completed.
		if in.Consistency.FourWeeks.Due != 5 || in.Consistency.FourWeeks.Completed != 4 || in.Consistency.WeekStreak != 0 || in.Consistency.SessionStreak != 2 {
			t.Fatalf("insights consistency = %+v", in.Consistency)
		}
		// Squat in the last 3 weeks (from 12 Nov): 18 Nov 116.67, 23 Nov 122.5, …: nothing before to compare.
		if len(in.StalledLifts) != 0 || len(in.Benchmarks) != 1 || in.Benchmarks[0].Latest != 122.5 {
			t.Fatalf("insights progress = %+v", in)
		}

		// Another studio's trainee and ids of other kinds are not found.
		for _, path := range []string{"/overview", "/debrief", "/insights", "/debrief?week=2026-W48"} {
			e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/"+w.foreigner.ID+path, nil))
			e.Fails(404, "NOT_FOUND", e.Call(w.otherKey, "GET", base+path, nil))
			e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/"+w.prSession+path, nil))
		}
	})
}

// A trainee's feedback reaches her coach: counted in the triage for 7
// days, with its words, and listed by the roster's feedback question.
func TestFeedbackReachesTheTriage(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st, kit.Options{Now: func() time.Time { return kit.InsightsNow }})
		w := kit.SeedTriage(t, e, "feedback-"+st.Engine())
		said := func(tr domain.Trainee, text string, rating int, ago time.Duration) {
			kit.SQLRow(t, e.St, "trainee_feedback", map[string]any{"id": ids.New(ids.Feedback), "studio_id": w.Studio.ID, "trainee_id": tr.ID,
				"text": text, "rating": rating, "source": "mcp", "created_at": kit.InsightsNow.Add(-ago).UnixMilli()})
		}
		said(w.Carmel, "Mornings are too crowded", 3, 26*time.Hour)
		said(w.Carmel, "Loved the new program", 5, 5*24*time.Hour)
		said(w.Eden, "Old news", 4, 8*24*time.Hour) // more than 7 days ago
		var p attentionPage
		e.OK(200, e.Call(w.Key, "GET", "/trainees/needs-attention?reason=feedback", nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.Carmel.ID}) || p.Items[0].Score != 25 {
			t.Fatalf("feedback in the triage = %+v", p)
		}
		r := p.Items[0].Reasons[0]
		if r.Code != "feedback" || r.Message != `2 feedbacks to the studio in the last 7 days; the latest on 2026-12-01 (rated 3/5): "Mornings are too crowded".` {
			t.Fatalf("the reason = %+v", r)
		}
		e.OK(200, e.Call(w.Key, "GET", "/trainees/needs-attention", nil)).Into(t, &p)
		if p.Total != 4 || !strings.Contains(p.Summary, "feedback 1") {
			t.Fatalf("the whole triage = %+v", p)
		}
	})
}

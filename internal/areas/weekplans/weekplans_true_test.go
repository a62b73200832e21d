package weekplans_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/llm/anthropic"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/weekplan"
)

type draftState struct {
	draftAnswer
	Refinement       string  `json:"refinement"`
	RefinementNote   *string `json:"refinementNote"`
	SupersededReason *string `json:"supersededReason"`
	Why              string  `json:"why"`
}

// A pending draft is answered again only while what the rules read is the
// same: a shoulder injury recorded after it (the fixture's trainee has a
// knee one already) makes the next ask a new draft without
// shoulder-loading exercises, the old one superseded, and the answer
// says why in the studio's Hebrew; the coaches keep one task for the week.
func TestAnInjuryAfterADraftMakesANewDraft(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan-true")
		e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+f.Trainee.ID+"/training-profile", map[string]any{
			"availability": []int{1, 3, 5}, "equipment": []string{"barbell", "rack", "bench", "dumbbell", "cable"}, "sessionMinutes": 60, "experience": "intermediate"}))
		tok := e.TraineeToken(f)
		var first, again, fresh draftState
		e.OK(201, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{})).Into(t, &first)
		e.OK(200, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{})).Into(t, &again)
		if again.ID != first.ID || !again.Existing {
			t.Fatalf("the same input answers the pending draft %s: %+v", first.ID, again.draftAnswer)
		}
		shoulder := func(p weekplan.Plan) []string {
			var out []string
			for _, s := range p.Sessions {
				for _, it := range s.Items {
					// An isometric hold is the tendinopathy's rehabilitation, not load.
					if ex, _ := exercises.Get(it.ExerciseID); slices.Contains(ex.Loads, "shoulder") && ex.Pattern != "isometric" {
						out = append(out, it.ExerciseID)
					}
				}
			}
			return out
		}
		if len(shoulder(first.Plan)) == 0 {
			t.Fatalf("the first week has no shoulder-loading exercise: the test proves nothing: %+v", first.Plan)
		}
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/injuries", map[string]any{"area": "shoulder", "side": "left", "severity": 3, "kind": "tendinopathy"}))
		e.OK(201, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{})).Into(t, &fresh)
		if fresh.ID == first.ID || !strings.Contains(fresh.Why, "הפציעות") {
			t.Fatalf("after the injury: %s, why %q; want a new draft that says her injuries changed", fresh.ID, fresh.Why)
		}
		if k := shoulder(fresh.Plan); len(k) > 0 {
			t.Errorf("the new draft loads the injured shoulder: %v", k)
		}
		rehab := false
		for _, s := range fresh.Plan.Sessions {
			for _, it := range s.Items {
				rehab = rehab || it.ExerciseID == "isometric-external-rotation"
			}
		}
		if !rehab {
			t.Errorf("a shoulder tendinopathy's week has no isometric hold for it: %+v", fresh.Plan.Sessions)
		}
		var old draftState
		e.OK(200, e.Call(f.Key, "GET", "/plan-drafts/"+first.ID, nil)).Into(t, &old)
		if old.Status != domain.DraftSuperseded || old.SupersededReason == nil || !strings.Contains(*old.SupersededReason, "הפציעות") || !strings.Contains(old.Next, "הוחלפה") {
			t.Fatalf("the old draft: %+v", old)
		}
		// A logged session is a change too.
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/workouts", map[string]any{"sport": "running", "durationMin": 30}))
		var third draftState
		e.OK(201, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{})).Into(t, &third)
		if third.ID == fresh.ID || !strings.Contains(third.Why, "נרשם אימון") {
			t.Fatalf("after a logged session: why %q", third.Why)
		}
		// One task for the week, updated each time, naming the newest draft.
		var tasks struct{ Items []domain.Task }
		e.OK(200, e.Call(f.Key, "GET", "/tasks?clientId="+f.Trainee.ID+"&coachId=all", nil)).Into(t, &tasks)
		var week []domain.Task
		for _, task := range tasks.Items {
			if task.Detail != nil && strings.Contains(*task.Detail, "apply_weekly_plan") {
				week = append(week, task)
			}
		}
		if len(week) != 1 || !strings.Contains(*week[0].Detail, third.ID) || !strings.Contains(week[0].Title, "שבוע אימונים") {
			t.Fatalf("the week's coach tasks: %+v; want one, in Hebrew, naming %s", week, third.ID)
		}
		// Her coach's draft with days of his choosing is what her plain ask
		// answers: the ask's days are no part of the fingerprint.
		var coachs, hers draftState
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/plan-drafts", map[string]any{"days": []int{2, 4}})).Into(t, &coachs)
		e.OK(200, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{})).Into(t, &hers)
		if hers.ID != coachs.ID || !hers.Existing {
			t.Fatalf("her plain ask after her coach's draft: %s; want %s", hers.ID, coachs.ID)
		}
	})
}

// A trainee whose program already planned four sessions of the week gets
// that week adjusted: applying the draft changes those sessions in place
// and adds none beside them (four, not seven), and a session logged
// meanwhile is never touched.
func TestApplyingAdjustsThePlannedWeekInPlace(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan-inplace")
		profileAndKnee(e, f)
		var d0 draftState
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/plan-drafts", map[string]any{"fresh": true})).Into(t, &d0)
		week := d0.WeekStart
		var planned []string
		for _, off := range []int{0, 1, 3, 4} {
			var s domain.Session
			e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/sessions", map[string]any{"date": addDays(week, off), "sport": "strength", "title": "Program day", "durationMin": 45})).Into(t, &s)
			planned = append(planned, s.ID)
		}
		var d draftState
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/plan-drafts", map[string]any{})).Into(t, &d)
		if !strings.Contains(d.Why, "האימונים המתוכננים") {
			t.Errorf("the planned week changed since the first draft: why %q", d.Why)
		}
		for _, s := range d.Plan.Sessions {
			if !slices.Contains(planned, s.PlannedID) {
				t.Errorf("the draft's %s adds a session beside the planned week (plannedId %q)", s.Date, s.PlannedID)
			}
		}
		// One of the days the draft adjusts is logged before it is applied:
		// applying never touches a session already done.
		logged := d.Plan.Sessions[0].PlannedID
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/workouts", map[string]any{"sessionId": logged, "durationMin": 40}))
		var applied applyAnswer
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+d.ID+"/apply", nil)).Into(t, &applied)
		var done domain.Session
		e.OK(200, e.Call(f.Key, "GET", "/sessions/"+logged, nil)).Into(t, &done)
		if done.Status != domain.SessionCompleted || done.Title != "Program day" || len(done.Exercises) != 0 || slices.Contains(applied.Draft.SessionIDs, logged) {
			t.Fatalf("the logged session after applying: %+v (applied %v)", done, applied.Draft.SessionIDs)
		}
		var list struct {
			Total int
			Items []struct{ ID, Title string }
		}
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/sessions?status=planned&from="+week+"&to="+addDays(week, 6), nil)).Into(t, &list)
		if list.Total != 3 {
			t.Fatalf("after applying: %d planned sessions in the week; want the program's 4 less the one logged", list.Total)
		}
		changed := 0
		for _, s := range list.Items {
			if !slices.Contains(planned, s.ID) {
				t.Errorf("a new session %s beside the program's", s.ID)
			}
			// The program's day keeps its title and takes the draft's exercises.
			var full domain.Session
			e.OK(200, e.Call(f.Key, "GET", "/sessions/"+s.ID, nil)).Into(t, &full)
			if len(full.Exercises) > 0 {
				changed++
			}
		}
		if changed != len(d.Plan.Sessions)-1 || !strings.Contains(applied.Summary, "עודכנו") {
			t.Errorf("%d sessions took the draft's day; want %d (summary %q)", changed, len(d.Plan.Sessions), applied.Summary)
		}
	})
}

func addDays(day string, n int) string {
	t, _ := time.Parse(time.DateOnly, day)
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// refinedLayout is the fake model: the baseline week with a note on every
// session.
func refinedLayout(_ int, req fakes.MessagesRequest) fakes.Reply {
	text := req.SystemText()
	var ctx struct {
		Baseline weekplan.Layout `json:"baseline"`
	}
	if i := strings.Index(text, "{"); i >= 0 {
		_ = jsonUnmarshal(text[i:], &ctx)
	}
	for i := range ctx.Baseline.Sessions {
		ctx.Baseline.Sessions[i].Note = "refined by the model"
	}
	ctx.Baseline.Summary = "a refined week"
	return fakes.CallTool("lay_out_week", ctx.Baseline)
}

// The rules' week answers at once; the model refines it as a River job,
// and the draft says where that stands; its calls are counted against the
// one budget and for perform agent cost. Once the budget is spent, the
// draft stays the rules' week and says why. A refinement that lands after
// the draft was applied is recorded and dropped.
func TestTheModelRefinesADraftOffTheRequest(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		// gate, when set, holds the model's answer until it is closed.
		var gateMu sync.Mutex
		var gate chan struct{}
		entered := make(chan struct{}, 4)
		fake := fakes.NewAnthropic(func(n int, req fakes.MessagesRequest) fakes.Reply {
			gateMu.Lock()
			g := gate
			gateMu.Unlock()
			if g != nil {
				entered <- struct{}{}
				<-g
			}
			return refinedLayout(n, req)
		})
		t.Cleanup(fake.Close)
		model, err := anthropic.New(anthropic.Config{APIKey: "test-key", BaseURL: fake.URL, Model: "claude-sonnet-4-5"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		budget := modelbudget.New(st, modelbudget.Ceilings{PersonDayTokens: 1_000_000, StudioHourTokens: 10_000_000}, nil)
		workers := river.NewWorkers()
		var plans *weekplans.Area
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{WeekPlans: weekplans.Options{Model: model, Store: st, Budget: budget},
			Areas: func(s *areas.Set) { plans = s.WeekPlans; plans.Register(workers) }})
		client, err := jobs.NewClient(st, jobs.Config{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		plans.SetJobs(client)
		f := e.Seed("weekplan-refine")
		profileAndKnee(e, f)
		path := "/trainees/" + f.Trainee.ID + "/plan-drafts"

		// Applied before the job runs: the refinement is recorded and dropped.
		var early draftState
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"fresh": true})).Into(t, &early)
		if early.Refinement != domain.RefinePending || !early.Report.Fallback || !strings.Contains(early.Next, "המודל") {
			t.Fatalf("the rules' week at once, refinement pending: %+v", early)
		}
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+early.ID+"/apply", nil))

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := client.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() {
			stop, done := context.WithTimeout(context.Background(), 5*time.Second)
			defer done()
			_ = client.Stop(stop)
		}()
		settled := func(id string) draftState {
			t.Helper()
			deadline := time.Now().Add(15 * time.Second)
			for {
				var d draftState
				e.OK(200, e.Call(f.Key, "GET", "/plan-drafts/"+id, nil)).Into(t, &d)
				if d.Refinement != domain.RefinePending {
					return d
				}
				if time.Now().After(deadline) {
					t.Fatalf("draft %s still pending refinement", id)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		if d := settled(early.ID); d.RefinementNote == nil || d.Plan.Summary == "a refined week" {
			t.Errorf("a refinement after applying: %+v; want it recorded and dropped", d)
		}

		// The applied week is planned now: a draft of it adjusts those sessions
		// in place and asks no model.
		var again draftState
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"fresh": true})).Into(t, &again)
		if again.Refinement != domain.RefineSkipped || again.RefinementNote == nil || !strings.Contains(*again.RefinementNote, "מתוכנן") {
			t.Errorf("a draft of a planned week: %s %v; want skipped, saying the week is planned", again.Refinement, again.RefinementNote)
		}
		// The week after it is not: the model refines it.
		var next draftState
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"fresh": true, "week": addDays(early.WeekStart, 7)})).Into(t, &next)
		d := settled(next.ID)
		if d.Refinement != domain.RefineDone || d.Plan.Summary != "a refined week" || d.Report.Fallback || d.Report.ModelCalls == 0 {
			t.Fatalf("refined: %s %+v %+v", d.Refinement, d.Plan.Summary, d.Report)
		}
		rows, err := st.Agent().UsageByStudio(context.Background(), time.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(rows, func(r store.AgentStudioUsage) bool { return r.StudioID == f.Studio.ID && r.Role == weekplans.Purpose }); i < 0 || rows[i].Steps == 0 {
			t.Errorf("perform agent cost's rows %+v lack the weekly plan's model calls", rows)
		}

		// Applied while the model is at work: its refinement lands after,
		// and is recorded and dropped.
		gateMu.Lock()
		gate = make(chan struct{})
		gateMu.Unlock()
		var late draftState
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"fresh": true, "week": addDays(early.WeekStart, 14)})).Into(t, &late)
		select {
		case <-entered:
		case <-time.After(15 * time.Second):
			t.Fatal("the refinement never asked the model")
		}
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+late.ID+"/apply", nil))
		gateMu.Lock()
		close(gate)
		gate = nil
		gateMu.Unlock()
		if d := settled(late.ID); d.Refinement != domain.RefineDone || d.RefinementNote == nil || !strings.Contains(*d.RefinementNote, "dropped") ||
			d.Plan.Summary == "a refined week" || d.Status != domain.DraftApplied {
			t.Fatalf("a refinement that landed after applying: %s %v %q", d.Refinement, d.RefinementNote, d.Plan.Summary)
		}

		// A spent budget: the draft is the rules' week and says why.
		if err := budget.Charge(context.Background(), f.Studio.ID, f.Trainee.ID, 2_000_000); err != nil {
			t.Fatal(err)
		}
		var spent draftState
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"fresh": true, "week": addDays(early.WeekStart, 21)})).Into(t, &spent)
		if spent.Refinement != domain.RefineSkipped || spent.RefinementNote == nil || !strings.Contains(*spent.RefinementNote, "תקציב") {
			t.Fatalf("a spent budget: %s %v", spent.Refinement, spent.RefinementNote)
		}
	})
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// What the area writes is in the studio's language, Hebrew until it says
// English, and in the trainee's gender where it is known.
func TestDraftsSpeakTheStudiosLanguage(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan-words")
		profileAndKnee(e, f)
		e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+f.Trainee.ID, map[string]any{"gender": "male"}))
		tok := e.TraineeToken(f)
		task := func() domain.Task {
			t.Helper()
			var tasks struct{ Items []domain.Task }
			e.OK(200, e.Call(f.Key, "GET", "/tasks?clientId="+f.Trainee.ID+"&coachId=all", nil)).Into(t, &tasks)
			for _, task := range tasks.Items {
				if task.Detail != nil && strings.Contains(*task.Detail, "apply_weekly_plan") {
					return task
				}
			}
			t.Fatal("no task about the week")
			return domain.Task{}
		}
		var he draftState
		e.OK(201, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{})).Into(t, &he)
		if title := task().Title; !strings.Contains(title, " ניסח שבוע") || !strings.Contains(he.Next, "המאמן") {
			t.Errorf("Hebrew, male: task %q, next %q", title, he.Next)
		}
		e.OK(200, e.Call(f.Key, "PATCH", "/studio/settings", map[string]any{"language": "en"}))
		var en draftState
		e.OK(201, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{"fresh": true})).Into(t, &en)
		if title := task().Title; !strings.Contains(title, "drafted a training week") || !strings.Contains(en.Next, "A draft for your coach") {
			t.Errorf("English: task %q, next %q", title, en.Next)
		}
		var coach applyAnswer
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+en.ID+"/apply", nil)).Into(t, &coach)
		if !strings.Contains(coach.Summary, "Planned the week of") {
			t.Errorf("the apply summary: %q", coach.Summary)
		}
	})
}

package weekplans_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/weekplan"
)

type draftAnswer struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	WeekStart   string          `json:"weekStart"`
	RequestedBy string          `json:"requestedBy"`
	Existing    bool            `json:"existing"`
	Next        string          `json:"next"`
	Plan        weekplan.Plan   `json:"plan"`
	Report      weekplan.Report `json:"report"`
	SessionIDs  []string        `json:"sessionIds"`
}

type applyAnswer struct {
	Summary        string      `json:"summary"`
	AlreadyApplied bool        `json:"alreadyApplied"`
	Draft          draftAnswer `json:"draft"`
}

// profileAndKnee gives f's trainee three days, a gym and a left knee injury.
func profileAndKnee(e *kit.Env, f kit.Fixture) {
	e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+f.Trainee.ID+"/training-profile", map[string]any{
		"availability": []int{1, 3, 5}, "equipment": []string{"barbell", "rack", "bench", "dumbbell", "cable"}, "sessionMinutes": 60, "experience": "intermediate"}))
	e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/injuries", map[string]any{"area": "knee", "side": "left", "severity": 3}))
}

// TestAWeekIsDraftedAppliedAndPlanned is the path: the trainee
// drafts her week (no model: the rules' own), her coach is told, sees it,
// applies it once (twice answers the same), and her planned sessions are
// the draft's days; the knee is spared and the draft says why.
func TestAWeekIsDraftedAppliedAndPlanned(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan")
		profileAndKnee(e, f)
		tok := e.TraineeToken(f)

		var mine draftAnswer
		e.OK(201, e.Call(tok, "POST", "/trainees/me/plan-drafts", map[string]any{"fresh": true})).Into(t, &mine)
		if mine.RequestedBy != "trainee" || mine.Status != domain.DraftPending || !strings.Contains(mine.Next, "המאמן") {
			t.Fatalf("the trainee's draft: %+v", mine)
		}
		if !mine.Report.Fallback || !mine.Report.Valid || mine.Report.PromptVersion == "" || len(mine.Plan.Sessions) != 3 {
			t.Fatalf("no model: the rules' own week, valid, on her three days; got %d sessions, report %+v", len(mine.Plan.Sessions), mine.Report)
		}
		for _, s := range mine.Plan.Sessions {
			for _, it := range s.Items {
				if ex, _ := exercises.Get(it.ExerciseID); slices.Contains(ex.Loads, "knee") {
					t.Errorf("%s on %s loads the injured knee", it.ExerciseID, s.Date)
				}
			}
		}
		said := false
		for _, a := range mine.Plan.Adjustments {
			said = said || a.Kind == weekplan.AdjustInjury && strings.Contains(a.Reason, "ברך") // the studio's language: Hebrew
		}
		if !said {
			t.Errorf("the draft does not say why the knee is spared: %+v", mine.Plan.Adjustments)
		}

		// Her coach was told, with the draft's id.
		var tasks struct{ Items []domain.Task }
		e.OK(200, e.Call(f.Key, "GET", "/tasks?clientId="+f.Trainee.ID, nil)).Into(t, &tasks)
		told := false
		for _, task := range tasks.Items {
			told = told || task.Detail != nil && strings.Contains(*task.Detail, mine.ID)
		}
		if !told {
			t.Errorf("no task tells the coach of draft %s: %+v", mine.ID, tasks.Items)
		}

		// The coach's draft_weekly_plan answers her pending draft.
		var seen draftAnswer
		e.OK(200, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/plan-drafts", map[string]any{})).Into(t, &seen)
		if seen.ID != mine.ID || !seen.Existing || !strings.Contains(seen.Next, "apply_weekly_plan") {
			t.Fatalf("the coach should see her draft %s: %+v", mine.ID, seen)
		}
		// The trainee cannot apply it herself.
		e.Fails(403, "FORBIDDEN", e.Call(tok, "POST", "/plan-drafts/"+mine.ID+"/apply", nil))

		var applied, again applyAnswer
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+mine.ID+"/apply", nil)).Into(t, &applied)
		if len(applied.Draft.SessionIDs) != 3 || applied.Draft.Status != domain.DraftApplied || applied.AlreadyApplied {
			t.Fatalf("applied: %+v", applied)
		}
		e.OK(200, e.Call(f.Key, "POST", "/plan-drafts/"+mine.ID+"/apply", nil)).Into(t, &again)
		if !again.AlreadyApplied || !slices.Equal(again.Draft.SessionIDs, applied.Draft.SessionIDs) {
			t.Fatalf("a second apply should answer the first's sessions: %+v", again)
		}

		// Her list_sessions shows the planned week, loads and all.
		var planned struct {
			Items []struct {
				ID, Date, Status, Title string
			}
		}
		e.OK(200, e.Call(tok, "GET", "/trainees/me/sessions?status=planned&from="+mine.WeekStart, nil)).Into(t, &planned)
		if len(planned.Items) != 3 {
			t.Fatalf("her planned sessions: %+v", planned.Items)
		}
		for i, s := range planned.Items {
			if s.Date != mine.Plan.Sessions[i].Date || s.Title != mine.Plan.Sessions[i].Title {
				t.Errorf("session %d: %+v, want the draft's %s %s", i, s, mine.Plan.Sessions[i].Date, mine.Plan.Sessions[i].Title)
			}
		}
		var first domain.Session
		e.OK(200, e.Call(tok, "GET", "/sessions/"+planned.Items[0].ID, nil)).Into(t, &first)
		want := mine.Plan.Sessions[0].Items[0]
		if got := first.Exercises[0]; got.ExerciseID != want.ExerciseID || got.Target == nil || *got.Target.Sets != want.Sets ||
			(want.LoadKg != nil) != (got.Target.LoadKg != nil) || (got.Target.RIR == nil && got.Target.RPE == nil) {
			t.Errorf("the planned exercise %+v does not carry the draft's %+v", got, want)
		}

		// Both the draft and its application are audited.
		e.Audit.Flush()
		l, err := st.ListAudit(t.Context(), f.Studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, ev := range l.Items {
			if ev.ResourceID == mine.ID {
				events = append(events, ev.Method+" "+ev.Route)
			}
		}
		if len(events) < 2 {
			t.Errorf("audit events of draft %s: %v", mine.ID, events)
		}
	})
}

// TestDraftsAreTheTraineesOwn: another trainee's draft is not found, for
// reading as for drafting on her behalf.
func TestDraftsAreTheTraineesOwn(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan-own")
		profileAndKnee(e, f)
		other := e.SecondTrainee(f)
		e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+other.Trainee+"/training-profile", map[string]any{"availability": []int{2, 4}, "equipment": []string{"none"}}))
		var theirs draftAnswer
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+other.Trainee+"/plan-drafts", map[string]any{})).Into(t, &theirs)
		tok := e.TraineeToken(f)
		e.Fails(404, "NOT_FOUND", e.Call(tok, "GET", "/plan-drafts/"+theirs.ID, nil))
		e.Fails(404, "NOT_FOUND", e.Call(tok, "POST", "/trainees/"+other.Trainee+"/plan-drafts", map[string]any{}))
		e.OK(200, e.Call(f.Key, "GET", "/plan-drafts/"+theirs.ID, nil))
	})
}

// TestBadDraftInputGetsSentences: what the core cannot plan from is a 422
// that says how to fix it.
func TestBadDraftInputGetsSentences(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan-bad")
		path := "/trainees/" + f.Trainee.ID + "/plan-drafts"
		if a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"fresh": true})); !strings.Contains(a.Message(), "availability") {
			t.Errorf("no days: %s", a.Message())
		}
		e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+f.Trainee.ID+"/training-profile", map[string]any{"availability": []int{1, 4}}))
		if a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"fresh": true})); !strings.Contains(a.Message(), "no equipment") {
			t.Errorf("no equipment: %s", a.Message())
		}
		if a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"week": "2026-01-07", "days": []int{1}})); !strings.Contains(a.Message(), "ended on") {
			t.Errorf("a week in the past: %s", a.Message())
		}
		if a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"week": "soon"})); !strings.Contains(a.Message(), "this, last or next") {
			t.Errorf("an unreadable week: %s", a.Message())
		}
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"days": []int{8}}))
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"rule": "wave"}))
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "POST", "/plan-drafts/pld_00000000000000000000000000/apply", nil))
	})
}

// TestDraftsAreLimitedAndExpire: drafting counts per trainee whoever asks;
// a draft past its life cannot be applied and left no session behind.
func TestDraftsAreLimitedAndExpire(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		now := time.Now()
		clock := func() time.Time { return now }
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: clock, Limits: map[string]ratelimit.Limiter{weekplans.DraftsLimit: ratelimit.NewMemory(2, time.Hour)}})
		f := e.Seed("weekplan-limit")
		path := "/trainees/" + f.Trainee.ID + "/plan-drafts"
		// Refusals draft nothing and cost nothing: three before the profile is set.
		for range 3 {
			e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, map[string]any{"fresh": true}))
		}
		profileAndKnee(e, f)
		var first, d draftAnswer
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"fresh": true})).Into(t, &first)
		// A fresh ask supersedes the pending draft of the week.
		e.OK(201, e.Call(e.TraineeToken(f), "POST", "/trainees/me/plan-drafts", map[string]any{"fresh": true})).Into(t, &d)
		if a := e.Fails(409, "CONFLICT", e.Call(f.Key, "POST", "/plan-drafts/"+first.ID+"/apply", nil)); !strings.Contains(a.Message(), "superseded") {
			t.Errorf("a superseded draft: %s", a.Message())
		}
		a := e.Fails(429, "RATE_LIMITED", e.Call(f.Key, "POST", path, map[string]any{"fresh": true}))
		if !strings.Contains(a.Message(), "GET /plan-drafts/{id}") {
			t.Errorf("the limit should say how to read the latest draft: %s", a.Message())
		}
		// The limit holds the route, a plain ask too; the latest draft is read by its id.
		e.Fails(429, "RATE_LIMITED", e.Call(f.Key, "POST", path, map[string]any{}))
		e.OK(200, e.Call(f.Key, "GET", "/plan-drafts/"+d.ID, nil))

		now = now.Add(weekplans.DraftLife + time.Minute)
		a = e.Fails(409, "CONFLICT", e.Call(f.Key, "POST", "/plan-drafts/"+d.ID+"/apply", nil))
		if !strings.Contains(a.Message(), "expired") {
			t.Errorf("an expired draft: %s", a.Message())
		}
		var planned struct{ Total int }
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/sessions?status=planned&from="+d.WeekStart, nil)).Into(t, &planned)
		if planned.Total != 0 {
			t.Errorf("an unapplied draft left %d planned sessions", planned.Total)
		}
	})
}

// TestParallelAppliesPlanOnce: applies racing on one draft lay its week out
// once; every other answers the same sessions or says it was applied.
func TestParallelAppliesPlanOnce(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("weekplan-race")
		profileAndKnee(e, f)
		var d draftAnswer
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/plan-drafts", map[string]any{"fresh": true})).Into(t, &d)
		const n = 8
		answers := make(chan kit.Answer, n)
		for range n {
			go func() { answers <- e.Call(f.Key, "POST", "/plan-drafts/"+d.ID+"/apply", nil) }()
		}
		for range n {
			a := <-answers
			if !a.OK && !(a.Status == 409 && strings.Contains(a.Message(), "applied already")) {
				t.Errorf("a racing apply: %d %s", a.Status, a.Message())
			}
		}
		var planned struct{ Total int }
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/sessions?status=planned&from="+d.WeekStart, nil)).Into(t, &planned)
		if planned.Total != len(d.Plan.Sessions) {
			t.Errorf("%d applies planned %d sessions; the draft has %d", n, planned.Total, len(d.Plan.Sessions))
		}
	})
}

package sessions_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// localToday is today in the studio's default zone, as the lane counts days.
func localToday() string {
	loc, _ := domain.LoadZone(domain.DefaultTimeZone)
	return time.Now().In(loc).Format(time.DateOnly)
}

// mondayOf is the Monday of date's week.
func mondayOf(date string) string {
	d, _ := time.Parse(time.DateOnly, date)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)).Format(time.DateOnly)
}

func exerciseName(id string) string {
	e, _ := exercises.Get(id)
	return e.Name
}

type loggedAnswer struct {
	Session       domain.Session `json:"session"`
	AlreadyLogged bool           `json:"alreadyLogged"`
	PRs           []struct {
		BenchmarkID  string   `json:"benchmarkId"`
		Name         string   `json:"name"`
		ExerciseID   string   `json:"exerciseId"`
		E1RMKg       float64  `json:"e1rmKg"`
		LoadKg       float64  `json:"loadKg"`
		Reps         int      `json:"reps"`
		PreviousBest *float64 `json:"previousBest"`
	} `json:"prs"`
}

func TestProgramStructureAndAssignment(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("struct")
		k := f.Key
		var tmpl domain.ProgramTemplate
		e.OK(201, e.Call(k, "POST", "/program-templates", map[string]any{"name": "Base and build", "phases": kit.TwoPhases()})).Into(t, &tmpl)
		if tmpl.Weeks == nil || *tmpl.Weeks != 2 || tmpl.Structure == nil || len(tmpl.Structure.Phases) != 2 {
			t.Fatalf("created %+v", tmpl)
		}
		day := tmpl.Structure.Phases[0].Weeks[0].Days[0]
		if day.Sport != "strength" || day.Exercises[0].Name != exerciseName("back-squat") || *day.Exercises[0].Target.PercentRM != 75 || tmpl.Structure.Phases[0].Weeks[0].Days[2].Sport != "running" {
			t.Fatalf("day = %+v", day)
		}

		// Every bad bound is named where it is.
		bad := kit.TwoPhases()
		bad[0]["weeks"].([]map[string]any)[0]["days"].([]map[string]any)[0]["exercises"] = []any{map[string]any{"exerciseId": "moon-squat"}, map[string]any{"exerciseId": "exr_00000000000000000000000000"}}
		bad[1]["weeks"].([]map[string]any)[0]["days"].([]map[string]any)[1]["weekday"] = 8
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", "/program-templates", map[string]any{"name": "Bad", "phases": bad}))
		if !slices.Contains(a.Fields(), "phases[1].weeks[0].days[1].weekday") {
			t.Errorf("weekday 8: %s", a.Raw)
		}
		bad[1]["weeks"].([]map[string]any)[0]["days"].([]map[string]any)[1]["weekday"] = 6
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/program-templates", map[string]any{"name": "Bad", "phases": bad}))
		if !slices.Equal(a.Fields(), []string{"phases[0].weeks[0].days[0].exercises[0].exerciseId", "phases[0].weeks[0].days[0].exercises[1].exerciseId"}) ||
			!strings.Contains(a.Message(), "moon-squat") {
			t.Errorf("unknown exercises: %s", a.Raw)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/program-templates", map[string]any{"name": "Bad", "weeks": 3, "phases": kit.TwoPhases()}))
		if !slices.Equal(a.Fields(), []string{"weeks"}) {
			t.Errorf("weeks disagreeing: %s", a.Raw)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/program-templates", map[string]any{"name": "Bad", "phases": []any{}}))
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/program-templates", map[string]any{"name": "Bad", "phases": []any{map[string]any{"name": "Empty", "weeks": []any{}}}}))
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", "/program-templates", map[string]any{"name": "Bad", "phases": []any{map[string]any{"name": "P", "weeks": []any{map[string]any{"days": []any{map[string]any{"title": "x", "exercises": []any{map[string]any{"exerciseId": "back-squat", "sets": 0}}}}}}}}}))
		if !slices.Contains(a.Fields(), "phases[0].weeks[0].days[0].exercises[0].sets") {
			t.Errorf("sets 0: %s", a.Raw)
		}

		// The list summarises; one template has the whole of it.
		var templates kit.List[struct {
			ID        string
			Structure *struct{ Weeks, Sessions int }
		}]
		e.OK(200, e.Call(k, "GET", "/program-templates", nil)).Into(t, &templates)
		for _, row := range templates.Items {
			if row.ID == tmpl.ID && (row.Structure == nil || row.Structure.Weeks != 2 || row.Structure.Sessions != 5) {
				t.Errorf("list row %+v", row)
			}
			if row.ID == f.Template.ID && row.Structure != nil {
				t.Errorf("a template without structure summarised as %+v", row.Structure)
			}
		}
		if raw := e.Call(k, "GET", "/program-templates", nil).Raw; strings.Contains(raw, "percent1RM") {
			t.Error("the list carries planned exercises")
		}
		var got domain.ProgramTemplate
		e.OK(200, e.Call(k, "GET", "/program-templates/"+tmpl.ID, nil)).Into(t, &got)
		if got.Structure == nil || got.Structure.Phases[1].Weeks[0].Days[1].Title != "Long run" {
			t.Fatalf("GET template = %+v", got)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/program-templates/ptm_00000000000000000000000000", nil))

		// PUT replaces the structure of the plain template.
		e.OK(200, e.Call(k, "PUT", "/program-templates/"+f.Template.ID+"/structure", map[string]any{"phases": kit.TwoPhases()[:1]})).Into(t, &got)
		if *got.Weeks != 1 || len(got.Structure.Phases) != 1 {
			t.Fatalf("PUT structure = %+v", got)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "PUT", "/program-templates/"+f.Template.ID+"/structure", map[string]any{"phases": []any{}}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "PUT", "/program-templates/ptm_00000000000000000000000000/structure", map[string]any{"phases": kit.TwoPhases()}))

		// A studio whose weeks start on Monday (the Sunday weeks are week_test.go's).
		e.OK(200, e.Call(k, "PATCH", "/studio/settings", map[string]any{"weekStartsOn": "monday"}))
		// Assigned from this week's Monday: week 1 Mon/Wed/Fri, week 2 Mon and Sat.
		monday := mondayOf(localToday())
		want := []string{monday, kit.AddDays(monday, 2), kit.AddDays(monday, 4), kit.AddDays(monday, 7), kit.AddDays(monday, 12)}
		var assigned struct {
			domain.Program
			SessionsPlanned int
			FirstSessionOn  *string
			LastSessionOn   *string
			SessionsRemoved int
		}
		tp := "/trainees/" + f.Trainee.ID
		e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": tmpl.ID, "startsOn": monday, "replaceExisting": true})).Into(t, &assigned)
		if assigned.SessionsPlanned != 5 || *assigned.FirstSessionOn != want[0] || *assigned.LastSessionOn != want[4] || assigned.ID == "" {
			t.Fatalf("assigned %+v, want 5 sessions %s to %s", assigned, want[0], want[4])
		}
		var rows kit.List[map[string]any]
		e.OK(200, e.Call(k, "GET", tp+"/sessions?status=planned&from="+monday+"&to="+kit.AddDays(monday, 13)+"&limit=50", nil)).Into(t, &rows)
		var dates []string
		for _, r := range rows.Items {
			if r["programId"] == assigned.ID {
				if r["source"] != "program" {
					t.Errorf("laid-out session %v", r)
				}
				dates = append(dates, r["date"].(string))
			}
		}
		slices.Sort(dates)
		if !slices.Equal(dates, want) {
			t.Fatalf("laid out on %v, want %v", dates, want)
		}

		// The active program: week 1 of Base, this week's sessions.
		var active struct {
			Program  *domain.Program
			Position *struct {
				State, PhaseName, WeekStart string
				Week, Weeks, Phase          int
			}
			ThisWeek []map[string]any
			Counts   map[string]int
		}
		e.OK(200, e.Call(k, "GET", tp+"/programs/active", nil)).Into(t, &active)
		if active.Program == nil || active.Program.ID != assigned.ID || active.Position == nil || active.Position.State != "running" ||
			active.Position.Week != 1 || active.Position.Weeks != 2 || active.Position.PhaseName != "Base" || active.Position.WeekStart != monday ||
			active.Counts["planned"] != 5 {
			t.Fatalf("active = %+v %+v", active.Program, active.Position)
		}
		// This week: the program's 3 plus the fixture's planned session today.
		if len(active.ThisWeek) != 4 {
			t.Fatalf("this week has %d sessions: %v", len(active.ThisWeek), active.ThisWeek)
		}

		// Replacing it removes its planned sessions from today on.
		future := 0
		for _, d := range want {
			if d >= localToday() {
				future++
			}
		}
		e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Template.ID, "startsOn": kit.AddDays(monday, 7), "replaceExisting": true})).Into(t, &assigned)
		if assigned.SessionsRemoved != future || assigned.SessionsPlanned != 3 || *assigned.FirstSessionOn != kit.AddDays(monday, 7) {
			t.Fatalf("replacing: %+v, want %d removed", assigned, future)
		}
		e.OK(200, e.Call(k, "GET", tp+"/programs/active", nil)).Into(t, &active)
		if active.Program.ID != assigned.ID || active.Position.State != "upcoming" || active.Counts["planned"] != 3 {
			t.Fatalf("active after replacing = %+v %+v %v", active.Program, active.Position, active.Counts)
		}
		// Without an active program the answer says so with a null program.
		var other domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "No", "lastName": "Program", "phone": "054-765-4321"})).Into(t, &other)
		e.OK(200, e.Call(k, "GET", "/trainees/"+other.ID+"/programs/active", nil)).Into(t, &active)
		if active.Program != nil || active.Position != nil {
			t.Fatalf("no program: %+v", active)
		}
		if n := len(e.Notifications(f.Studio.ID)); n != 0 {
			t.Errorf("the outbox holds %d notifications", n)
		}
	})
}

func TestLogWorkoutAndPRs(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("log")
		k, tp := f.Key, "/trainees/"+f.Trainee.ID
		day := localToday()
		workout := map[string]any{"date": day, "sport": "Strength", "durationMin": 60, "rpe": 8, "startTime": "07:30", "exercises": []map[string]any{
			{"exerciseId": "back-squat", "sets": append(kit.Sets(5, 100, 3, 110, 1, 120), map[string]any{"reps": 1, "loadKg": 130, "done": false})},
			{"exerciseId": "bench-press", "sets": kit.Sets(8, 60)},
		}}
		var first loggedAnswer
		e.OK(201, e.Call(k, "POST", tp+"/workouts", workout)).Into(t, &first)
		x := first.Session
		// Volume 5×100 + 3×110 + 1×120 + 8×60 = 500 + 330 + 120 + 480 = 1430;
		// the missed 130 single counts for nothing.
		if first.AlreadyLogged || x.Status != "completed" || x.Source != "coach" || x.Sport != "strength" || x.Title != "strength" ||
			x.Totals != (domain.SessionTotals{VolumeKg: 1430, Sets: 4, Reps: 17}) || x.CompletedAt == nil || *x.StartTime != "07:30" {
			t.Fatalf("logged %+v", x)
		}
		// Epley: squat 110 × (1 + 3/30) = 121 beats 100 × (1 + 5/30) = 116.67
		// and the 120 single; bench 60 × (1 + 8/30) = 76. Both are firsts.
		if len(first.PRs) != 2 || first.PRs[0].ExerciseID != "back-squat" || first.PRs[0].E1RMKg != 121 || first.PRs[0].LoadKg != 110 || first.PRs[0].Reps != 3 ||
			first.PRs[0].PreviousBest != nil || first.PRs[0].Name != exerciseName("back-squat")+" 1RM" || first.PRs[1].E1RMKg != 76 {
			t.Fatalf("PRs %+v", first.PRs)
		}

		// The same trainee, date, sport and duration is the same workout.
		again := map[string]any{"date": day, "sport": "strength", "durationMin": 60, "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": kit.Sets(1, 130)}}}
		var repeat loggedAnswer
		e.OK(200, e.Call(k, "POST", tp+"/workouts", again)).Into(t, &repeat)
		if !repeat.AlreadyLogged || repeat.Session.ID != x.ID || len(repeat.PRs) != 0 || repeat.Session.Totals.VolumeKg != 1430 {
			t.Fatalf("repeat = %+v", repeat)
		}
		var rows kit.List[map[string]any]
		e.OK(200, e.Call(k, "GET", tp+"/sessions?status=completed", nil)).Into(t, &rows)
		if rows.Total != 1 {
			t.Fatalf("%d completed sessions after the repeat, want 1", rows.Total)
		}
		if names, _ := rows.Items[0]["exercises"].([]any); len(names) == 0 {
			t.Error("a row does not name its exercises")
		} else if _, isText := names[0].(string); !isText {
			t.Errorf("a row's exercises are %v, not their names", names)
		}
		// Another duration is another workout; an Idempotency-Key replays.
		other := map[string]any{"date": kit.AddDays(day, -1), "sport": "strength", "durationMin": 45, "exercises": []map[string]any{
			{"exerciseId": "back-squat", "sets": kit.Sets(8, 100)}, {"exerciseId": "bench-press", "sets": kit.Sets(5, 60)},
		}}
		var second loggedAnswer
		e.OK(201, e.Call(k, "POST", tp+"/workouts", other, "Idempotency-Key", "log-2")).Into(t, &second)
		// Squat 100 × (1 + 8/30) = 126.67 beats 121; bench 60 × (1 + 5/30) = 70 does not beat 76.
		if len(second.PRs) != 1 || second.PRs[0].E1RMKg != 126.67 || second.PRs[0].PreviousBest == nil || *second.PRs[0].PreviousBest != 121 {
			t.Fatalf("second PRs %+v", second.PRs)
		}
		replay := e.OK(201, e.Call(k, "POST", tp+"/workouts", other, "Idempotency-Key", "log-2"))
		if replay.Header.Get("Idempotent-Replayed") != "true" || !strings.Contains(replay.Raw, second.Session.ID) {
			t.Errorf("the replay answered %s", replay.Raw)
		}
		e.OK(200, e.Call(k, "GET", tp+"/sessions?status=completed", nil)).Into(t, &rows)
		if rows.Total != 2 {
			t.Fatalf("%d completed sessions, want 2", rows.Total)
		}

		// The benchmarks: yesterday's 126.67 is recorded at yesterday's midday,
		// so today's 121 is the latest and 126.67 the best.
		var bms kit.List[struct {
			ID, Name   string
			ExerciseID *string
			Best       struct{ Value float64 }
			Latest     struct{ Value float64 }
			Entries    int
			Recent     []domain.BenchmarkEntry
		}]
		e.OK(200, e.Call(k, "GET", tp+"/benchmarks", nil)).Into(t, &bms)
		found := false
		for _, b := range bms.Items {
			if b.ExerciseID != nil && *b.ExerciseID == "back-squat" {
				found = true
				if b.Best.Value != 126.67 || b.Latest.Value != 121 || b.Entries != 2 || b.Recent[0].Value != 121 || b.Recent[0].Source != "session" || *b.Recent[1].SessionID != second.Session.ID {
					t.Errorf("squat benchmark %+v", b)
				}
			}
		}
		if !found || bms.Total != 3 { // squat, bench and the fixture's pull-ups
			t.Fatalf("benchmarks %+v", bms)
		}

		// Completing the fixture's planned session keeps its targets.
		complete := map[string]any{"sessionId": f.Session.ID, "durationMin": 50, "exercises": []map[string]any{
			{"exerciseId": "back-squat", "sets": kit.Sets(5, 80, 5, 80, 5, 80)}, {"exerciseId": "push-up", "sets": []map[string]any{{"reps": 20}}},
		}}
		var done loggedAnswer
		e.OK(201, e.Call(k, "POST", tp+"/workouts", complete)).Into(t, &done)
		s := done.Session
		if s.ID != f.Session.ID || s.Status != "completed" || s.Title != f.Session.Title || *s.DurationMin != 50 || len(s.Exercises) != 2 ||
			*s.Exercises[0].Target.Sets != 3 || len(s.Exercises[0].Sets) != 3 || s.Exercises[1].ExerciseID != "push-up" || s.Totals.VolumeKg != 1200 || s.Totals.Reps != 35 {
			t.Fatalf("completed planned %+v", s)
		}
		if len(done.PRs) != 0 { // 80 × (1 + 5/30) = 93.33 < 126.67
			t.Fatalf("PRs %+v", done.PRs)
		}
		e.OK(200, e.Call(k, "POST", tp+"/workouts", complete)).Into(t, &done)
		if !done.AlreadyLogged || done.Session.ID != f.Session.ID {
			t.Fatalf("completing twice: %+v", done)
		}

		// Bad input.
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"sport": "running", "date": kit.AddDays(day, 2)}, "date"},
			{map[string]any{"durationMin": 30}, "sport"},
			{map[string]any{"sport": "running", "startTime": "7:30"}, "startTime"},
			{map[string]any{"sport": "running", "rpe": 11}, "rpe"},
			{map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "moon-squat", "sets": kit.Sets(5, 100)}}}, "exercises[0].exerciseId"},
			{map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": -1}}}}}, "exercises[0].sets[0].reps"},
			{map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"loadKg": 2000}}}}}, "exercises[0].sets[0].loadKg"},
			{map[string]any{"sport": "strength", "colour": "red"}, "colour"},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/workouts", tc.body))
			if !slices.Contains(a.Fields(), tc.field) {
				t.Errorf("%v: fields %v, want %s: %s", tc.body, a.Fields(), tc.field, a.Message())
			}
		}
		// Another trainee's session of this studio is not this trainee's.
		var mate domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Gym", "lastName": "Mate", "phone": "054-111-2222"})).Into(t, &mate)
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/trainees/"+mate.ID+"/workouts", map[string]any{"sessionId": f.Session.ID}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/workouts", map[string]any{"sessionId": "ses_00000000000000000000000000"}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/trainees/trn_00000000000000000000000000/workouts", map[string]any{"sport": "running"}))
		if n := len(e.Notifications(f.Studio.ID)); n != 0 {
			t.Errorf("the outbox holds %d notifications", n)
		}
	})
}

func TestSessionListAndDetails(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("list")
		k, tp := f.Key, "/trainees/"+f.Trainee.ID
		day := localToday()
		for i := 1; i <= 4; i++ {
			e.OK(201, e.Call(k, "POST", tp+"/sessions", map[string]any{"date": kit.AddDays(day, i), "sport": "running", "durationMin": 30 + i}))
		}
		var page kit.List[map[string]any]
		// By default, what was done: up to today, the planned days ahead
		// left out; status planned (or a later to) lists those.
		e.OK(200, e.Call(k, "GET", tp+"/sessions", nil)).Into(t, &page)
		if page.Total != 1 || page.Items[0]["id"] != f.Session.ID {
			t.Fatalf("the default list = %+v", page)
		}
		e.OK(200, e.Call(k, "GET", tp+"/sessions?from="+kit.AddDays(day, 1), nil)).Into(t, &page)
		if page.Total != 4 {
			t.Fatalf("a from ahead of today = %+v", page)
		}
		e.OK(200, e.Call(k, "GET", tp+"/sessions?status=planned", nil)).Into(t, &page)
		// Soonest first: the next session opens the page.
		if page.Total < 4 || page.Items[0]["date"].(string) > page.Items[len(page.Items)-1]["date"].(string) || page.Items[len(page.Items)-1]["date"] != kit.AddDays(day, 4) {
			t.Fatalf("status planned = %+v", page)
		}
		e.OK(200, e.Call(k, "GET", tp+"/sessions?limit=2&to="+kit.AddDays(day, 4), nil)).Into(t, &page)
		if page.Total != 5 || len(page.Items) != 2 || page.NextOffset == nil || *page.NextOffset != 2 || page.Items[0]["date"] != kit.AddDays(day, 4) || page.Items[1]["date"] != kit.AddDays(day, 3) {
			t.Fatalf("page 1 = %+v", page)
		}
		e.OK(200, e.Call(k, "GET", tp+"/sessions?limit=2&offset=4&to="+kit.AddDays(day, 4), nil)).Into(t, &page)
		if len(page.Items) != 1 || page.NextOffset != nil || page.Items[0]["id"] != f.Session.ID {
			t.Fatalf("last page = %+v", page)
		}
		e.OK(200, e.Call(k, "GET", tp+"/sessions?from="+kit.AddDays(day, 2)+"&to="+kit.AddDays(day, 3), nil)).Into(t, &page)
		if page.Total != 2 {
			t.Fatalf("from..to = %+v", page)
		}
		a := e.Fails(422, "VALIDATION", e.Call(k, "GET", tp+"/sessions?from=2025-01-01&to=2026-01-03", nil))
		if !slices.Equal(a.Fields(), []string{"to"}) || !strings.Contains(a.Message(), "368 days") || !strings.Contains(a.Message(), "366") {
			t.Errorf("a long range: %s", a.Raw)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "GET", tp+"/sessions?from=2026-02-01&to=2026-01-01", nil))
		if !slices.Equal(a.Fields(), []string{"to"}) {
			t.Errorf("a reversed range: %s", a.Raw)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "GET", tp+"/sessions?status=done&from=yesterday", nil))
		if !slices.Equal(a.Fields(), []string{"from", "status"}) {
			t.Errorf("bad status and date: %s", a.Raw)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/trn_00000000000000000000000000/sessions", nil))

		var x domain.Session
		e.OK(200, e.Call(k, "GET", "/sessions/"+f.Session.ID, nil)).Into(t, &x)
		if x.TraineeID != f.Trainee.ID || x.Status != "planned" || len(x.Exercises) != 1 || *x.Exercises[0].Target.LoadKg != 80 || x.Exercises[0].Name != exerciseName("back-squat") {
			t.Fatalf("GET session = %+v", x)
		}
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/sessions/ses_00000000000000000000000000", nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/sessions/"+f.Trainee.ID, nil))

		// Planning: every bad field named.
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"sport": "running"}, "date"},
			{map[string]any{"date": day}, "sport"},
			{map[string]any{"date": "2099-01-01", "sport": "running"}, "date"},
			{map[string]any{"date": day, "sport": "running", "startTime": "25:00"}, "startTime"},
			{map[string]any{"date": day, "sport": "running", "durationMin": 0}, "durationMin"},
			{map[string]any{"date": day, "sport": "strength", "exercises": []map[string]any{{"exerciseId": "back-squat", "rpe": 11}}}, "exercises[0].rpe"},
			{map[string]any{"date": day, "sport": "strength", "exercises": []map[string]any{{"exerciseId": "nope"}}}, "exercises[0].exerciseId"},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", tp+"/sessions", tc.body))
			if !slices.Contains(a.Fields(), tc.field) {
				t.Errorf("%v: fields %v, want %s: %s", tc.body, a.Fields(), tc.field, a.Message())
			}
		}

		// PATCH: skipped, then back to planned; a completed one stays completed.
		e.OK(200, e.Call(k, "PATCH", "/sessions/"+f.Session.ID, map[string]any{"status": "skipped", "notes": "travel", "rpe": 3})).Into(t, &x)
		if x.Status != "skipped" || *x.Notes != "travel" || *x.RPE != 3 {
			t.Fatalf("PATCH = %+v", x)
		}
		e.OK(200, e.Call(k, "PATCH", "/sessions/"+f.Session.ID, map[string]any{"status": "planned", "notes": nil})).Into(t, &x)
		if x.Status != "planned" || x.Notes != nil || *x.RPE != 3 {
			t.Fatalf("PATCH back = %+v", x)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "PATCH", "/sessions/"+f.Session.ID, map[string]any{"status": "completed"}))
		var logged loggedAnswer
		e.OK(201, e.Call(k, "POST", tp+"/workouts", map[string]any{"sport": "yoga", "durationMin": 20})).Into(t, &logged)
		e.Fails(409, "CONFLICT", e.Call(k, "PATCH", "/sessions/"+logged.Session.ID, map[string]any{"status": "missed"}))
		e.OK(200, e.Call(k, "PATCH", "/sessions/"+logged.Session.ID, map[string]any{"feedback": "loved it"}))
	})
}

func TestModifySession(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("modify")
		k := f.Key
		path := "/sessions/" + f.Session.ID + "/modify"
		var m struct {
			Session   domain.Session
			Operation string
			Changed   int
			Summary   string
		}
		// 3 × 5 @ 80 kg; 40% off: 3 × 0.6 = 1.8 → 2 sets.
		e.OK(200, e.Call(k, "POST", path, map[string]any{"operation": "reduce_volume", "percent": 40})).Into(t, &m)
		if tg := m.Session.Exercises[0].Target; m.Changed != 1 || *tg.Sets != 2 || *tg.Reps != 5 || m.Summary == "" {
			t.Fatalf("reduce_volume: %+v", m)
		}
		// 80 × 1.1 = 88 kg.
		e.OK(200, e.Call(k, "POST", path, map[string]any{"operation": "raise_intensity", "loadPercent": 10})).Into(t, &m)
		if *m.Session.Exercises[0].Target.LoadKg != 88 {
			t.Fatalf("raise_intensity: %+v", m.Session.Exercises[0].Target)
		}
		// No RPE target: an effort raise alone changes nothing.
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", path, map[string]any{"operation": "raise_intensity", "rpeIncrease": 1}))
		if !strings.Contains(a.Message(), "changes nothing") {
			t.Errorf("nothing to raise: %s", a.Raw)
		}
		// Swap for the catalogue's first alternative, targets kept.
		alt := exercises.Alternatives("back-squat")[0]
		e.OK(200, e.Call(k, "POST", path, map[string]any{"operation": "swap_exercise", "exerciseId": "back-squat"})).Into(t, &m)
		if ex := m.Session.Exercises[0]; ex.ExerciseID != alt.ID || ex.Name != alt.Name || *ex.Target.Sets != 2 || *ex.Target.LoadKg != 88 {
			t.Fatalf("swap: %+v", ex)
		}
		e.OK(200, e.Call(k, "POST", path, map[string]any{"operation": "swap_exercise", "exerciseId": alt.ID, "replacementId": "leg-press"})).Into(t, &m)
		if m.Session.Exercises[0].ExerciseID != "leg-press" {
			t.Fatalf("swap to a given exercise: %+v", m.Session.Exercises[0])
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "POST", path, map[string]any{"operation": "swap_exercise", "exerciseId": "bench-press"}))
		if !slices.Equal(a.Fields(), []string{"exerciseId"}) || !strings.Contains(a.Message(), "leg-press") {
			t.Errorf("swapping an exercise the session lacks: %s", a.Raw)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "POST", path, map[string]any{"operation": "swap_exercise", "exerciseId": "leg-press", "replacementId": "moon-squat"}))
		// Reschedule.
		next := kit.AddDays(localToday(), 3)
		e.OK(200, e.Call(k, "POST", path, map[string]any{"operation": "reschedule", "date": next, "startTime": "18:00"})).Into(t, &m)
		if m.Session.Date != next || *m.Session.StartTime != "18:00" || m.Session.Status != "planned" {
			t.Fatalf("reschedule: %+v", m.Session)
		}
		// Each operation's parameter is required; the operation is one of four.
		for body, field := range map[string]string{
			`{"operation":"reduce_volume"}`:              "percent",
			`{"operation":"reduce_volume","percent":95}`: "percent",
			`{"operation":"raise_intensity"}`:            "loadPercent",
			`{"operation":"swap_exercise"}`:              "exerciseId",
			`{"operation":"reschedule"}`:                 "date",
			`{"operation":"delete"}`:                     "operation",
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", path, body))
			if !slices.Contains(a.Fields(), field) {
				t.Errorf("%s: fields %v, want %s", body, a.Fields(), field)
			}
		}
		// A completed session is history.
		var logged loggedAnswer
		e.OK(201, e.Call(k, "POST", "/trainees/"+f.Trainee.ID+"/workouts", map[string]any{"sport": "running", "durationMin": 30})).Into(t, &logged)
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/sessions/"+logged.Session.ID+"/modify", map[string]any{"operation": "reschedule", "date": next}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/sessions/ses_00000000000000000000000000/modify", map[string]any{"operation": "reschedule", "date": next}))
		var stored domain.Session
		e.OK(200, e.Call(k, "GET", "/sessions/"+f.Session.ID, nil)).Into(t, &stored)
		raw, _ := json.Marshal(stored.Exercises)
		if stored.Date != next || !strings.Contains(string(raw), "leg-press") {
			t.Fatalf("stored after the modifications: %s on %s", raw, stored.Date)
		}
	})
}

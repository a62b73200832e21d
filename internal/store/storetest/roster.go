package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// The roster triage's facts (store.Roster). Rows of the other areas are
// written with plain SQL, so these tests read exactly the columns the
// schema defines whatever those areas' code does.

// insertRow inserts one row of table in studio studioID with an id of its own.
func insertRow(t *testing.T, st store.Store, table, studioID string, cols map[string]any) {
	t.Helper()
	names := []string{"studio_id"}
	values := []any{studioID}
	for k, v := range cols {
		names = append(names, k)
		values = append(values, v)
	}
	q := `INSERT INTO ` + table + ` (` + strings.Join(names, ", ") + `) VALUES (` + strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ") + `)`
	if _, err := st.DB().ExecContext(ctx, st.Rebind(q), values...); err != nil {
		t.Fatalf("insert into %s: %v", table, err)
	}
}

func msOf(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

// rosterWorld is one studio's roster rows: Avi Alon (coach 1) meets every
// fact, Bat Barak (coach 2) few, Chen Cohen is paused.
type rosterWorld struct {
	studio         domain.Studio
	coach1, coach2 domain.Coach
	avi, bat, chen domain.Trainee
}

func seedRoster(t *testing.T, st store.Store) rosterWorld {
	t.Helper()
	w := rosterWorld{studio: newStudio(t, st)}
	sid := w.studio.ID
	ss := st.Studio(sid)
	w.coach1, w.coach2 = domain.Coach{Name: "Coach One", Active: true}, domain.Coach{Name: "Coach Two", Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &w.coach1))
	must(t, "CreateCoach", ss.CreateCoach(ctx, &w.coach2))
	mk := func(first, last, status string, coaches ...string) domain.Trainee {
		tr := domain.Trainee{FirstName: first, LastName: last, Phone: newPhone(), Status: status, CoachIDs: coaches}
		must(t, "CreateTrainee", ss.CreateTrainee(ctx, &tr))
		return tr
	}
	// Created out of name order: the facts come by last name.
	w.bat = mk("Bat", "Barak", domain.TraineeActive, w.coach2.ID)
	w.avi = mk("Avi", "Alon", domain.TraineeActive, w.coach1.ID, w.coach2.ID)
	w.chen = mk("Chen", "Cohen", domain.TraineePaused, w.coach1.ID)

	product := domain.Product{Name: "Monthly", Currency: "ILS", Active: true}
	must(t, "CreateProduct", ss.CreateProduct(ctx, &product))
	tmpl := domain.ProgramTemplate{Name: "Strength"}
	must(t, "CreateProgramTemplate", ss.CreateProgramTemplate(ctx, &tmpl))
	form := domain.FormTemplate{Name: "Intake", Fields: []domain.FormField{{Key: "q", Label: "Q", Type: "text"}}}
	must(t, "CreateFormTemplate", ss.CreateFormTemplate(ctx, &form))
	created := msOf("2026-01-01T00:00:00Z")

	sub := func(tr domain.Trainee, endsOn any, state string) {
		insertRow(t, st, "subscriptions", sid, map[string]any{"id": ids.New(ids.Subscription), "trainee_id": tr.ID, "product_id": product.ID,
			"started_on": "2026-01-01", "ends_on": endsOn, "currency": "ILS", "state": state, "created_at": created})
	}
	program := func(tr domain.Trainee, status string) {
		insertRow(t, st, "programs", sid, map[string]any{"id": ids.New(ids.Program), "trainee_id": tr.ID, "template_id": tmpl.ID,
			"name": "Strength", "starts_on": "2026-11-01", "status": status, "created_at": created})
	}
	assignment := func(tr domain.Trainee, dueAt any, status string) {
		insertRow(t, st, "form_assignments", sid, map[string]any{"id": ids.New(ids.FormAssignment), "trainee_id": tr.ID, "form_template_id": form.ID,
			"due_at": dueAt, "status": status, "created_at": created})
	}
	n := 0
	session := func(tr domain.Trainee, date, status string) {
		n++ // a distinct duration each: completed sessions are unique per day, sport and duration
		insertRow(t, st, "sessions", sid, map[string]any{"id": ids.New(ids.Session), "trainee_id": tr.ID, "date": date, "sport": "strength",
			"title": "S", "status": status, "source": "program", "duration_min": n, "exercises": "[]", "volume_kg": 0, "sets": 0, "reps": 0,
			"seconds": 0, "metres": 0, "created_at": created, "updated_at": created})
	}
	checkIn := func(tr domain.Trainee, day string, readiness any) {
		insertRow(t, st, "checkins", sid, map[string]any{"id": ids.New(ids.CheckIn), "trainee_id": tr.ID, "day": day, "readiness": readiness,
			"sore_areas": "[]", "created_at": created, "updated_at": created})
	}
	injury := func(tr domain.Trainee, area, status, onset string) {
		insertRow(t, st, "injuries", sid, map[string]any{"id": ids.New(ids.Injury), "trainee_id": tr.ID, "area": area, "side": "left",
			"severity": 3, "status": status, "onset_on": onset, "affected_exercises": "[]", "created_at": created, "updated_at": created})
	}
	goal := func(tr domain.Trainee, kind, measure string, target any, status string, createdAt int64) {
		insertRow(t, st, "goals", sid, map[string]any{"id": ids.New(ids.Goal), "trainee_id": tr.ID, "title": "G", "kind": kind, "measure": measure,
			"target_value": target, "status": status, "created_at": createdAt, "updated_at": createdAt})
	}
	weighIn := func(tr domain.Trainee, kg float64, at string) {
		insertRow(t, st, "weights", sid, map[string]any{"id": ids.New(ids.Weight), "trainee_id": tr.ID, "weight_kg": kg, "recorded_at": msOf(at), "created_at": msOf(at)})
	}
	task := func(tr *domain.Trainee, dueAt any, status string) {
		var client any
		if tr != nil {
			client = tr.ID
		}
		insertRow(t, st, "tasks", sid, map[string]any{"id": ids.New(ids.Task), "title": "T", "client_id": client, "due_at": dueAt, "priority": 2,
			"status": status, "source": "api", "created_at": created, "updated_at": created})
	}

	for _, tr := range []domain.Trainee{w.avi, w.chen} {
		// Two active plans, the later one ending 5 Dec; a cancelled one later still.
		sub(tr, "2026-12-05", "active")
		sub(tr, "2026-11-01", "active")
		sub(tr, "2027-06-01", "cancelled")
		program(tr, "active")
		program(tr, "replaced")
		// Forms: one pending past due; pending later, completed, and with no due time do not count.
		assignment(tr, msOf("2026-12-01T08:00:00Z"), "pending")
		assignment(tr, msOf("2026-12-05T08:00:00Z"), "pending")
		assignment(tr, msOf("2026-11-01T08:00:00Z"), "completed")
		assignment(tr, nil, "pending")
		// Sessions: the latest completed 25 Nov; this week (from Mon 30 Nov) 30 Nov missed and
		// 1 Dec still planned count; today's planned, a skipped one and last week's missed do not.
		session(tr, "2026-11-20", domain.SessionCompleted)
		session(tr, "2026-11-25", domain.SessionCompleted)
		session(tr, "2026-11-29", domain.SessionMissed)
		session(tr, "2026-11-30", domain.SessionMissed)
		session(tr, "2026-11-30", domain.SessionSkipped)
		session(tr, "2026-12-01", domain.SessionPlanned)
		session(tr, "2026-12-02", domain.SessionPlanned)
		// Check-ins: the last 4 days (29 Nov – 2 Dec) with a readiness, newest 3 kept.
		checkIn(tr, "2026-11-27", 1)
		checkIn(tr, "2026-11-28", nil)
		checkIn(tr, "2026-11-29", 1)
		checkIn(tr, "2026-11-30", 2)
		checkIn(tr, "2026-12-01", 3)
		checkIn(tr, "2026-12-02", 4)
		checkIn(tr, "2026-12-03", 9) // tomorrow: not read
		injury(tr, "knee", domain.InjuryActive, "2026-11-20")
		injury(tr, "wrist", domain.InjuryActive, "2026-11-25")
		injury(tr, "ankle", domain.InjuryResolved, "2026-10-01")
		// Goal weight: the newest active weightKg goal (68).
		goal(tr, domain.GoalMeasurement, "weightKg", 70, domain.GoalActive, msOf("2026-02-01T00:00:00Z"))
		goal(tr, domain.GoalMeasurement, "weightKg", 68, domain.GoalActive, msOf("2026-03-01T00:00:00Z"))
		goal(tr, domain.GoalMeasurement, "weightKg", 50, domain.GoalAbandoned, msOf("2026-04-01T00:00:00Z"))
		goal(tr, domain.GoalMeasurement, "waistCm", 80, domain.GoalActive, msOf("2026-04-01T00:00:00Z"))
		// Weigh-ins of the last 28 days (and a day): 10 Nov and 2 Dec; 1 Oct is too old, 3 Dec after now.
		weighIn(tr, 75, "2026-10-01T08:00:00Z")
		weighIn(tr, 74, "2026-11-10T08:00:00Z")
		weighIn(tr, 76, "2026-12-02T07:00:00Z")
		weighIn(tr, 77, "2026-12-03T07:00:00Z")
		// Tasks: two open and overdue; done, later, snoozed ones do not count.
		task(&tr, msOf("2026-11-30T08:00:00Z"), domain.TaskOpen)
		task(&tr, msOf("2026-12-02T09:00:00Z"), domain.TaskOpen)
		task(&tr, msOf("2026-11-30T08:00:00Z"), domain.TaskDone)
		task(&tr, msOf("2026-11-30T08:00:00Z"), domain.TaskSnoozed)
		task(&tr, msOf("2026-12-09T08:00:00Z"), domain.TaskOpen)
	}
	task(nil, msOf("2026-11-30T08:00:00Z"), domain.TaskOpen) // about no trainee

	// Bat: an open-ended plan beside one that ended, weigh-ins but no goal
	// weight, a text goal, check-ins, nothing else.
	sub(w.bat, nil, "active")
	sub(w.bat, "2026-11-01", "active")
	weighIn(w.bat, 80, "2026-11-30T08:00:00Z")
	// One low day of the last 4: not a run, so no readiness is read.
	checkIn(w.bat, "2026-12-01", 2)
	checkIn(w.bat, "2026-12-02", 8)
	goal(w.bat, domain.GoalText, "", nil, domain.GoalActive, created)
	return w
}

var rosterQuery = store.RosterQuery{Today: "2026-12-02", WeekStart: "2026-11-30", Now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}

func testRoster(t *testing.T, st store.Store) {
	w := seedRoster(t, st)
	other := seedRoster(t, st) // another studio's roster: none of it is read
	ss := st.Studio(w.studio.ID)

	facts, err := ss.RosterFacts(ctx, rosterQuery)
	must(t, "RosterFacts", err)
	if len(facts) != 2 || facts[0].TraineeID != w.avi.ID || facts[1].TraineeID != w.bat.ID {
		t.Fatalf("RosterFacts = %d trainees %v; want Avi Alon, Bat Barak (active only, by last name)", len(facts), collect(facts, func(f domain.RosterFacts) string { return f.LastName }))
	}
	a := facts[0]
	wantCoaches := []string{w.coach1.ID, w.coach2.ID}
	slices.Sort(wantCoaches)
	if a.FirstName != "Avi" || a.LastName != "Alon" || !slices.Equal(a.CoachIDs, wantCoaches) {
		t.Fatalf("names and coaches = %+v", a)
	}
	if a.PlanEndsOn == nil || *a.PlanEndsOn != "2026-12-05" {
		t.Fatalf("PlanEndsOn = %v; want 2026-12-05", a.PlanEndsOn)
	}
	if a.FormsPastDue != 1 || !a.ActiveProgram || a.OverdueTasks != 2 || a.MissedThisWeek != 2 {
		t.Fatalf("forms %d, program %v, tasks %d, missed %d; want 1, true, 2, 2", a.FormsPastDue, a.ActiveProgram, a.OverdueTasks, a.MissedThisWeek)
	}
	if a.LastCompletedOn == nil || *a.LastCompletedOn != "2026-11-25" {
		t.Fatalf("LastCompletedOn = %v", a.LastCompletedOn)
	}
	wantReady := []domain.DayValue{{Day: "2026-12-02", Value: 4}, {Day: "2026-12-01", Value: 3}, {Day: "2026-11-30", Value: 2}}
	if !slices.Equal(a.Readiness, wantReady) {
		t.Fatalf("Readiness = %v; want %v", a.Readiness, wantReady)
	}
	if len(a.ActiveInjuries) != 2 || a.ActiveInjuries[0].Area != "wrist" || a.ActiveInjuries[1].Area != "knee" ||
		a.ActiveInjuries[1].Severity != 3 || a.ActiveInjuries[1].OnsetOn != "2026-11-20" || a.ActiveInjuries[1].TraineeID != w.avi.ID {
		t.Fatalf("ActiveInjuries = %+v", a.ActiveInjuries)
	}
	if a.WeightGoalKg == nil || *a.WeightGoalKg != 68 {
		t.Fatalf("WeightGoalKg = %v; want 68", a.WeightGoalKg)
	}
	// 10 November is week 0 (today−27…−21), 2 December week 3; 1 October is
	// older and 3 December after now.
	if want := [4]domain.WeekWeight{{SumKg: 74, Count: 1}, {}, {}, {SumKg: 76, Count: 1}}; a.WeightWeeks != want {
		t.Fatalf("WeightWeeks = %+v; want %+v", a.WeightWeeks, want)
	}
	// Weeks follow the studio's midnights: 25 Nov 22:30 UTC is 26 Nov in
	// Israel, today−6 (the last week), and today−7 in UTC (the week before).
	insertRow(t, st, "weights", w.studio.ID, map[string]any{"id": ids.New(ids.Weight), "trainee_id": w.avi.ID, "weight_kg": 75.0,
		"recorded_at": msOf("2026-11-25T22:30:00Z"), "created_at": msOf("2026-11-25T22:30:00Z")})
	israel, _ := domain.LoadZone("Asia/Jerusalem")
	for _, c := range []struct {
		zone *time.Location
		want [4]domain.WeekWeight
	}{
		{time.UTC, [4]domain.WeekWeight{{SumKg: 74, Count: 1}, {}, {SumKg: 75, Count: 1}, {SumKg: 76, Count: 1}}},
		{israel, [4]domain.WeekWeight{{SumKg: 74, Count: 1}, {}, {}, {SumKg: 151, Count: 2}}},
	} {
		q := rosterQuery
		q.Zone = c.zone
		facts, err := ss.RosterFacts(ctx, q)
		if err != nil || facts[0].TraineeID != w.avi.ID || facts[0].WeightWeeks != c.want {
			t.Fatalf("WeightWeeks in %v = %+v, %v; want %+v", c.zone, facts[0].WeightWeeks, err, c.want)
		}
	}

	b := facts[1]
	if b.PlanEndsOn != nil || b.ActiveProgram || b.LastCompletedOn != nil || b.MissedThisWeek != 0 || b.FormsPastDue != 0 || b.OverdueTasks != 0 ||
		len(b.Readiness) != 0 || len(b.ActiveInjuries) != 0 || b.WeightGoalKg != nil || b.WeightWeeks != [4]domain.WeekWeight{} || !slices.Equal(b.CoachIDs, []string{w.coach2.ID}) {
		t.Fatalf("Bat's facts = %+v; want an open-ended plan (nil) and nothing else", b)
	}

	// A latest completed session months old counts as much as a recent
	// one (the triage's idle trainees are those); a later planned one and
	// another studio's later completed one do not.
	for _, x := range []struct {
		studio, trainee, date, status string
	}{
		{w.studio.ID, w.bat.ID, "2026-09-01", domain.SessionCompleted},
		{w.studio.ID, w.bat.ID, "2026-08-01", domain.SessionCompleted},
		{w.studio.ID, w.bat.ID, "2026-12-05", domain.SessionPlanned},
		{other.studio.ID, other.bat.ID, "2026-11-30", domain.SessionCompleted},
	} {
		insertRow(t, st, "sessions", x.studio, map[string]any{"id": ids.New(ids.Session), "trainee_id": x.trainee, "date": x.date, "sport": "run",
			"title": "S", "status": x.status, "source": "coach", "exercises": "[]", "volume_kg": 0, "sets": 0, "reps": 0,
			"seconds": 0, "metres": 0, "created_at": msOf("2026-01-01T00:00:00Z"), "updated_at": msOf("2026-01-01T00:00:00Z")})
	}
	for _, coach := range []string{"", w.coach2.ID} {
		q := rosterQuery
		q.CoachID = coach
		f, err := ss.RosterFacts(ctx, q)
		if err != nil || len(f) != 2 || f[1].TraineeID != w.bat.ID || f[1].LastCompletedOn == nil || *f[1].LastCompletedOn != "2026-09-01" ||
			f[0].LastCompletedOn == nil || *f[0].LastCompletedOn != "2026-11-25" {
			t.Fatalf("coach %q: latest completed sessions of %d facts, %v; want Avi's of 2026-11-25, Bat's of 2026-09-01", coach, len(f), err)
		}
		if f[0].PlanEndsOn == nil || *f[0].PlanEndsOn != "2026-12-05" || f[1].PlanEndsOn != nil {
			t.Fatalf("coach %q: plans end %v, %v; want Avi's 2026-12-05, Bat's open-ended", coach, f[0].PlanEndsOn, f[1].PlanEndsOn)
		}
	}
	// Plans' ends of trainees whose rows interleave, each its own; an
	// open-ended plan read after a dated one makes the trainee's open-ended.
	{
		sid := newStudio(t, st).ID
		pss := st.Studio(sid)
		product := domain.Product{Name: "Monthly", Currency: "ILS", Active: true}
		must(t, "CreateProduct", pss.CreateProduct(ctx, &product))
		a, b, c := newTrainee(t, pss, "Plan", "A"), newTrainee(t, pss, "Plan", "B"), newTrainee(t, pss, "Plan", "C")
		for _, p := range []struct {
			tr   domain.Trainee
			ends any
		}{{a, "2026-12-20"}, {b, "2026-12-10"}, {c, "2026-12-30"}, {a, "2026-12-15"}, {b, "2026-12-12"}, {c, nil}} {
			insertRow(t, st, "subscriptions", sid, map[string]any{"id": ids.New(ids.Subscription), "trainee_id": p.tr.ID, "product_id": product.ID,
				"started_on": "2026-11-01", "ends_on": p.ends, "currency": "ILS", "state": "active", "created_at": msOf("2026-11-01T00:00:00Z")})
		}
		f, err := pss.RosterFacts(ctx, rosterQuery)
		must(t, "RosterFacts", err)
		if len(f) != 3 || f[0].PlanEndsOn == nil || *f[0].PlanEndsOn != "2026-12-20" || f[1].PlanEndsOn == nil || *f[1].PlanEndsOn != "2026-12-12" || f[2].PlanEndsOn != nil {
			t.Fatalf("plans end %v; want 2026-12-20, 2026-12-12, open-ended", collect(f, func(f domain.RosterFacts) string { return deref(f.PlanEndsOn) }))
		}
	}

	// By coach: coach 1 has Avi (Chen is paused), coach 2 both.
	if f, err := ss.RosterFacts(ctx, store.RosterQuery{Today: rosterQuery.Today, WeekStart: rosterQuery.WeekStart, Now: rosterQuery.Now, CoachID: w.coach1.ID}); err != nil ||
		len(f) != 1 || f[0].TraineeID != w.avi.ID || f[0].FormsPastDue != 1 {
		t.Fatalf("coach 1: %d facts, %v", len(f), err)
	}
	q := rosterQuery
	q.CoachID = w.coach2.ID
	if f, err := ss.RosterFacts(ctx, q); err != nil || len(f) != 2 {
		t.Fatalf("coach 2: %d facts, %v", len(f), err)
	}
	// Another studio's coach names no one here.
	q.CoachID = other.coach1.ID
	if f, err := ss.RosterFacts(ctx, q); err != nil || len(f) != 0 {
		t.Fatalf("another studio's coach: %d facts, %v", len(f), err)
	}
	// A studio with no trainees answers an empty list.
	if f, err := st.Studio(newStudio(t, st).ID).RosterFacts(ctx, rosterQuery); err != nil || f == nil || len(f) != 0 {
		t.Fatalf("empty studio: %v, %v", f, err)
	}
}

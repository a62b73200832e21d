package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// Workout sessions and benchmarks (store.Sessions, store.Benchmarks).

func testSessions(t *testing.T, st store.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"RoundTrip", testSessionRoundTrip},
		{"LoggedRule", testSessionLoggedRule},
		{"List", testSessionList},
		{"DeletePlanned", testSessionDeletePlanned},
		{"Tenancy", testSessionTenancy},
		{"Benchmarks", testBenchmarks},
		{"TemplateStructure", testTemplateStructure},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

func workout(traineeID, date, sport string, minutes int, status string) *domain.Session {
	reps, kg := 5, 100.0
	x := &domain.Session{
		TraineeID: traineeID, Date: date, Sport: sport, Title: sport + " " + date, Status: status, Source: domain.SessionFromCoach,
		Exercises: []domain.SessionExercise{{ExerciseID: "back-squat", Name: "Back squat",
			Target: &domain.ExerciseTarget{Sets: ptr(3), Reps: ptr(5)},
			Sets:   []domain.SetEntry{{Reps: &reps, LoadKg: &kg, Done: true}}}},
		Totals: domain.SessionTotals{VolumeKg: 500, Sets: 1, Reps: 5},
	}
	if minutes > 0 {
		x.DurationMin = ptr(minutes)
	}
	if status == domain.SessionCompleted {
		at := time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)
		x.CompletedAt = &at
	}
	return x
}

func testSessionRoundTrip(t *testing.T, st store.Store) {
	ss := st.Studio(newStudio(t, st).ID)
	tr := newTrainee(t, ss, "Noa", "Sets")
	x := workout(tr.ID, "2026-03-02", "strength", 60, domain.SessionCompleted)
	x.StartTime, x.RPE, x.Notes = ptr("07:30"), ptr(8), ptr("felt strong")
	must(t, "CreateSessions", ss.CreateSessions(ctx, []*domain.Session{x}))
	if x.ID == "" || x.CreatedAt.IsZero() || !sameTime(x.UpdatedAt, x.CreatedAt) {
		t.Fatalf("CreateSessions filled %+v", x)
	}
	got, err := ss.GetSession(ctx, x.ID)
	must(t, "GetSession", err)
	if got.TraineeID != tr.ID || got.Date != x.Date || *got.StartTime != "07:30" || *got.DurationMin != 60 || *got.RPE != 8 || *got.Notes != "felt strong" ||
		got.Status != domain.SessionCompleted || got.Totals != x.Totals || got.CompletedAt == nil || !sameTime(*got.CompletedAt, *x.CompletedAt) {
		t.Fatalf("GetSession = %+v", got)
	}
	if len(got.Exercises) != 1 || got.Exercises[0].Name != "Back squat" || *got.Exercises[0].Target.Sets != 3 || *got.Exercises[0].Sets[0].LoadKg != 100 {
		t.Fatalf("exercises = %+v", got.Exercises)
	}
	// Update every mutable field.
	got.Status, got.Feedback, got.Date = domain.SessionSkipped, ptr("tired"), "2026-03-03"
	got.Exercises = append(got.Exercises, domain.SessionExercise{ExerciseID: "push-up", Name: "Push-up", Sets: []domain.SetEntry{}})
	got.UpdatedAt = time.Time{}
	must(t, "UpdateSession", ss.UpdateSession(ctx, &got))
	again, _ := ss.GetSession(ctx, x.ID)
	if again.Status != domain.SessionSkipped || *again.Feedback != "tired" || again.Date != "2026-03-03" || len(again.Exercises) != 2 ||
		!again.UpdatedAt.After(x.UpdatedAt) || !sameTime(again.CreatedAt, x.CreatedAt) {
		t.Fatalf("after UpdateSession = %+v", again)
	}
	mustNotFound(t, "GetSession unknown", func() error { _, err := ss.GetSession(ctx, "ses_00000000000000000000000000"); return err }())
	missing := domain.Session{ID: "ses_00000000000000000000000000", TraineeID: tr.ID, Date: "2026-03-02", Sport: "x", Status: domain.SessionPlanned}
	mustNotFound(t, "UpdateSession unknown", ss.UpdateSession(ctx, &missing))
}

func testSessionLoggedRule(t *testing.T, st store.Store) {
	studioID := newStudio(t, st).ID
	ss := st.Studio(studioID)
	tr := newTrainee(t, ss, "Idem", "Potent")
	first := workout(tr.ID, "2026-03-02", "running", 45, domain.SessionCompleted)
	must(t, "CreateSessions", ss.CreateSessions(ctx, []*domain.Session{first}))

	// The same trainee, date, sport and duration: the one already logged.
	mustConflict(t, "second completed", ss.CreateSessions(ctx, []*domain.Session{workout(tr.ID, "2026-03-02", "running", 45, domain.SessionCompleted)}), first.ID)
	// Within one transaction, which stays usable after the conflict.
	err := st.InTx(ctx, func(tx store.Store) error {
		txs := tx.Studio(studioID)
		mustConflict(t, "second completed in a transaction", txs.CreateSessions(ctx, []*domain.Session{workout(tr.ID, "2026-03-02", "running", 45, domain.SessionCompleted)}), first.ID)
		_, err := txs.GetSession(ctx, first.ID)
		return err
	})
	must(t, "transaction after the conflict", err)
	// Two of a batch.
	mustConflict(t, "a batch with two alike", ss.CreateSessions(ctx, []*domain.Session{
		workout(tr.ID, "2026-03-09", "running", 30, domain.SessionCompleted),
		workout(tr.ID, "2026-03-09", "running", 30, domain.SessionCompleted),
	}), "")
	if l, _ := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, From: "2026-03-09", To: "2026-03-09", Page: page(10, 0)}); l.Total != 0 {
		t.Fatalf("the failed batch left %d sessions", l.Total)
	}

	// Another duration, another sport, no duration, or not completed: new sessions.
	other := []*domain.Session{
		workout(tr.ID, "2026-03-02", "running", 46, domain.SessionCompleted),
		workout(tr.ID, "2026-03-02", "cycling", 45, domain.SessionCompleted),
		workout(tr.ID, "2026-03-02", "running", 0, domain.SessionCompleted),
		workout(tr.ID, "2026-03-02", "running", 45, domain.SessionPlanned),
		workout(tr.ID, "2026-03-02", "running", 45, domain.SessionSkipped),
	}
	must(t, "CreateSessions others", ss.CreateSessions(ctx, other))
	// No duration is a duration of its own: a second one conflicts.
	mustConflict(t, "second without duration", ss.CreateSessions(ctx, []*domain.Session{workout(tr.ID, "2026-03-02", "running", 0, domain.SessionCompleted)}), other[2].ID)

	// Completing the planned one would duplicate the first.
	planned := *other[3]
	planned.Status = domain.SessionCompleted
	mustConflict(t, "completing a duplicate", ss.UpdateSession(ctx, &planned), first.ID)
	// Updating the logged session itself is no conflict.
	first.Notes = ptr("edited")
	must(t, "UpdateSession of the logged one", ss.UpdateSession(ctx, first))

	// Another trainee may log the same workout.
	tr2 := newTrainee(t, ss, "Other", "Runner")
	must(t, "another trainee", ss.CreateSessions(ctx, []*domain.Session{workout(tr2.ID, "2026-03-02", "running", 45, domain.SessionCompleted)}))
}

func testSessionList(t *testing.T, st store.Store) {
	ss := st.Studio(newStudio(t, st).ID)
	tr := newTrainee(t, ss, "List", "Er")
	other := newTrainee(t, ss, "Not", "Listed")
	var batch []*domain.Session
	for i, date := range []string{"2026-03-01", "2026-03-03", "2026-03-05", "2026-03-07", "2026-03-09"} {
		status := domain.SessionCompleted
		if i%2 == 1 {
			status = domain.SessionPlanned
		}
		batch = append(batch, workout(tr.ID, date, "strength", 60, status))
	}
	late, early := workout(tr.ID, "2026-03-05", "yoga", 30, domain.SessionPlanned), workout(tr.ID, "2026-03-05", "mobility", 20, domain.SessionPlanned)
	late.StartTime, early.StartTime = ptr("18:00"), ptr("06:00")
	batch = append(batch, late, early, workout(other.ID, "2026-03-05", "strength", 60, domain.SessionCompleted))
	must(t, "CreateSessions", ss.CreateSessions(ctx, batch))

	dates := func(l store.List[domain.Session]) []string {
		var out []string
		for _, x := range l.Items {
			if x.Exercises != nil {
				t.Fatalf("summary row %s carries exercises", x.ID)
			}
			if x.Totals.VolumeKg != 500 {
				t.Fatalf("summary row %s has totals %+v", x.ID, x.Totals)
			}
			out = append(out, x.Date+" "+x.Sport)
		}
		return out
	}
	all, err := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Page: page(50, 0)})
	must(t, "ListSessions", err)
	// Newest first; within a day the later start first, no start time last.
	want := []string{"2026-03-09 strength", "2026-03-07 strength", "2026-03-05 yoga", "2026-03-05 mobility", "2026-03-05 strength", "2026-03-03 strength", "2026-03-01 strength"}
	if got := dates(all); !slices.Equal(got, want) || all.Total != 7 {
		t.Fatalf("ListSessions = %v (%d), want %v", got, all.Total, want)
	}
	pg, _ := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Page: page(2, 2)})
	if got := dates(pg); !slices.Equal(got, want[2:4]) || pg.Total != 7 {
		t.Fatalf("page 2 = %v (%d)", got, pg.Total)
	}
	rng, _ := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, From: "2026-03-03", To: "2026-03-07", Status: domain.SessionPlanned, Ascending: true, Page: page(50, 0)})
	if got := dates(rng); !slices.Equal(got, []string{"2026-03-03 strength", "2026-03-05 mobility", "2026-03-05 yoga", "2026-03-07 strength"}) {
		t.Fatalf("planned from 03 to 07, oldest first = %v", got)
	}
	between, err := ss.SessionsBetween(ctx, tr.ID, "2026-03-05", "2026-03-05")
	must(t, "SessionsBetween", err)
	if len(between) != 3 || between[0].Sport != "strength" || between[1].Sport != "mobility" || between[2].Sport != "yoga" || len(between[0].Exercises) != 1 {
		t.Fatalf("SessionsBetween = %+v", between)
	}
	mustNotFound(t, "ListSessions unknown trainee", func() error {
		_, err := ss.ListSessions(ctx, store.SessionFilter{TraineeID: "trn_00000000000000000000000000", Page: page(10, 0)})
		return err
	}())
}

func testSessionDeletePlanned(t *testing.T, st store.Store) {
	ss := st.Studio(newStudio(t, st).ID)
	tr := newTrainee(t, ss, "Del", "Eted")
	prog, keep := "prg_00000000000000000000000001", "prg_00000000000000000000000002"
	var batch []*domain.Session
	for _, date := range []string{"2026-03-01", "2026-03-08", "2026-03-15"} {
		x := workout(tr.ID, date, "strength", 60, domain.SessionPlanned)
		x.ProgramID = &prog
		batch = append(batch, x)
	}
	done := workout(tr.ID, "2026-03-09", "strength", 60, domain.SessionCompleted)
	done.ProgramID = &prog
	kept := workout(tr.ID, "2026-03-10", "strength", 60, domain.SessionPlanned)
	kept.ProgramID = &keep
	batch = append(batch, done, kept)
	must(t, "CreateSessions", ss.CreateSessions(ctx, batch))
	n, err := ss.DeletePlannedSessions(ctx, prog, "2026-03-08")
	if err != nil || n != 2 {
		t.Fatalf("DeletePlannedSessions = %d, %v; want 2", n, err)
	}
	left, _ := ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Ascending: true, Page: page(10, 0)})
	var got []string
	for _, x := range left.Items {
		got = append(got, x.Date)
	}
	if !slices.Equal(got, []string{"2026-03-01", "2026-03-09", "2026-03-10"}) {
		t.Fatalf("left %v", got)
	}
}

func testSessionTenancy(t *testing.T, st store.Store) {
	a, b := st.Studio(newStudio(t, st).ID), st.Studio(newStudio(t, st).ID)
	ta, tb := newTrainee(t, a, "Ten", "Ant"), newTrainee(t, b, "Oth", "Er")
	x := workout(ta.ID, "2026-03-02", "strength", 60, domain.SessionCompleted)
	must(t, "CreateSessions", a.CreateSessions(ctx, []*domain.Session{x}))
	mustNotFound(t, "GetSession from another studio", func() error { _, err := b.GetSession(ctx, x.ID); return err }())
	foreign := *x
	foreign.TraineeID = tb.ID
	foreign.Notes = ptr("hijack")
	mustNotFound(t, "UpdateSession from another studio", b.UpdateSession(ctx, &foreign))
	mustNotFound(t, "CreateSessions for another studio's trainee", b.CreateSessions(ctx, []*domain.Session{workout(ta.ID, "2026-03-03", "strength", 60, domain.SessionPlanned)}))
	mustNotFound(t, "ListSessions of another studio's trainee", func() error {
		_, err := b.ListSessions(ctx, store.SessionFilter{TraineeID: ta.ID, Page: page(10, 0)})
		return err
	}())
	if l, _ := b.ListSessions(ctx, store.SessionFilter{Page: page(10, 0)}); l.Total != 0 {
		t.Fatalf("studio b lists %d sessions", l.Total)
	}
	if _, err := b.SessionsBetween(ctx, ta.ID, "2026-01-01", "2026-12-31"); err == nil {
		t.Fatal("SessionsBetween answered another studio's trainee")
	}
	prog := "prg_00000000000000000000000003"
	y := workout(ta.ID, "2026-03-05", "strength", 60, domain.SessionPlanned)
	y.ProgramID = &prog
	must(t, "CreateSessions", a.CreateSessions(ctx, []*domain.Session{y}))
	if n, _ := b.DeletePlannedSessions(ctx, prog, "2026-01-01"); n != 0 {
		t.Fatalf("studio b deleted %d of studio a's sessions", n)
	}
	got, _ := a.GetSession(ctx, x.ID)
	if got.Notes != nil {
		t.Fatal("another studio's update reached the session")
	}
}

func testBenchmarks(t *testing.T, st store.Store) {
	a, b := st.Studio(newStudio(t, st).ID), st.Studio(newStudio(t, st).ID)
	tr := newTrainee(t, a, "Bench", "Mark")
	at := func(day int) time.Time { return time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC) }
	squat := domain.Benchmark{TraineeID: tr.ID, Name: "Back squat 1RM", ExerciseID: ptr("back-squat"), Unit: "kg", Direction: domain.HigherIsBetter,
		Entries: []domain.BenchmarkEntry{{Value: 100, RecordedAt: at(1), Source: domain.BenchmarkFromCoach}}}
	must(t, "CreateBenchmark", a.CreateBenchmark(ctx, &squat))
	run := domain.Benchmark{TraineeID: tr.ID, Name: "5 km", Unit: "s", Direction: domain.LowerIsBetter}
	must(t, "CreateBenchmark without entries", a.CreateBenchmark(ctx, &run))
	mustConflict(t, "a taken name", a.CreateBenchmark(ctx, &domain.Benchmark{TraineeID: tr.ID, Name: "  back SQUAT 1rm ", Unit: "kg", Direction: domain.HigherIsBetter}), squat.ID)

	// A later value recorded earlier sorts by recordedAt, and none is overwritten.
	ses := "ses_00000000000000000000000009"
	pr := domain.BenchmarkEntry{Value: 112.5, RecordedAt: at(10), Source: domain.BenchmarkFromSession, SessionID: &ses}
	must(t, "AddBenchmarkEntry", a.AddBenchmarkEntry(ctx, squat.ID, &pr))
	must(t, "AddBenchmarkEntry earlier", a.AddBenchmarkEntry(ctx, squat.ID, &domain.BenchmarkEntry{Value: 105, RecordedAt: at(5), Source: domain.BenchmarkFromTrainee, Notes: ptr("gym test")}))
	got, err := a.GetBenchmark(ctx, squat.ID)
	must(t, "GetBenchmark", err)
	var values []float64
	for _, e := range got.Entries {
		values = append(values, e.Value)
	}
	if !slices.Equal(values, []float64{100, 105, 112.5}) || *got.ExerciseID != "back-squat" || got.Entries[2].SessionID == nil || *got.Entries[2].SessionID != ses || *got.Entries[1].Notes != "gym test" {
		t.Fatalf("GetBenchmark = %+v", got)
	}
	list, err := a.ListBenchmarks(ctx, tr.ID)
	must(t, "ListBenchmarks", err)
	if len(list) != 2 || list[0].Name != "5 km" || len(list[0].Entries) != 0 || list[0].Entries == nil || list[1].ID != squat.ID || len(list[1].Entries) != 3 {
		t.Fatalf("ListBenchmarks = %+v", list)
	}
	found, err := a.FindBenchmark(ctx, tr.ID, "BACK squat 1rm")
	must(t, "FindBenchmark", err)
	if found.ID != squat.ID || len(found.Entries) != 3 {
		t.Fatalf("FindBenchmark = %+v", found)
	}
	byEx, err := a.ExerciseBenchmark(ctx, tr.ID, "back-squat")
	must(t, "ExerciseBenchmark", err)
	if byEx.ID != squat.ID {
		t.Fatalf("ExerciseBenchmark = %+v", byEx)
	}
	// A second benchmark of the same exercise, made later, is not the exercise's.
	later := domain.Benchmark{TraineeID: tr.ID, Name: "Squat, paused", ExerciseID: ptr("back-squat"), Unit: "kg", Direction: domain.HigherIsBetter,
		Entries: []domain.BenchmarkEntry{{Value: 500, Source: domain.BenchmarkFromCoach}}}
	must(t, "CreateBenchmark later", a.CreateBenchmark(ctx, &later))
	plank := domain.Benchmark{TraineeID: tr.ID, Name: "Plank", ExerciseID: ptr("plank"), Unit: "s", Direction: domain.LowerIsBetter}
	must(t, "CreateBenchmark plank", a.CreateBenchmark(ctx, &plank))
	bests, err := a.ExerciseBests(ctx, tr.ID, []string{"back-squat", "plank", "bench-press"})
	must(t, "ExerciseBests", err)
	if len(bests) != 2 || bests["back-squat"].BenchmarkID != squat.ID || *bests["back-squat"].Best != 112.5 || bests["back-squat"].Name != "Back squat 1RM" ||
		bests["plank"].Best != nil || bests["plank"].Direction != domain.LowerIsBetter {
		t.Fatalf("ExerciseBests = %+v", bests)
	}
	must(t, "AddBenchmarkEntry plank", a.AddBenchmarkEntry(ctx, plank.ID, &domain.BenchmarkEntry{Value: 90, Source: domain.BenchmarkFromCoach}))
	must(t, "AddBenchmarkEntry plank", a.AddBenchmarkEntry(ctx, plank.ID, &domain.BenchmarkEntry{Value: 60, Source: domain.BenchmarkFromCoach}))
	if bests, _ := a.ExerciseBests(ctx, tr.ID, []string{"plank"}); *bests["plank"].Best != 60 {
		t.Fatalf("lower is better: best %v, want 60", *bests["plank"].Best)
	}
	if bests, _ := b.ExerciseBests(ctx, tr.ID, []string{"back-squat"}); len(bests) != 0 {
		t.Fatalf("another studio reads %+v", bests)
	}
	mustNotFound(t, "ExerciseBenchmark none", func() error { _, err := a.ExerciseBenchmark(ctx, tr.ID, "bench-press"); return err }())
	mustNotFound(t, "FindBenchmark none", func() error { _, err := a.FindBenchmark(ctx, tr.ID, "deadlift"); return err }())

	// Tenancy.
	mustNotFound(t, "GetBenchmark from another studio", func() error { _, err := b.GetBenchmark(ctx, squat.ID); return err }())
	mustNotFound(t, "FindBenchmark from another studio", func() error { _, err := b.FindBenchmark(ctx, tr.ID, "5 km"); return err }())
	mustNotFound(t, "ListBenchmarks from another studio", func() error { _, err := b.ListBenchmarks(ctx, tr.ID); return err }())
	mustNotFound(t, "AddBenchmarkEntry from another studio", b.AddBenchmarkEntry(ctx, squat.ID, &domain.BenchmarkEntry{Value: 300, Source: domain.BenchmarkFromCoach}))
	mustNotFound(t, "CreateBenchmark for another studio's trainee", b.CreateBenchmark(ctx, &domain.Benchmark{TraineeID: tr.ID, Name: "x", Unit: "kg", Direction: domain.HigherIsBetter}))
	if again, _ := a.GetBenchmark(ctx, squat.ID); len(again.Entries) != 3 {
		t.Fatalf("another studio's entry landed: %d entries", len(again.Entries))
	}
}

func testTemplateStructure(t *testing.T, st store.Store) {
	a, b := st.Studio(newStudio(t, st).ID), st.Studio(newStudio(t, st).ID)
	structure := &domain.ProgramStructure{Phases: []domain.ProgramPhase{{Name: "Base", Focus: ptr("volume"), Weeks: []domain.ProgramWeek{{Days: []domain.ProgramDay{
		{Title: "Lower", Sport: "strength", Weekday: ptr(1), Exercises: []domain.PlannedExercise{{ExerciseID: "back-squat", Name: "Back squat",
			Target: domain.ExerciseTarget{Sets: ptr(5), Reps: ptr(5), PercentRM: ptr(75.0)}}}},
	}}}}}}
	tmpl := domain.ProgramTemplate{Name: "Five by five", Weeks: ptr(1), Structure: structure}
	must(t, "CreateProgramTemplate", a.CreateProgramTemplate(ctx, &tmpl))
	got, err := a.GetProgramTemplate(ctx, tmpl.ID)
	must(t, "GetProgramTemplate", err)
	if got.Structure == nil || got.Structure.Phases[0].Weeks[0].Days[0].Exercises[0].Target.PercentRM == nil || *got.Structure.Phases[0].Focus != "volume" {
		t.Fatalf("structure read back %+v", got.Structure)
	}
	plain := domain.ProgramTemplate{Name: "Just a name"}
	must(t, "CreateProgramTemplate plain", a.CreateProgramTemplate(ctx, &plain))
	if got, _ := a.GetProgramTemplate(ctx, plain.ID); got.Structure != nil {
		t.Fatalf("a template without structure reads back %+v", got.Structure)
	}
	plain.Structure, plain.Weeks = structure, ptr(1)
	must(t, "UpdateProgramTemplate", a.UpdateProgramTemplate(ctx, &plain))
	list, _ := a.ListProgramTemplates(ctx, "", page(10, 0))
	if list.Total != 2 || list.Items[0].Structure == nil || list.Items[1].Structure == nil {
		t.Fatalf("ListProgramTemplates = %+v", list)
	}
	mustNotFound(t, "UpdateProgramTemplate from another studio", b.UpdateProgramTemplate(ctx, &plain))

	tr := newTrainee(t, a, "Prog", "Ram")
	p := domain.Program{TraineeID: tr.ID, TemplateID: tmpl.ID, StartsOn: "2026-03-02"}
	must(t, "CreateProgram", a.CreateProgram(ctx, &p))
	gp, err := a.GetProgram(ctx, p.ID)
	must(t, "GetProgram", err)
	if gp.Name != "Five by five" || gp.StartsOn != "2026-03-02" || gp.Status != domain.ProgramActive {
		t.Fatalf("GetProgram = %+v", gp)
	}
	mustNotFound(t, "GetProgram from another studio", func() error { _, err := b.GetProgram(ctx, p.ID); return err }())
}

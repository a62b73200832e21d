package storetest

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The health side of the training memory: measurements, check-ins,
// injuries, goals and training profiles.

func testHealth(t *testing.T, st store.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"Measurements", testMeasurements},
		{"CheckIns", testCheckIns},
		{"CheckInRace", testCheckInRace},
		{"Injuries", testInjuries},
		{"Goals", testGoals},
		{"TrainingProfiles", testTrainingProfiles},
		{"DeleteTraineeCascades", testHealthCascade},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

// healthPair is a trainee of studio a and one of studio b.
func healthPair(t *testing.T, st store.Store) (store.StudioStore, domain.Trainee, store.StudioStore, domain.Trainee) {
	t.Helper()
	a, b := newStudio(t, st), newStudio(t, st)
	ssA, ssB := st.Studio(a.ID), st.Studio(b.ID)
	return ssA, newTrainee(t, ssA, "Noa", "Health"), ssB, newTrainee(t, ssB, "Other", "Studio")
}

func testMeasurements(t *testing.T, st store.Store) {
	ss, tr, _, other := healthPair(t, st)
	base := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	waists := []float64{90, 88.5, 87}
	var made []domain.Measurement
	for i, w := range waists {
		m := domain.Measurement{TraineeID: tr.ID, RecordedAt: base.AddDate(0, 0, 7*i), WaistCm: ptr(w)}
		if i == 1 {
			m.BodyFatPct, m.RestingHR, m.Notes = ptr(21.5), ptr(58), ptr("after holiday")
		}
		must(t, "CreateMeasurement", ss.CreateMeasurement(ctx, &m))
		if !strings.HasPrefix(m.ID, "msr_") || m.CreatedAt.IsZero() {
			t.Fatalf("CreateMeasurement filled %+v", m)
		}
		made = append(made, m)
	}
	list, err := ss.ListMeasurements(ctx, tr.ID, page(2, 0))
	must(t, "ListMeasurements", err)
	if list.Total != 3 || len(list.Items) != 2 || list.Items[0].ID != made[2].ID || list.Items[1].ID != made[1].ID {
		t.Fatalf("ListMeasurements = %+v, want the newest two of 3", list)
	}
	mid := list.Items[1]
	if *mid.WaistCm != 88.5 || *mid.BodyFatPct != 21.5 || *mid.RestingHR != 58 || *mid.Notes != "after holiday" ||
		mid.HipsCm != nil || mid.ChestCm != nil || mid.ArmCm != nil || mid.ThighCm != nil || !mid.RecordedAt.Equal(base.AddDate(0, 0, 7)) {
		t.Fatalf("measurement read back as %+v", mid)
	}
	// Between is oldest first and half open: from ≤ recordedAt < to.
	between, err := ss.MeasurementsBetween(ctx, tr.ID, base, base.AddDate(0, 0, 14))
	must(t, "MeasurementsBetween", err)
	if len(between) != 2 || between[0].ID != made[0].ID || between[1].ID != made[1].ID {
		t.Fatalf("MeasurementsBetween = %+v, want the first two", between)
	}
	for i, kg := range []float64{80, 79} {
		w := domain.Weight{TraineeID: tr.ID, WeightKg: kg, RecordedAt: base.AddDate(0, 0, 10*i)}
		must(t, "CreateWeight", ss.CreateWeight(ctx, &w))
	}
	ws, err := ss.WeightsBetween(ctx, tr.ID, base, base.AddDate(0, 0, 10))
	must(t, "WeightsBetween", err)
	if len(ws) != 1 || ws[0].WeightKg != 80 {
		t.Fatalf("WeightsBetween = %+v, want the weigh-in of day 0 only", ws)
	}
	ws, _ = ss.WeightsBetween(ctx, tr.ID, base, base.AddDate(0, 0, 11))
	if len(ws) != 2 || ws[0].WeightKg != 80 || ws[1].WeightKg != 79 {
		t.Fatalf("WeightsBetween = %+v, want both oldest first", ws)
	}

	// Another studio's trainee: writes and lists are not found, ranges empty.
	foreign := domain.Measurement{TraineeID: other.ID, WaistCm: ptr(70.0)}
	mustNotFound(t, "CreateMeasurement for another studio's trainee", ss.CreateMeasurement(ctx, &foreign))
	_, err = ss.ListMeasurements(ctx, other.ID, page(10, 0))
	mustNotFound(t, "ListMeasurements of another studio's trainee", err)
	if got, err := ss.MeasurementsBetween(ctx, other.ID, base.AddDate(-1, 0, 0), base.AddDate(1, 0, 0)); err != nil || len(got) != 0 {
		t.Fatalf("MeasurementsBetween of another studio's trainee = %v, %v", got, err)
	}
	now := domain.Measurement{TraineeID: tr.ID, ArmCm: ptr(35.0)}
	must(t, "CreateMeasurement without recordedAt", ss.CreateMeasurement(ctx, &now))
	if !now.RecordedAt.Equal(now.CreatedAt) {
		t.Fatalf("recordedAt defaults to createdAt: %+v", now)
	}
}

func testCheckIns(t *testing.T, st store.Store) {
	ss, tr, ssB, other := healthPair(t, st)
	_, err := ss.CheckInOn(ctx, tr.ID, "2026-03-01")
	mustNotFound(t, "CheckInOn before any", err)

	first := domain.CheckIn{TraineeID: tr.ID, Day: "2026-03-01", Readiness: ptr(7), Soreness: ptr(3), SoreAreas: []string{"knee", "calf"}, SleepHours: ptr(7.5), Note: ptr("fine")}
	replaced, err := ss.PutCheckIn(ctx, &first)
	must(t, "PutCheckIn", err)
	if replaced || !strings.HasPrefix(first.ID, "chk_") || first.CreatedAt.IsZero() || first.UpdatedAt.IsZero() {
		t.Fatalf("first PutCheckIn: replaced %v, %+v", replaced, first)
	}
	got, err := ss.CheckInOn(ctx, tr.ID, "2026-03-01")
	must(t, "CheckInOn", err)
	if got.ID != first.ID || *got.Readiness != 7 || *got.SleepHours != 7.5 || !slices.Equal(got.SoreAreas, []string{"knee", "calf"}) || got.Mood != nil || *got.Note != "fine" {
		t.Fatalf("CheckInOn = %+v", got)
	}

	// The same day again replaces the row, keeping its id and createdAt.
	second := domain.CheckIn{TraineeID: tr.ID, Day: "2026-03-01", Readiness: ptr(4), Mood: ptr(2)}
	replaced, err = ss.PutCheckIn(ctx, &second)
	must(t, "PutCheckIn the same day", err)
	if !replaced || second.ID != first.ID || !sameTime(second.CreatedAt, first.CreatedAt) {
		t.Fatalf("second PutCheckIn: replaced %v, %+v; want the first's id %s and createdAt", replaced, second, first.ID)
	}
	got, _ = ss.CheckInOn(ctx, tr.ID, "2026-03-01")
	if *got.Readiness != 4 || *got.Mood != 2 || got.Soreness != nil || got.Note != nil || len(got.SoreAreas) != 0 || got.SoreAreas == nil || !got.UpdatedAt.After(got.CreatedAt) {
		t.Fatalf("after the replace: %+v", got)
	}
	// Putting a row that carries the stored id (a merge) also says replaced.
	got.Stress = ptr(3)
	got.UpdatedAt = time.Time{}
	if replaced, err := ss.PutCheckIn(ctx, &got); err != nil || !replaced {
		t.Fatalf("PutCheckIn with the stored id: %v, %v", replaced, err)
	}

	for _, day := range []string{"2026-03-02", "2026-03-04", "2026-02-27"} {
		c := domain.CheckIn{TraineeID: tr.ID, Day: day, Readiness: ptr(6)}
		if replaced, err := ss.PutCheckIn(ctx, &c); err != nil || replaced {
			t.Fatalf("PutCheckIn %s: %v, %v", day, replaced, err)
		}
	}
	days := func(l store.List[domain.CheckIn]) []string {
		var out []string
		for _, c := range l.Items {
			out = append(out, c.Day)
		}
		return out
	}
	all, err := ss.ListCheckIns(ctx, tr.ID, "", "", page(10, 0))
	must(t, "ListCheckIns", err)
	if want := []string{"2026-03-04", "2026-03-02", "2026-03-01", "2026-02-27"}; all.Total != 4 || !slices.Equal(days(all), want) {
		t.Fatalf("ListCheckIns = %v (total %d), want %v", days(all), all.Total, want)
	}
	ranged, _ := ss.ListCheckIns(ctx, tr.ID, "2026-03-01", "2026-03-02", page(10, 0))
	if want := []string{"2026-03-02", "2026-03-01"}; ranged.Total != 2 || !slices.Equal(days(ranged), want) {
		t.Fatalf("ListCheckIns 03-01..03-02 = %v, want %v (inclusive)", days(ranged), want)
	}
	paged, _ := ss.ListCheckIns(ctx, tr.ID, "2026-03-01", "", page(1, 1))
	if paged.Total != 3 || !slices.Equal(days(paged), []string{"2026-03-02"}) {
		t.Fatalf("ListCheckIns from 03-01, second page of 1 = %v (total %d)", days(paged), paged.Total)
	}

	// Another studio's trainee: not found everywhere, and its own day is its own.
	foreign := domain.CheckIn{TraineeID: other.ID, Day: "2026-03-01", Readiness: ptr(9)}
	_, err = ss.PutCheckIn(ctx, &foreign)
	mustNotFound(t, "PutCheckIn for another studio's trainee", err)
	_, err = ss.CheckInOn(ctx, other.ID, "2026-03-01")
	mustNotFound(t, "CheckInOn of another studio's trainee", err)
	_, err = ss.ListCheckIns(ctx, other.ID, "", "", page(10, 0))
	mustNotFound(t, "ListCheckIns of another studio's trainee", err)
	own := domain.CheckIn{TraineeID: other.ID, Day: "2026-03-01", Readiness: ptr(9)}
	if replaced, err := ssB.PutCheckIn(ctx, &own); err != nil || replaced || own.ID == first.ID {
		t.Fatalf("the other studio's check-in of the same day: %v, %v, %+v", replaced, err, own)
	}
}

// testCheckInRace: check-ins of one day written at once leave one row,
// and exactly one writer was the first.
func testCheckInRace(t *testing.T, st store.Store) {
	ss, tr, _, _ := healthPair(t, st)
	const writers = 8
	var wg sync.WaitGroup
	results := make([]bool, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := domain.CheckIn{TraineeID: tr.ID, Day: "2026-04-01", Readiness: ptr(i + 1)}
			results[i], errs[i] = ss.PutCheckIn(ctx, &c)
		}()
	}
	wg.Wait()
	firsts := 0
	for i := range writers {
		must(t, "PutCheckIn in the race", errs[i])
		if !results[i] {
			firsts++
		}
	}
	list, err := ss.ListCheckIns(ctx, tr.ID, "", "", page(10, 0))
	must(t, "ListCheckIns", err)
	if firsts != 1 || list.Total != 1 {
		t.Fatalf("%d writers answered replaced=false and %d rows exist; want 1 and 1", firsts, list.Total)
	}
}

func testInjuries(t *testing.T, st store.Store) {
	ss, tr, _, other := healthPair(t, st)
	knee := domain.Injury{TraineeID: tr.ID, Area: "knee", Side: "left", Severity: 3, OnsetOn: "2026-01-10", AffectedExercises: []string{"back-squat"}, Notes: ptr("sore on stairs")}
	must(t, "CreateInjury", ss.CreateInjury(ctx, &knee))
	if !strings.HasPrefix(knee.ID, "inj_") || knee.Status != domain.InjuryActive || !knee.UpdatedAt.Equal(knee.CreatedAt) {
		t.Fatalf("CreateInjury filled %+v", knee)
	}
	wrist := domain.Injury{TraineeID: tr.ID, Area: "wrist", Side: "right", Severity: 2, Status: domain.InjuryRecovering, OnsetOn: "2026-02-01"}
	must(t, "CreateInjury", ss.CreateInjury(ctx, &wrist))
	old := domain.Injury{TraineeID: tr.ID, Area: "ankle", Side: "none", Severity: 1, Status: domain.InjuryResolved, OnsetOn: "2025-06-01", ResolvedOn: ptr("2025-07-01")}
	must(t, "CreateInjury", ss.CreateInjury(ctx, &old))

	idsOf := func(is []domain.Injury) []string {
		var out []string
		for _, i := range is {
			out = append(out, i.ID)
		}
		return out
	}
	all, err := ss.ListInjuries(ctx, tr.ID, "")
	must(t, "ListInjuries", err)
	if want := []string{wrist.ID, knee.ID, old.ID}; !slices.Equal(idsOf(all), want) {
		t.Fatalf("ListInjuries = %v, want newest onset first %v", idsOf(all), want)
	}
	active, _ := ss.ListInjuries(ctx, tr.ID, domain.InjuryActive)
	if !slices.Equal(idsOf(active), []string{knee.ID}) {
		t.Fatalf("ListInjuries(active) = %v", idsOf(active))
	}
	got, err := ss.GetInjury(ctx, wrist.ID)
	must(t, "GetInjury", err)
	if got.Area != "wrist" || got.Side != "right" || got.Severity != 2 || got.Status != domain.InjuryRecovering || got.OnsetOn != "2026-02-01" ||
		got.ResolvedOn != nil || got.AffectedExercises == nil || len(got.AffectedExercises) != 0 || got.Notes != nil {
		t.Fatalf("GetInjury = %+v", got)
	}

	knee.Status, knee.Severity, knee.ResolvedOn, knee.Notes = domain.InjuryResolved, 1, ptr("2026-03-01"), nil
	knee.AffectedExercises = []string{"back-squat", "running"}
	knee.UpdatedAt = time.Time{}
	must(t, "UpdateInjury", ss.UpdateInjury(ctx, &knee))
	got, _ = ss.GetInjury(ctx, knee.ID)
	if got.Status != domain.InjuryResolved || got.Severity != 1 || *got.ResolvedOn != "2026-03-01" || got.Notes != nil ||
		!slices.Equal(got.AffectedExercises, []string{"back-squat", "running"}) || !got.UpdatedAt.After(got.CreatedAt) {
		t.Fatalf("after UpdateInjury: %+v", got)
	}

	foreign := domain.Injury{TraineeID: other.ID, Area: "knee", Side: "left", Severity: 2, OnsetOn: "2026-01-01"}
	mustNotFound(t, "CreateInjury for another studio's trainee", ss.CreateInjury(ctx, &foreign))
	_, err = ss.ListInjuries(ctx, other.ID, "")
	mustNotFound(t, "ListInjuries of another studio's trainee", err)
	_, err = ss.GetInjury(ctx, "inj_missing")
	mustNotFound(t, "GetInjury(missing)", err)
	ghost := knee
	ghost.ID = "inj_missing"
	mustNotFound(t, "UpdateInjury(missing)", ss.UpdateInjury(ctx, &ghost))
	// Another studio's store does not see the injury.
	otherStudio := st.Studio(newStudio(t, st).ID)
	_, err = otherStudio.GetInjury(ctx, knee.ID)
	mustNotFound(t, "GetInjury from another studio", err)
	mustNotFound(t, "UpdateInjury from another studio", otherStudio.UpdateInjury(ctx, &knee))
}

func testGoals(t *testing.T, st store.Store) {
	ss, tr, _, other := healthPair(t, st)
	weight := domain.Goal{TraineeID: tr.ID, Title: "Reach 75 kg", Kind: domain.GoalMeasurement, Measure: ptr("weightKg"), TargetValue: ptr(75.0), Unit: ptr("kg"), TargetDate: ptr("2026-06-30")}
	must(t, "CreateGoal", ss.CreateGoal(ctx, &weight))
	if !strings.HasPrefix(weight.ID, "gol_") || weight.Status != domain.GoalActive || !weight.UpdatedAt.Equal(weight.CreatedAt) {
		t.Fatalf("CreateGoal filled %+v", weight)
	}
	often := domain.Goal{TraineeID: tr.ID, Title: "Train 3 times a week", Kind: domain.GoalConsistency, TargetValue: ptr(3.0)}
	must(t, "CreateGoal", ss.CreateGoal(ctx, &often))
	free := domain.Goal{TraineeID: tr.ID, Title: "Feel stronger", Kind: domain.GoalText, Status: domain.GoalAbandoned}
	must(t, "CreateGoal", ss.CreateGoal(ctx, &free))

	idsOf := func(gs []domain.Goal) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.ID)
		}
		return out
	}
	all, err := ss.ListGoals(ctx, tr.ID, "")
	must(t, "ListGoals", err)
	if want := []string{weight.ID, often.ID, free.ID}; !slices.Equal(idsOf(all), want) {
		t.Fatalf("ListGoals = %v, want oldest first %v", idsOf(all), want)
	}
	active, _ := ss.ListGoals(ctx, tr.ID, domain.GoalActive)
	if !slices.Equal(idsOf(active), []string{weight.ID, often.ID}) {
		t.Fatalf("ListGoals(active) = %v", idsOf(active))
	}
	got, err := ss.GetGoal(ctx, weight.ID)
	must(t, "GetGoal", err)
	if got.Title != "Reach 75 kg" || got.Kind != domain.GoalMeasurement || *got.Measure != "weightKg" || *got.TargetValue != 75 || *got.Unit != "kg" ||
		*got.TargetDate != "2026-06-30" || got.BenchmarkID != nil || got.CompletedAt != nil {
		t.Fatalf("GetGoal = %+v", got)
	}

	done := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	got.Status, got.CompletedAt, got.TargetValue, got.Title = domain.GoalCompleted, &done, ptr(76.0), "Reach 76 kg"
	got.UpdatedAt = time.Time{}
	must(t, "UpdateGoal", ss.UpdateGoal(ctx, &got))
	got, _ = ss.GetGoal(ctx, weight.ID)
	if got.Status != domain.GoalCompleted || !sameTime(*got.CompletedAt, done) || *got.TargetValue != 76 || got.Title != "Reach 76 kg" || !got.UpdatedAt.After(got.CreatedAt) {
		t.Fatalf("after UpdateGoal: %+v", got)
	}

	foreign := domain.Goal{TraineeID: other.ID, Title: "x", Kind: domain.GoalText}
	mustNotFound(t, "CreateGoal for another studio's trainee", ss.CreateGoal(ctx, &foreign))
	_, err = ss.ListGoals(ctx, other.ID, "")
	mustNotFound(t, "ListGoals of another studio's trainee", err)
	otherStudio := st.Studio(newStudio(t, st).ID)
	_, err = otherStudio.GetGoal(ctx, weight.ID)
	mustNotFound(t, "GetGoal from another studio", err)
	mustNotFound(t, "UpdateGoal from another studio", otherStudio.UpdateGoal(ctx, &got))
}

func testTrainingProfiles(t *testing.T, st store.Store) {
	ss, tr, ssB, other := healthPair(t, st)
	_, err := ss.GetTrainingProfile(ctx, tr.ID)
	mustNotFound(t, "GetTrainingProfile before any", err)

	p := domain.TrainingProfile{TraineeID: tr.ID, Equipment: []string{"barbell", "dumbbell"}, Availability: []int{1, 3, 5}, SessionMinutes: ptr(60), Experience: ptr("intermediate"), Onboarding: []string{"equipment"}}
	must(t, "PutTrainingProfile", ss.PutTrainingProfile(ctx, &p))
	if p.Units != "metric" || p.UpdatedAt.IsZero() {
		t.Fatalf("PutTrainingProfile filled %+v", p)
	}
	got, err := ss.GetTrainingProfile(ctx, tr.ID)
	must(t, "GetTrainingProfile", err)
	if got.TraineeID != tr.ID || !slices.Equal(got.Equipment, p.Equipment) || !slices.Equal(got.Availability, []int{1, 3, 5}) || *got.SessionMinutes != 60 ||
		*got.Experience != "intermediate" || got.Units != "metric" || !slices.Equal(got.Onboarding, []string{"equipment"}) || !sameTime(got.UpdatedAt, p.UpdatedAt) {
		t.Fatalf("GetTrainingProfile = %+v", got)
	}
	// A second put replaces the whole profile.
	again := domain.TrainingProfile{TraineeID: tr.ID, Units: "imperial"}
	must(t, "PutTrainingProfile again", ss.PutTrainingProfile(ctx, &again))
	got, _ = ss.GetTrainingProfile(ctx, tr.ID)
	if got.Units != "imperial" || len(got.Equipment) != 0 || got.Equipment == nil || got.Availability == nil || got.SessionMinutes != nil || got.Experience != nil {
		t.Fatalf("after the second put: %+v", got)
	}

	foreign := domain.TrainingProfile{TraineeID: other.ID}
	mustNotFound(t, "PutTrainingProfile for another studio's trainee", ss.PutTrainingProfile(ctx, &foreign))
	must(t, "PutTrainingProfile in its own studio", ssB.PutTrainingProfile(ctx, &foreign))
	_, err = ss.GetTrainingProfile(ctx, other.ID)
	mustNotFound(t, "GetTrainingProfile of another studio's trainee", err)
}

func testHealthCascade(t *testing.T, st store.Store) {
	ss, tr, _, _ := healthPair(t, st)
	must(t, "CreateMeasurement", ss.CreateMeasurement(ctx, &domain.Measurement{TraineeID: tr.ID, WaistCm: ptr(80.0)}))
	_, err := ss.PutCheckIn(ctx, &domain.CheckIn{TraineeID: tr.ID, Day: "2026-03-01", Readiness: ptr(5)})
	must(t, "PutCheckIn", err)
	inj := domain.Injury{TraineeID: tr.ID, Area: "knee", Side: "left", Severity: 2, OnsetOn: "2026-01-01"}
	must(t, "CreateInjury", ss.CreateInjury(ctx, &inj))
	g := domain.Goal{TraineeID: tr.ID, Title: "x", Kind: domain.GoalText}
	must(t, "CreateGoal", ss.CreateGoal(ctx, &g))
	must(t, "PutTrainingProfile", ss.PutTrainingProfile(ctx, &domain.TrainingProfile{TraineeID: tr.ID}))

	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, tr.ID))
	_, err = ss.CheckInOn(ctx, tr.ID, "2026-03-01")
	mustNotFound(t, "CheckInOn after delete", err)
	_, err = ss.GetInjury(ctx, inj.ID)
	mustNotFound(t, "GetInjury after delete", err)
	_, err = ss.GetGoal(ctx, g.ID)
	mustNotFound(t, "GetGoal after delete", err)
	_, err = ss.GetTrainingProfile(ctx, tr.ID)
	mustNotFound(t, "GetTrainingProfile after delete", err)
	if ms, err := ss.MeasurementsBetween(ctx, tr.ID, time.Unix(0, 0), time.Now().Add(time.Hour)); err != nil || len(ms) != 0 {
		t.Fatalf("measurements after delete: %v, %v", ms, err)
	}
}

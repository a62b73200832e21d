package training

import (
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

func set(reps int, kg float64, done bool) domain.SetEntry {
	return domain.SetEntry{Reps: &reps, LoadKg: &kg, Done: done}
}

func TestTotals(t *testing.T) {
	secs, metres := 1800, 5000.0
	exs := []domain.SessionExercise{
		{ExerciseID: "back-squat", Sets: []domain.SetEntry{set(5, 100, true), set(5, 100, true), set(3, 100, false)}},
		{ExerciseID: "bench-press", Sets: []domain.SetEntry{set(10, 20, true)}},
		{ExerciseID: "running", Sets: []domain.SetEntry{{Seconds: &secs, Metres: &metres, Done: true}}},
	}
	// 5×100 + 5×100 + 10×20 = 1200 kg; the undone 3×100 counts for nothing.
	want := domain.SessionTotals{VolumeKg: 1200, Sets: 4, Reps: 20, Seconds: 1800, Metres: 5000}
	if got := Totals(exs); got != want {
		t.Fatalf("Totals = %+v, want %+v", got, want)
	}
	if got := Totals(nil); got != (domain.SessionTotals{}) {
		t.Fatalf("Totals(nil) = %+v", got)
	}
}

func TestE1RM(t *testing.T) {
	for _, tc := range []struct {
		kg   float64
		reps int
		want float64
	}{
		{100, 5, 116.67}, // 100 × (1 + 5/30) = 116.666…
		{140, 1, 140},    // a single is its load
		{80, 10, 106.67}, // 80 × 1.3333…
		{60, 12, 84},     // 60 × 1.4
		{60, 13, 0},      // past MaxE1RMReps
		{0, 5, 0},
		{100, 0, 0},
	} {
		if got := E1RM(tc.kg, tc.reps); got != tc.want {
			t.Errorf("E1RM(%v, %d) = %v, want %v", tc.kg, tc.reps, got, tc.want)
		}
	}
}

func TestBestLifts(t *testing.T) {
	exs := []domain.SessionExercise{
		{ExerciseID: "back-squat", Name: "Back squat", Sets: []domain.SetEntry{set(5, 100, true), set(3, 110, true), set(1, 120, true), set(1, 130, false)}},
		{ExerciseID: "push-up", Name: "Push-up", Sets: []domain.SetEntry{{Reps: ptr(20), Done: true}}},
		{ExerciseID: "bench-press", Name: "Bench press", Sets: []domain.SetEntry{set(8, 60, true)}},
	}
	got := BestLifts(exs)
	// Squat: 116.67, 110 × 1.1 = 121, 120; the undone 130 single does not count.
	// Bench: 60 × (1 + 8/30) = 76. Push-ups carry no load.
	want := []Lift{
		{ExerciseID: "back-squat", Name: "Back squat", E1RM: 121, LoadKg: 110, Reps: 3},
		{ExerciseID: "bench-press", Name: "Bench press", E1RM: 76, LoadKg: 60, Reps: 8},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("BestLifts = %+v, want %+v", got, want)
	}
}

func threeDayWeeks(n int) domain.ProgramStructure {
	var weeks []domain.ProgramWeek
	for range n {
		weeks = append(weeks, domain.ProgramWeek{Days: []domain.ProgramDay{{Title: "A"}, {Title: "B"}, {Title: "C"}}})
	}
	return domain.ProgramStructure{Phases: []domain.ProgramPhase{{Name: "Base", Weeks: weeks[:1]}, {Name: "Build", Weeks: weeks[1:]}}}
}

func dates(days []PlannedDay) []string {
	var out []string
	for _, d := range days {
		out = append(out, d.Date+" "+d.Day.Title)
	}
	return out
}

func TestLayout(t *testing.T) {
	s := threeDayWeeks(2)
	// Monday 2026-03-02, no availability: Mon/Wed/Fri of each week.
	got, err := Layout(s, "2026-03-02", nil, time.Monday)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-03-02 A", "2026-03-04 B", "2026-03-06 C", "2026-03-09 A", "2026-03-11 B", "2026-03-13 C"}
	if !slices.Equal(dates(got), want) {
		t.Fatalf("Layout = %v, want %v", dates(got), want)
	}
	if got[3].Phase != 2 || got[3].Week != 2 || got[3].WeekInPhase != 1 || got[3].PhaseName != "Build" {
		t.Fatalf("week 2 day: %+v", got[3])
	}
	// Availability Tue, Thu, Sat (given unsorted).
	got, _ = Layout(s, "2026-03-02", []int{6, 2, 4}, time.Monday)
	want = []string{"2026-03-03 A", "2026-03-05 B", "2026-03-07 C", "2026-03-10 A", "2026-03-12 B", "2026-03-14 C"}
	if !slices.Equal(dates(got), want) {
		t.Fatalf("Layout with availability = %v, want %v", dates(got), want)
	}
	// Started on Wednesday 2026-03-04: the first week's Monday is left out.
	got, _ = Layout(s, "2026-03-04", nil, time.Monday)
	want = []string{"2026-03-04 B", "2026-03-06 C", "2026-03-09 A", "2026-03-11 B", "2026-03-13 C"}
	if !slices.Equal(dates(got), want) {
		t.Fatalf("Layout from Wednesday = %v, want %v", dates(got), want)
	}
	// A day's own weekday wins; the others avoid it. Availability has only
	// Mon: the second free day takes the default spread's first free day.
	sun := 7
	mon := 1
	fixed := domain.ProgramStructure{Phases: []domain.ProgramPhase{{Name: "P", Weeks: []domain.ProgramWeek{{Days: []domain.ProgramDay{
		{Title: "long run", Weekday: &sun}, {Title: "A"}, {Title: "B"}, {Title: "also Monday", Weekday: &mon},
	}}}}}}
	got, _ = Layout(fixed, "2026-03-02", []int{1}, time.Monday)
	// Monday is taken by "also Monday"; A and B get the default spread for
	// 2 (Mon, Thu) minus Monday → Thu, then the first free weekday (Tue),
	// in weekday order so the days keep theirs: A Tue, B Thu.
	want = []string{"2026-03-02 also Monday", "2026-03-03 A", "2026-03-05 B", "2026-03-08 long run"}
	if !slices.Equal(dates(got), want) {
		t.Fatalf("Layout with weekdays = %v, want %v", dates(got), want)
	}
	if _, err := Layout(s, "March", nil, time.Monday); err == nil {
		t.Fatal("Layout accepted a bad date")
	}
}

func TestProgramPosition(t *testing.T) {
	s := threeDayWeeks(4) // Base 1 week, Build 3 weeks
	for _, tc := range []struct {
		day   string
		state string
		week  int
		phase int
		wip   int
		start string
	}{
		{"2026-03-01", "upcoming", 0, 0, 0, "2026-02-23"},
		{"2026-03-02", "running", 1, 1, 1, "2026-03-02"},
		{"2026-03-08", "running", 1, 1, 1, "2026-03-02"},  // Sunday of week 1
		{"2026-03-09", "running", 2, 2, 1, "2026-03-09"},  // Build week 1
		{"2026-03-29", "running", 4, 2, 3, "2026-03-23"},  // last day
		{"2026-03-30", "finished", 0, 0, 0, "2026-03-30"}, // the week after
	} {
		p, err := ProgramPosition(s, "2026-03-02", tc.day, time.Monday)
		if err != nil {
			t.Fatal(err)
		}
		if p.State != tc.state || p.Week != tc.week || p.Phase != tc.phase || p.WeekInPhase != tc.wip || p.WeekStart != tc.start || p.Weeks != 4 || p.EndsOn != "2026-03-29" {
			t.Errorf("ProgramPosition(%s) = %+v", tc.day, p)
		}
	}
}

func target(sets, reps int) *domain.ExerciseTarget {
	return &domain.ExerciseTarget{Sets: &sets, Reps: &reps}
}

func TestReduceVolume(t *testing.T) {
	secs := 600
	exs := []domain.SessionExercise{
		{ExerciseID: "a", Target: target(4, 10)}, // 4 × 0.7 = 2.8 → 3 sets
		{ExerciseID: "b", Target: target(1, 10)}, // one set: reps 10 × 0.7 = 7
		{ExerciseID: "c", Target: target(2, 8)},  // 2 × 0.7 = 1.4 → 1 set
		{ExerciseID: "d", Target: &domain.ExerciseTarget{Seconds: &secs}},
		{ExerciseID: "e"}, // no target: unchanged
	}
	got, n := ReduceVolume(exs, 30)
	if n != 4 {
		t.Fatalf("changed %d, want 4", n)
	}
	check := func(i, sets, reps int) {
		t.Helper()
		if *got[i].Target.Sets != sets || *got[i].Target.Reps != reps {
			t.Errorf("exercise %d: %d × %d, want %d × %d", i, *got[i].Target.Sets, *got[i].Target.Reps, sets, reps)
		}
	}
	check(0, 3, 10)
	check(1, 1, 7)
	check(2, 1, 8)
	if *got[3].Target.Seconds != 420 { // 600 × 0.7
		t.Errorf("seconds = %d, want 420", *got[3].Target.Seconds)
	}
	if *exs[0].Target.Sets != 4 {
		t.Error("ReduceVolume changed its input")
	}
	// 2 sets less 20% rounds back to 2: the reps go instead, 8 × 0.8 = 6.4 → 6.
	got, _ = ReduceVolume([]domain.SessionExercise{{Target: target(2, 8)}}, 20)
	if *got[0].Target.Sets != 2 || *got[0].Target.Reps != 6 {
		t.Errorf("2 × 8 less 20%% = %d × %d, want 2 × 6", *got[0].Target.Sets, *got[0].Target.Reps)
	}
}

func TestRaiseIntensity(t *testing.T) {
	load, odd, rpe, high, rir := 100.0, 62.5, 8.0, 9.5, 2
	exs := []domain.SessionExercise{
		{Target: &domain.ExerciseTarget{LoadKg: &load, RPE: &rpe}},
		{Target: &domain.ExerciseTarget{LoadKg: &odd, RPE: &high, RIR: &rir}},
		{Target: target(3, 10)}, // nothing to raise
	}
	got, n := RaiseIntensity(exs, 5, 1)
	if n != 2 {
		t.Fatalf("changed %d, want 2", n)
	}
	// 100 × 1.05 = 105; 62.5 × 1.05 = 65.625 → nearest 0.5 = 65.5.
	if *got[0].Target.LoadKg != 105 || *got[0].Target.RPE != 9 {
		t.Errorf("first: %v kg RPE %v", *got[0].Target.LoadKg, *got[0].Target.RPE)
	}
	if *got[1].Target.LoadKg != 65.5 || *got[1].Target.RPE != 10 || *got[1].Target.RIR != 1 {
		t.Errorf("second: %v kg RPE %v RIR %v", *got[1].Target.LoadKg, *got[1].Target.RPE, *got[1].Target.RIR)
	}
}

func TestSwapExercise(t *testing.T) {
	exs := []domain.SessionExercise{{ExerciseID: "back-squat", Name: "Back squat", Target: target(5, 5)}, {ExerciseID: "bench-press"}}
	got, n := SwapExercise(exs, "back-squat", domain.Exercise{ID: "goblet-squat", Name: "Goblet squat"})
	if n != 1 || got[0].ExerciseID != "goblet-squat" || got[0].Name != "Goblet squat" || *got[0].Target.Sets != 5 || got[1].ExerciseID != "bench-press" {
		t.Fatalf("SwapExercise = %+v, %d", got, n)
	}
	if _, n := SwapExercise(exs, "leg-press", domain.Exercise{ID: "x"}); n != 0 {
		t.Fatal("swapped an exercise the session does not have")
	}
}

func TestStats(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return now.AddDate(0, 0, -n) }
	b := domain.Benchmark{Direction: domain.HigherIsBetter, Entries: []domain.BenchmarkEntry{
		{Value: 100, RecordedAt: day(100)},
		{Value: 110, RecordedAt: day(50)},
		{Value: 105, RecordedAt: day(20)},
		{Value: 120, RecordedAt: day(1)},
	}}
	st := Stats(b, now)
	// 4 weeks back (day 28) the latest value was 110 (day 50): +10.
	// 12 weeks back (day 84) it was 100 (day 100): +20.
	if st.Best.Value != 120 || st.Latest.Value != 120 || *st.Change4Weeks != 10 || *st.Change12Weeks != 20 || st.Entries != 4 {
		t.Fatalf("Stats = %+v", st)
	}
	// Lower is better (a 5 km time in seconds); history of 6 weeks only.
	run := domain.Benchmark{Direction: domain.LowerIsBetter, Entries: []domain.BenchmarkEntry{
		{Value: 1500, RecordedAt: day(40)},
		{Value: 1440, RecordedAt: day(10)},
		{Value: 1460, RecordedAt: day(2)},
	}}
	st = Stats(run, now)
	if st.Best.Value != 1440 || st.Latest.Value != 1460 || *st.Change4Weeks != -40 || st.Change12Weeks != nil {
		t.Fatalf("Stats lower = %+v", st)
	}
	if st := Stats(domain.Benchmark{}, now); st.Best != nil || st.Latest != nil || st.Change4Weeks != nil {
		t.Fatalf("Stats empty = %+v", st)
	}
}

// FuzzLayout: any structure shape and start date lays out without a panic,
// every date on or after startsOn and in order, no more days than the
// structure holds, and a Monday start leaves none out.
func FuzzLayout(f *testing.F) {
	f.Add("2026-03-02", []byte{3, 3, 0}, []byte{1, 8, 6}, []byte{2, 4})
	f.Add("2026-03-04", []byte{7, 1}, []byte{}, []byte{})
	f.Add("2026-02-29", []byte{1}, []byte{0}, []byte{9, 0, 3})
	f.Fuzz(func(t *testing.T, start string, daysPerWeek, weekdays, availability []byte) {
		if len(daysPerWeek) > 20 {
			daysPerWeek = daysPerWeek[:20]
		}
		var weeks []domain.ProgramWeek
		total, k := 0, 0
		for _, n := range daysPerWeek {
			var days []domain.ProgramDay
			for range int(n % 9) {
				d := domain.ProgramDay{Title: "d"}
				if k < len(weekdays) && weekdays[k] != 0 {
					wd := int(weekdays[k] % 9)
					d.Weekday = &wd
				}
				k++
				days = append(days, d)
			}
			total += len(days)
			weeks = append(weeks, domain.ProgramWeek{Days: days})
		}
		var avail []int
		for _, a := range availability {
			avail = append(avail, int(a%10))
		}
		s := domain.ProgramStructure{Phases: []domain.ProgramPhase{{Name: "P", Weeks: weeks}}}
		out, err := Layout(s, start, avail, time.Monday)
		if err != nil {
			return
		}
		if len(out) > total {
			t.Fatalf("%d days laid out of %d", len(out), total)
		}
		d, _ := time.Parse(time.DateOnly, start)
		if d.Weekday() == time.Monday && len(out) != total {
			// Out-of-range weekdays (0, 8) fall back to the spread, so a
			// Monday start still lays out everything.
			t.Fatalf("a Monday start laid out %d of %d", len(out), total)
		}
		for i, p := range out {
			if p.Date < d.Format(time.DateOnly) || i > 0 && p.Date < out[i-1].Date {
				t.Fatalf("day %d on %s (start %s, previous %v)", i, p.Date, start, out[max(0, i-1)].Date)
			}
		}
		if _, err := ProgramPosition(s, start, start, time.Monday); err != nil {
			t.Fatal(err)
		}
	})
}

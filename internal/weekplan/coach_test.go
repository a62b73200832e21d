package weekplan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
)

// TestMuscleInjuriesRuleOutWhatTrainsTheMuscle: an injury of a muscle
// area rules out every exercise whose primary muscles are that muscle,
// whatever its loadsAreas list; and the catalogue's rows load the
// shoulder, its front squat the lower back.
func TestMuscleInjuriesRuleOutWhatTrainsTheMuscle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		area, muscle string
	}{{"quadriceps", "quadriceps"}, {"hamstring", "hamstrings"}, {"glute", "glutes"}, {"calf", "calves"}, {"chest", "chest"}} {
		in := baseInput()
		in.Injuries = []domain.Injury{{ID: "inj_1", Area: c.area, Kind: "strain", Severity: 3, Status: domain.InjuryActive, Side: "left"}}
		p := generate(t, in)
		for _, s := range p.Sessions {
			for _, it := range s.Items {
				ex, _ := exercises.Get(it.ExerciseID)
				if slices.Contains(ex.Primary, c.muscle) {
					t.Errorf("a %s strain: %s trains the %s", c.area, it.ExerciseID, c.muscle)
				}
			}
		}
	}
	for _, c := range []struct{ area, id string }{{"shoulder", "barbell-row"}, {"shoulder", "seated-cable-row"}, {"lower_back", "front-squat"}} {
		in := baseInput()
		in.Equipment = append(in.Equipment, "cable")
		in.Injuries = []domain.Injury{{ID: "inj_1", Area: c.area, Kind: "after_surgery", Severity: 3, Status: domain.InjuryActive}}
		p := generate(t, in)
		if _, ok := items(p)[c.id]; ok {
			t.Errorf("after %s surgery the week holds %s", c.area, c.id)
		}
	}
}

// TestDeloadKeepsHerLifts: a deload week that must drop most exercises
// keeps a lift of each family she trains (legs, push, hinge, pull), new
// ones and arms going first.
func TestDeloadKeepsHerLifts(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Minutes = "advanced", 75
	in.Equipment = []string{"barbell", "rack", "bench", "dumbbell", "cable", "machine", "pull-up bar", "kettlebell"}
	in.History = slices.Concat(weekly("back-squat", 4, 4, 5, 140, 2.5, 8), weekly("bench-press", 4, 4, 5, 95, 2.5, 8),
		weekly("deadlift", 4, 3, 5, 170, 2.5, 8), weekly("barbell-row", 4, 3, 8, 80, 2.5, 8))
	for i := range 3 {
		in.CheckIns = append(in.CheckIns, domain.CheckIn{ID: "chk", Day: "2026-12-0" + string(rune('4'-i)), Readiness: new(3)})
	}
	p := generate(t, in)
	if !p.Deload {
		t.Fatal("poor readiness makes no deload")
	}
	got := map[string]bool{}
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			ex, _ := exercises.Get(it.ExerciseID)
			got[map[string]string{"squat": "legs", "lunge": "legs", "push_horizontal": "push", "push_vertical": "push",
				"hinge": "posterior", "pull_horizontal": "pull", "pull_vertical": "pull"}[ex.Pattern]] = true
		}
	}
	for _, f := range []string{"legs", "push", "posterior", "pull"} {
		if !got[f] {
			t.Errorf("the deload week dropped every %s exercise: %v", f, p.Sessions)
		}
	}
}

// TestEquipmentAndSlots: a band-assisted hang takes the band and the bar
// together (or the machine), a one-arm dumbbell row needs no bench; a pullover is no pull and a
// rear-delt raise no row.
func TestEquipmentAndSlots(t *testing.T) {
	t.Parallel()
	get := func(id string) domain.Exercise { ex, _ := exercises.Get(id); return ex }
	if doable(get("assisted-pull-up"), []string{"none", "band", "dumbbell"}) {
		t.Error("a band-assisted pull-up without a pull-up bar")
	}
	if doable(get("assisted-pull-up"), []string{"none", "pull-up bar"}) {
		t.Error("an assisted pull-up with a bar and nothing to assist")
	}
	if !doable(get("assisted-pull-up"), []string{"none", "band", "pull-up bar"}) || !doable(get("assisted-pull-up"), []string{"machine"}) {
		t.Error("no band-assisted pull-up with a band and a bar")
	}
	if !doable(get("dumbbell-row"), []string{"none", "dumbbell"}) {
		t.Error("a one-arm dumbbell row asks for a bench")
	}
	if fits(get("dumbbell-pullover"), slotVPull) || fits(get("rear-delt-fly"), slotPull) {
		t.Error("a pullover or a rear-delt raise is laid out as a pull")
	}
}

// runWeeks are her runs, one list of minutes a week, the last week the
// one just before the planned week (Mondays, Wednesdays, Fridays).
func runWeeks(weeks ...[]int) []domain.Session {
	var out []domain.Session
	for k, mins := range weeks {
		monday := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -7*(len(weeks)-k))
		for i, m := range mins {
			sec := m * 60
			out = append(out, domain.Session{ID: fmt.Sprintf("run_%d_%d", k, i), Date: monday.AddDate(0, 0, 2*i).Format(time.DateOnly),
				Status: domain.SessionCompleted, Sport: "running",
				Exercises: []domain.SessionExercise{{ExerciseID: "running", Sets: []domain.SetEntry{{Seconds: &sec, Done: true}}}}})
		}
	}
	return out
}

// TestSportVolumeFromHerUsualWeek: her sport's week is within 10% of her
// usual week (the mean of the four) and at most +10% on the last; a mild
// injury's 70% is kept whole when the sessions' minutes round to fives.
func TestSportVolumeFromHerUsualWeek(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Days, in.Minutes, in.Equipment, in.Sport = "beginner", []int{1, 3, 5, 7}, 45, []string{"none"}, "running"
	in.History = runWeeks([]int{25, 25, 35}, []int{25, 25, 35}, []int{30, 30, 40}, []int{30, 30, 40}) // usual 92.5, last 100
	_, minutes := sportMinutes(generate(t, in), "running")
	if minutes < 84 || minutes > 101 {
		t.Errorf("%d minutes of running; her usual week is 92.5 (83.25–101.75)", minutes)
	}
	in = baseInput()
	in.Experience, in.Days, in.Minutes, in.Equipment, in.Sport = "intermediate", []int{1, 3, 5}, 60, []string{"none", "pool"}, "swimming"
	in.Injuries = []domain.Injury{{ID: "inj_1", Area: "shoulder", Kind: "tendinopathy", Severity: 2, Status: domain.InjuryActive}}
	var swims []domain.Session
	for _, s := range runWeeks([]int{45, 45, 50}, []int{45, 45, 50}, []int{45, 45, 50}, []int{45, 45, 50}) {
		s.Sport, s.Exercises[0].ExerciseID = "swimming", "swimming"
		swims = append(swims, s)
	}
	in.History = swims
	if _, minutes := sportMinutes(generate(t, in), "swimming"); minutes < 98 || minutes > 140 {
		t.Errorf("%d minutes of swimming under a mild tendinopathy; 70%% of her 140 is 98", minutes)
	}
}

// TestFatLossHoldsThirtyMinutes: a fat-loss week holds 30 minutes of its
// goal's conditioning at least, on two strength days as on four, and in a
// deload week too (at an easier effort).
func TestFatLossHoldsThirtyMinutes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		days   []int
		deload bool
	}{{[]int{1, 4}, false}, {[]int{1, 2, 4, 6}, true}} {
		in := baseInput()
		in.Experience, in.Goal, in.Days, in.Minutes = "beginner", "fat_loss", c.days, 40
		in.Equipment = []string{"none", "dumbbell", "jump rope"}
		if c.deload {
			in.Program = &Program{Name: "Base", Phase: "deload", Week: 4}
		}
		p := generate(t, in)
		finisher := hasKind(p, AdjustGoal)
		if finisher == nil || p.Deload != c.deload {
			t.Fatalf("%v: no goal adjustment, or deload %v", c.days, p.Deload)
		}
		minutes := 0
		for _, it := range items(p)[finisher.Exercises[0]] {
			minutes += it.Minutes
			if c.deload && (it.RPE == nil || *it.RPE > 5) {
				t.Errorf("a deload week's conditioning at %v", it.RPE)
			}
		}
		if minutes < 30 {
			t.Errorf("%d days: %d minutes of conditioning; a fat-loss week holds 30", len(c.days), minutes)
		}
	}
}

// TestFillEstimate: a heavy lift's estimate holds its ramp-up sets; a
// short session is filled past the least share (85% of her minutes), and a
// runner's strength day is rounded off with mobility, not more aerobic
// work beside her runs.
func TestFillEstimate(t *testing.T) {
	t.Parallel()
	light, heavy := Item{Sets: 3, Reps: 5, RestSeconds: 120, LoadKg: new(30.0)}, Item{Sets: 3, Reps: 5, RestSeconds: 120, LoadKg: new(100.0)}
	if d := minutesFor(heavy) - minutesFor(light); d != 3 {
		t.Errorf("a 100 kg lift takes %.1f minutes more than a 30 kg one; its ramp-up sets take 3", d)
	}
	in := baseInput()
	in.Experience, in.Days, in.Minutes, in.Equipment, in.Sport = "intermediate", []int{1, 3, 5, 6}, 60, []string{"none", "stationary bike"}, "running"
	in.History = runWeeks([]int{40, 40, 60}, []int{40, 40, 60}, []int{40, 40, 60}, []int{40, 40, 60})
	p := generate(t, in)
	for _, s := range p.Sessions {
		if s.DurationMin < 51 {
			t.Errorf("%s takes %d of her 60 minutes; it is filled to 51", s.Date, s.DurationMin)
		}
		for _, it := range s.Items {
			if ex, _ := exercises.Get(it.ExerciseID); it.pad && ex.Category == domain.CategoryCardio && s.Items[0].ExerciseID != "running" {
				t.Errorf("%s: a runner's strength day is padded with %s", s.Date, it.ExerciseID)
			}
		}
	}
}

// TestProgramWeekHeldToTheCap: her program's week, far over +20% on the
// sets she logged last week, keeps every planned exercise with fewer sets
// (two at least), the freed minutes a cool-down, and says so.
func TestProgramWeekHeldToTheCap(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Minutes = "beginner", 50
	in.Equipment = []string{"none", "dumbbell", "bench", "cable", "machine"}
	in.History = slices.Concat(weekly("goblet-squat", 3, 3, 10, 14, 1, 7), weekly("machine-chest-press", 3, 3, 10, 25, 1, 7),
		weekly("seated-cable-row", 3, 3, 10, 30, 1, 7))
	target := &domain.ExerciseTarget{Sets: new(4), Reps: new(10), RIR: new(3)}
	ids := []string{"goblet-squat", "machine-chest-press", "seated-cable-row", "dumbbell-romanian-deadlift", "lat-pulldown", "dumbbell-shoulder-press"}
	for i, date := range []string{"2026-12-07", "2026-12-09", "2026-12-11"} {
		s := domain.Session{ID: "ses_" + date, Date: date, Status: domain.SessionPlanned, Sport: "strength", DurationMin: new(50)}
		for _, id := range ids[i*2 : i*2+2] {
			s.Exercises = append(s.Exercises, domain.SessionExercise{ExerciseID: id, Target: target})
		}
		in.Planned = append(in.Planned, s)
	}
	p := generate(t, in) // valid: within the cap, loads the rules'
	w, _ := prepare(in)
	if p.HardSets > w.cap {
		t.Errorf("%d hard sets; the week's cap is %d", p.HardSets, w.cap)
	}
	got := items(p)
	for _, id := range ids {
		if len(got[id]) != 1 || got[id][0].Sets < 2 {
			t.Errorf("%s: %+v; every planned exercise stays, with two sets at least", id, got[id])
		}
	}
	held := false
	for _, a := range p.Adjustments {
		held = held || a.Kind == AdjustProgram && strings.Contains(a.Reason, "+20%")
	}
	if !held {
		t.Errorf("no adjustment says the program's sets were held: %v", p.Adjustments)
	}
}

// TestNoFamilyHeavyTwoDaysRunning: on days in a row, the second day's
// compound lifts of a family the first trained heavy take two sets, and
// the validator holds a week to it.
func TestNoFamilyHeavyTwoDaysRunning(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Days, in.Minutes = "beginner", []int{1, 2, 3}, 60
	p := generate(t, in)
	w, _ := prepare(in)
	for i := 1; i < len(p.Sessions); i++ {
		heavy := w.heavyFamilies(p.Sessions[i-1])
		for f := range w.heavyFamilies(p.Sessions[i]) {
			if heavy[f] {
				t.Errorf("%s and %s both train %s heavy", p.Sessions[i-1].Date, p.Sessions[i].Date, f)
			}
		}
	}
	// A week that puts them back to three sets is refused.
	for i := 1; i < len(p.Sessions); i++ {
		for j, it := range p.Sessions[i].Items {
			if strings.Contains(it.Basis, "the day after") {
				bad := p
				bad.Sessions = slices.Clone(p.Sessions)
				bad.Sessions[i].Items = slices.Clone(p.Sessions[i].Items)
				bad.Sessions[i].Items[j].Sets = 3
				if len(w.check(bad)) == 0 {
					t.Errorf("the validator passes %s at three sets the day after a heavy session of it", it.ExerciseID)
				}
				return
			}
		}
	}
	t.Error("no lift was lightened on three days in a row")
}

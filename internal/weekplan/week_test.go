package weekplan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
)

// runs are n logged runs of minutes and km spread over the five weeks
// before the planned week.
func runs(n, minutes int, km float64) []domain.Session {
	var out []domain.Session
	for i := range n {
		date := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i*35/n).Format(time.DateOnly)
		sec, m := minutes*60, km*1000
		out = append(out, domain.Session{ID: fmt.Sprintf("run_%d", i), Date: date, Status: domain.SessionCompleted, Sport: "running",
			Exercises: []domain.SessionExercise{{ExerciseID: "running", Sets: []domain.SetEntry{{Seconds: &sec, Metres: &m, Done: true}}}}})
	}
	return out
}

func sportMinutes(p Plan, id string) (sessions, minutes int) {
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			if it.ExerciseID == id {
				sessions++
				minutes += it.Minutes
			}
		}
	}
	return sessions, minutes
}

// TestRunnerKeepsRunning: a 10 km runner with 19 runs in five weeks (and
// no sport on her profile) gets her runs, within +10% of her volume, on
// every day she gave, each session 80–100% of her minutes.
func TestRunnerKeepsRunning(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Days, in.Minutes, in.Equipment = "beginner", []int{1, 2, 3, 5, 6}, 55, []string{"none"}
	in.History = runs(19, 50, 9)
	p := generate(t, in)
	n, minutes := sportMinutes(p, "running")
	last := 0
	for _, s := range in.History {
		if s.Date >= "2026-11-30" {
			last += 50
		}
	}
	if n < 3 || minutes == 0 || float64(minutes) > float64(last)*1.1+5 {
		t.Errorf("%d runs, %d minutes (her last week %d)", n, minutes, last)
	}
	if len(p.Sessions) != 5 {
		t.Errorf("%d sessions on her 5 days", len(p.Sessions))
	}
	for _, s := range p.Sessions {
		if s.DurationMin < 44 || s.DurationMin > 55 {
			t.Errorf("%s takes %d of her 55 minutes", s.Date, s.DurationMin)
		}
	}
	if a := hasKind(p, AdjustSport); a == nil {
		t.Error("no sport adjustment says why the week runs")
	}
	for _, it := range items(p)["running"] {
		if it.DistanceKm == nil || *it.DistanceKm <= 0 {
			t.Errorf("a run without its distance at her pace: %+v", it)
		}
	}
}

// TestFatLossGetsConditioning: a fat-loss beginner's strength sessions end
// with conditioning.
func TestFatLossGetsConditioning(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Goal = "beginner", "fat_loss"
	in.Equipment = append(in.Equipment, "stationary bike", "rower")
	p := generate(t, in)
	for _, s := range p.Sessions {
		if !slices.ContainsFunc(s.Items, func(it Item) bool {
			ex, _ := exercises.Get(it.ExerciseID)
			return (ex.Category == domain.CategoryConditioning || ex.Category == domain.CategoryCardio) && it.Minutes >= 5 && !it.pad && it.RPE != nil && *it.RPE >= 6
		}) {
			t.Errorf("%s has no conditioning: %v", s.Date, s.Items)
		}
	}
	if hasKind(p, AdjustGoal) == nil {
		t.Error("no goal adjustment")
	}
}

// TestKneeTendinopathy: no pogo jumps, power snatches or Turkish get-ups
// (they load the knee), and isometrics for the tendon in the week.
func TestKneeTendinopathy(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience = "advanced"
	in.Equipment = []string{"none", "barbell", "rack", "bench", "kettlebell", "dumbbell", "band", "box"}
	in.Injuries = []domain.Injury{{ID: "inj_k", Area: "knee", Side: "left", Severity: 2, Kind: "tendinopathy", Status: domain.InjuryActive}}
	w, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"pogo-jumps", "power-snatch", "turkish-get-up", "box-jump", "step-up", "goblet-squat"} {
		if _, ok := w.allowed[id]; ok {
			t.Errorf("%s is allowed under a knee tendinopathy", id)
		}
	}
	p := generate(t, in)
	iso := 0
	for id, its := range items(p) {
		if ex, _ := exercises.Get(id); ex.Pattern == "isometric" && slices.Contains(ex.Loads, "knee") {
			iso += len(its)
		} else if slices.Contains(ex.Loads, "knee") {
			t.Errorf("%s loads the knee", id)
		}
	}
	if iso == 0 || hasKind(p, AdjustRehab) == nil {
		t.Errorf("no isometrics for the tendon (%d) or no rehab adjustment", iso)
	}
	// The validator refuses a pogo jump laid out by a model.
	bad := w.fill(Layout{Sessions: []LayoutDay{{Weekday: 1, Exercises: []string{"bench-press", "pogo-jumps"}}}})
	if got := strings.Join(w.check(bad), "\n"); !strings.Contains(got, "pogo-jumps is not in the allowed set (it is ruled out by injury inj_k)") {
		t.Errorf("pogo jumps passed: %s", got)
	}
}

// TestSeniorWithHypertensionAndBackPain: a 62-year-old (the senior rules
// start at 60 unless the studio says otherwise) with hypertension and
// low-back pain gets no Copenhagen plank, no set under 8 reps, 3 reps in
// reserve, and an adjustment that names the condition and states its
// rules; the model is given the rules alone.
func TestSeniorWithHypertensionAndBackPain(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Age, in.Conditions = new(62), []string{"hypertension"}
	in.Experience = "advanced"
	in.Equipment = []string{"none", "barbell", "rack", "bench", "dumbbell", "cable", "machine"}
	in.Injuries = []domain.Injury{{ID: "inj_b", Area: "lower_back", Severity: 2, Kind: "pain", Status: domain.InjuryActive}}
	in.History = weekly("back-squat", 3, 3, 3, 100, 2.5, 8)
	w, _ := prepare(in)
	for _, id := range []string{"copenhagen-plank", "power-clean", "handstand-push-up", "box-jump"} {
		if _, ok := w.allowed[id]; ok {
			t.Errorf("%s allowed for a 62-year-old with hypertension and back pain", id)
		}
	}
	p := generate(t, in)
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			if it.LoadKg != nil && it.Reps < 8 {
				t.Errorf("%s: a heavy low-rep set under hypertension", dose(it))
			}
			if it.RIR != nil && *it.RIR < 3 || it.RPE != nil && it.Minutes == 0 && !slices.Contains(w.rehab, it.ExerciseID) && *it.RPE > 7 {
				t.Errorf("%s: too hard", dose(it))
			}
			if it.Seconds > 30 {
				t.Errorf("%s: a long hold", dose(it))
			}
		}
	}
	if hasKind(p, AdjustAge) == nil || hasKind(p, AdjustCondition) == nil {
		t.Errorf("the senior and condition rules are not stated: %v", p.Adjustments)
	}
	if a := hasKind(p, AdjustCondition); a == nil || !strings.Contains(strings.ToLower(a.Reason), "hypertension") {
		t.Errorf("her plan does not name the condition whose rules it keeps: %v", a)
	}
	if ctx := w.contextText(); strings.Contains(strings.ToLower(ctx), "hypertension") || strings.Contains(ctx, "לחץ דם") {
		t.Errorf("the model is given her condition, not only its rules: %s", ctx)
	}
	in.SeniorAge = 65
	if w, _ := prepare(in); w.senior {
		t.Error("a studio that sets 65 has no senior rules at 62")
	}
}

// TestHeldLoadsAreNotStalls: a load held on purpose at RPE 6 for three
// weeks is not a stall and is not cut.
func TestHeldLoadsAreNotStalls(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Equipment = append(in.Equipment, "machine")
	in.History = weekly("leg-press", 3, 3, 10, 80, 0, 6)
	w, _ := prepare(in)
	if w.stalled["leg-press"] {
		t.Fatal("a load held at RPE 6 read as a stall")
	}
	ex, _ := exercises.Get("leg-press")
	if it := w.prescribe(ex, roleMain); it.LoadKg == nil || *it.LoadKg < 80 {
		t.Errorf("the held load was cut: %s", dose(it))
	}
	in.History = weekly("leg-press", 3, 3, 10, 80, 0, 9.5)
	if w, _ := prepare(in); !w.stalled["leg-press"] {
		t.Error("the same load at RPE 9.5 three weeks running is a stall")
	}
}

// TestAccessoryStallsDoNotDeload: three unchanged accessories at RPE 9
// while the main lifts rise 2.5 kg a week make no deload.
func TestAccessoryStallsDoNotDeload(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Equipment = append(in.Equipment, "cable")
	in.History = slices.Concat(weekly("back-squat", 3, 3, 5, 100, 2.5, 8), weekly("bench-press", 3, 3, 5, 70, 2.5, 8),
		weekly("lateral-raise", 3, 3, 12, 8, 0, 9), weekly("dumbbell-curl", 3, 3, 10, 12, 0, 9), weekly("triceps-pushdown", 3, 3, 12, 25, 0, 9))
	w, _ := prepare(in)
	if w.deload {
		t.Errorf("accessory stalls made a deload: %v", w.adjust)
	}
	if !w.stalled["lateral-raise"] {
		t.Error("the accessory's own stall is still read (and its load reset)")
	}
	in.History = slices.Concat(weekly("back-squat", 3, 3, 5, 100, 0, 9), weekly("bench-press", 3, 3, 5, 70, 0, 9))
	if w, _ := prepare(in); !w.deload {
		t.Error("two stalled main lifts make a deload")
	}
}

// TestSkillsWithinHerLevel: a no-equipment beginner never gets handstand
// push-ups (nor anything beyond a beginner she has not logged).
func TestSkillsWithinHerLevel(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Experience, in.Equipment, in.Days = "beginner", []string{"none"}, []int{1, 2, 3, 4, 5}
	p := generate(t, in)
	for id := range items(p) {
		if ex, _ := exercises.Get(id); ex.Level != "" && ex.Level != "beginner" {
			t.Errorf("%s (%s) for a beginner", id, ex.Level)
		}
	}
	w, _ := prepare(in)
	if _, ok := w.allowed["handstand-push-up"]; ok {
		t.Error("handstand push-ups allowed for a no-equipment beginner")
	}
	// What she has logged is within her skill, whatever the catalogue says.
	in.History = weekly("pistol-squat", 2, 3, 5, 0, 0, 8)
	in.History[0].Exercises[0].Sets[0].LoadKg = nil
	in.History[1].Exercises[0].Sets[0].LoadKg = nil
	if w, _ := prepare(in); w.allowed["pistol-squat"].ID == "" {
		t.Error("a logged pistol squat is left out")
	}
}

// TestProgramWeekAdjustedInPlace: a tired trainee on a running program
// gets his program's week, deloaded: each session carries the planned
// session's id and date, none is added, the one already logged is not
// touched, a planned exercise his injury rules out is swapped.
func TestProgramWeekAdjustedInPlace(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Language, in.Gender = "he", "male"
	in.Today = "2026-12-07"
	in.CheckIns = []domain.CheckIn{{Day: "2026-12-07", Readiness: new(3)}, {Day: "2026-12-06", Readiness: new(3)}}
	in.Injuries = []domain.Injury{{ID: "inj_s", Area: "shoulder", Severity: 3, Kind: "strain", Status: domain.InjuryActive}}
	in.Equipment = []string{"none", "dumbbell", "bench", "barbell", "rack"}
	target := func(sets, reps int) *domain.ExerciseTarget {
		return &domain.ExerciseTarget{Sets: new(sets), Reps: new(reps)}
	}
	in.History = slices.Concat(runs(16, 40, 7), weekly("goblet-squat", 3, 3, 10, 20, 2, 8))
	in.Planned = []domain.Session{
		{ID: "ses_mon", Date: "2026-12-07", Status: domain.SessionCompleted, Sport: "running", DurationMin: new(40)},
		{ID: "ses_wed", Date: "2026-12-09", Status: domain.SessionPlanned, Sport: "running", DurationMin: new(45)},
		{ID: "ses_fri", Date: "2026-12-11", Status: domain.SessionPlanned, Sport: "strength", Exercises: []domain.SessionExercise{
			{ExerciseID: "goblet-squat", Target: target(4, 8)}, {ExerciseID: "dumbbell-bench-press", Target: target(3, 10)}, {ExerciseID: "glute-bridge", Target: target(3, 12)}}},
		{ID: "ses_sun", Date: "2026-12-13", Status: domain.SessionPlanned, Sport: "running", DurationMin: new(60),
			Exercises: []domain.SessionExercise{{ExerciseID: "running", Target: &domain.ExerciseTarget{Seconds: new(3600), Metres: new(10000.0)}}}},
	}
	p := generate(t, in)
	want := map[string]string{"ses_wed": "2026-12-09", "ses_fri": "2026-12-11", "ses_sun": "2026-12-13"}
	if len(p.Sessions) != len(want) {
		t.Fatalf("%d sessions, want the %d planned ones left", len(p.Sessions), len(want))
	}
	for _, s := range p.Sessions {
		if want[s.PlannedID] != s.Date {
			t.Errorf("session %q on %s: not a planned session in place", s.PlannedID, s.Date)
		}
		for _, it := range s.Items {
			if it.ExerciseID == "dumbbell-bench-press" {
				t.Error("the bench press loads his injured shoulder")
			}
			if it.ExerciseID == "running" && (s.PlannedID == "ses_sun" && it.Minutes != 42 || s.PlannedID == "ses_wed" && it.Minutes != 31) {
				t.Errorf("%s: %d minutes of running in a deload week", s.PlannedID, it.Minutes)
			}
			if it.ExerciseID == "goblet-squat" && (it.Sets != 2 || it.Reps != 8 || it.LoadKg == nil) {
				t.Errorf("goblet squat: %s, want the program's 4×8 deloaded to 2 sets, loaded from the table", dose(it))
			}
		}
	}
	if a := hasKind(p, AdjustProgram); a == nil || !strings.Contains(a.Reason, "התוכנית שלו") {
		t.Errorf("the program adjustment is missing or not in Hebrew for him: %v", a)
	}
	if !p.Deload {
		t.Error("readiness 3 makes the program's week a deload")
	}
	in.Planned = in.Planned[:1]
	if _, err := prepare(in); err == nil || !strings.Contains(err.Error(), "nothing left to adjust") {
		t.Errorf("a week whose planned sessions are all done: %v", err)
	}
}

// TestWeekStartsOnTheStudiosDay: a studio whose weeks start on Sunday
// plans Sunday to Saturday; a week given from another day is refused
// with a sentence naming the studio's day.
func TestWeekStartsOnTheStudiosDay(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.FirstDay, in.WeekStart, in.Days = time.Sunday, "2026-12-06", []int{7, 1, 3, 6}
	in.Today = "2026-12-05"
	p := generate(t, in)
	var dates []string
	for _, s := range p.Sessions {
		dates = append(dates, fmt.Sprintf("%d:%s", s.Weekday, s.Date))
	}
	if got := strings.Join(dates, " "); got != "7:2026-12-06 1:2026-12-07 3:2026-12-09 6:2026-12-12" {
		t.Errorf("sessions %s", got)
	}
	in.WeekStart = "2026-12-07"
	_, err := prepare(in)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "week" || !strings.Contains(ie.Message, "start on a Sunday") || !strings.Contains(ie.Message, "Monday") {
		t.Errorf("a Monday for a Sunday studio: %v", err)
	}
}

// TestLanguageAndGender: Hebrew by default, her gender where the words
// read her; English when asked.
func TestLanguageAndGender(t *testing.T) {
	t.Parallel()
	hebrew := func(s string) bool {
		return strings.ContainsFunc(s, func(r rune) bool { return r >= 'א' && r <= 'ת' })
	}
	latinWords := func(s string) bool {
		for _, f := range strings.Fields(s) {
			if len(f) > 3 && strings.IndexFunc(f, func(r rune) bool { return r >= 'a' && r <= 'z' }) == 0 && f != "kg" {
				return true
			}
		}
		return false
	}
	in := baseInput()
	in.Language, in.Age = "", new(70)
	in.CheckIns = []domain.CheckIn{{Day: "2026-12-04", Readiness: new(2)}}
	in.Injuries = []domain.Injury{{ID: "inj_1", Area: "knee", Severity: 2, Kind: "sprain", Status: domain.InjuryActive}}
	in.History = weekly("bench-press", 3, 3, 8, 50, 2.5, 8)
	for _, g := range []string{"female", "male"} {
		in.Gender = g
		p := generate(t, in)
		all := p.Summary
		for _, a := range p.Adjustments {
			all += " " + a.Reason
			if !hebrew(a.Reason) || latinWords(a.Reason) {
				t.Errorf("%s: not Hebrew: %s", a.Kind, a.Reason)
			}
		}
		for _, s := range p.Sessions {
			all += " " + s.Title
			for _, it := range s.Items {
				if !hebrew(it.Basis) || !hebrew(it.Name) {
					t.Errorf("%s: %q / %q", it.ExerciseID, it.Name, it.Basis)
				}
			}
		}
		if !hebrew(p.Summary) {
			t.Errorf("summary %q", p.Summary)
		}
		word := map[string]string{"female": "שלה", "male": "שלו"}[g]
		other := map[string]string{"female": "שלו", "male": "שלה"}[g]
		if !strings.Contains(all, word) || strings.Contains(all, other) {
			t.Errorf("%s: the Hebrew does not read her gender (%q): %s", g, word, all)
		}
	}
	in.Language = "en"
	p := generate(t, in)
	for _, a := range p.Adjustments {
		if hebrew(a.Reason) {
			t.Errorf("English asked, Hebrew given: %s", a.Reason)
		}
	}
}

// TestRunnerUnderAKneeInjury: a mild knee injury keeps easy running at
// 70% of her volume; a severe one swaps it for what she has that spares
// the knee (a stationary bike; with nothing, a walk).
func TestRunnerUnderAKneeInjury(t *testing.T) {
	t.Parallel()
	base := baseInput()
	base.Days, base.Minutes, base.Equipment = []int{1, 3, 5, 6}, 50, []string{"none"}
	base.History = runs(16, 40, 7)
	knee := func(sev int) []domain.Injury {
		return []domain.Injury{{ID: "inj_k", Area: "knee", Severity: sev, Kind: "sprain", Status: domain.InjuryActive}}
	}
	full := generate(t, base)
	_, fullMin := sportMinutes(full, "running")

	mild := base
	mild.Injuries = knee(1)
	p := generate(t, mild)
	n, m := sportMinutes(p, "running")
	if n == 0 || m > fullMin*3/4 {
		t.Errorf("mild: %d runs, %d minutes (%d without the injury)", n, m, fullMin)
	}
	for _, it := range items(p)["running"] {
		if *it.RPE > 4 {
			t.Errorf("mild: a run at RPE %g", *it.RPE)
		}
	}

	bike := base
	bike.Injuries, bike.Equipment = knee(4), []string{"none", "stationary bike"}
	p = generate(t, bike)
	if n, _ := sportMinutes(p, "running"); n > 0 {
		t.Error("severe: running kept")
	}
	if n, _ := sportMinutes(p, "stationary-bike"); n == 0 {
		t.Errorf("severe: no bike sessions in its place: %v", p.Adjustments)
	}

	walk := base
	walk.Injuries = knee(4)
	p = generate(t, walk)
	if n, _ := sportMinutes(p, "walking"); n == 0 {
		t.Errorf("severe, no equipment: no walks in place of the runs: %v", p.Adjustments)
	}
}

// TestConditionsRules: pregnancy (nothing supine or prone, no impact),
// osteoporosis (no loaded flexion, no jumps) and a heart condition
// (moderate effort) each shape the week.
func TestConditionsRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		condition string
		never     []string
		rpeCap    float64
	}{
		{"pregnancy", []string{"bench-press", "crunch", "glute-bridge", "box-jump", "burpee", "power-clean", "dead-bug"}, 6},
		{"osteoporosis", []string{"crunch", "sit-up", "russian-twist", "box-jump", "jump-rope", "good-morning"}, 0},
		{"heart_condition", []string{"sprint", "box-jump", "power-clean", "burpee"}, 6},
		{"hypertension", []string{"power-clean", "handstand-push-up"}, 7},
	}
	for _, c := range cases {
		t.Run(c.condition, func(t *testing.T) {
			in := baseInput()
			in.Experience, in.Goal, in.Conditions = "advanced", "fat_loss", []string{c.condition}
			in.Equipment = []string{"none", "barbell", "rack", "bench", "dumbbell", "box", "jump rope", "stationary bike"}
			in.History = weekly("bench-press", 3, 3, 5, 60, 2.5, 8)
			w, err := prepare(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range c.never {
				if _, ok := w.allowed[id]; ok {
					t.Errorf("%s allowed under %s", id, c.condition)
				}
			}
			p := generate(t, in)
			for _, s := range p.Sessions {
				for _, it := range s.Items {
					if c.rpeCap > 0 && it.RPE != nil && *it.RPE > c.rpeCap {
						t.Errorf("%s at RPE %g", it.ExerciseID, *it.RPE)
					}
					if it.RIR != nil && *it.RIR < w.cond.minRIR {
						t.Errorf("%s", dose(it))
					}
				}
			}
			a := hasKind(p, AdjustCondition)
			if a == nil || strings.Contains(a.Reason, c.condition) {
				t.Errorf("the condition's adjustment is missing or names it: %v", a)
			}
		})
	}
	in := baseInput()
	in.Conditions = []string{"diabetes"}
	if _, err := prepare(in); err == nil || !strings.Contains(err.Error(), "hypertension, pregnancy") {
		t.Errorf("an unknown condition: %v", err)
	}
}

// TestTwoInjuriesOfOneArea: each injury's adjustment lists what loads its
// area, even when another injury ruled it out first.
func TestTwoInjuriesOfOneArea(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Injuries = []domain.Injury{{ID: "inj_1", Area: "knee", Severity: 3, Status: domain.InjuryActive},
		{ID: "inj_2", Area: "knee", Severity: 2, Status: domain.InjuryActive}}
	p := generate(t, in)
	for _, a := range p.Adjustments {
		if a.Kind == AdjustInjury && !slices.Contains(a.Exercises, "back-squat") {
			t.Errorf("an injury's adjustment leaves out the back squat: %v", a)
		}
	}
}

// TestLoggedDaysAreNotTouched: a day of the week already logged gets no
// session.
func TestLoggedDaysAreNotTouched(t *testing.T) {
	t.Parallel()
	in := baseInput()
	in.Today = "2026-12-07"
	in.History = []domain.Session{{ID: "done", Date: "2026-12-07", Status: domain.SessionCompleted,
		Exercises: []domain.SessionExercise{{ExerciseID: "bench-press", Sets: sets(3, 8, 60)}}}}
	p := generate(t, in)
	for _, s := range p.Sessions {
		if s.Date == "2026-12-07" {
			t.Error("Monday was logged, and the plan planned it again")
		}
	}
	if len(p.Sessions) != 2 {
		t.Errorf("%d sessions, want Wednesday and Friday", len(p.Sessions))
	}
}

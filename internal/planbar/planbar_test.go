package planbar

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The checker's own tests: hand-written weeks it must catch, and the
// same weeks put right, which it must pass.

func fixture(t *testing.T, name string) Fixture {
	t.Helper()
	fs, err := LoadFixtures("testdata/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no fixture %q", name)
	return Fixture{}
}

func raw(t *testing.T, p Plan) []byte {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func kg(v float64) *float64 { return &v }
func rir(v int) *int        { return &v }

// lift is a loaded item: sets × reps at kg, 2 in reserve, 2 min rest.
func lift(id string, sets, reps int, load float64) Item {
	return Item{ExerciseID: id, Name: id, Sets: sets, Reps: reps, LoadKg: kg(load), RIR: rir(2), RestSeconds: 120}
}

func session(f Fixture, day int, items ...Item) Session {
	return Session{Date: f.date(day), Weekday: day, Title: "אימון", Items: items}
}

// expectItem grades p for f and wants item to pass or fail, unsafe or not.
func expectItem(t *testing.T, f Fixture, p Plan, item string, pass, unsafe bool) Result {
	t.Helper()
	r := Check(f, raw(t, p), nil)
	if r.Passed[item] != pass {
		t.Errorf("%s: item %s passed=%v, want %v; findings %v", f.Name, item, r.Passed[item], pass, r.Findings)
	}
	got := false
	for _, x := range r.Findings {
		got = got || (x.Item == item && x.Unsafe)
	}
	if got != unsafe {
		t.Errorf("%s: item %s unsafe=%v, want %v; findings %v", f.Name, item, got, unsafe, r.Findings)
	}
	return r
}

func TestLoadTable(t *testing.T) {
	for _, c := range []struct {
		reps int
		rir  float64
		want float64
	}{{1, 0, 1}, {5, 0, 0.863}, {5, 2, 0.811}, {3, 1, 0.892}, {10, 2, 0.68}, {8, 2.5, 0.723}} {
		if got := Share(c.reps, c.rir); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("Share(%d, %v) = %.4f, want %.3f (RTS chart)", c.reps, c.rir, got, c.want)
		}
	}
	prev := 2.0
	for x := 1; x <= 30; x++ {
		s := Share(x, 0)
		if s >= prev || s < 0.3 {
			t.Fatalf("Share(%d, 0) = %v: the table must fall with reps and stay above 30%%", x, s)
		}
		prev = s
	}
}

// The advanced lifter's 4×2 at 220 kg cannot become 2×10–15 at 197.5;
// 3×3 at 200 can. (A range is held to its bottom reps: 10 at 97.5 after
// 3×5 at 120 is within the table's tolerance, 15 would not be.)
func TestLoadsBeyondHerNumbers(t *testing.T) {
	f := fixture(t, "advanced lifter whose last deadlift was 4x2 at 220 kg")
	dl := lift("deadlift", 2, 10, 197.5)
	dl.RepsMax = 15
	fs := lift("front-squat", 2, 10, 97.5)
	fs.RepsMax = 15
	bad := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, dl, fs)}}
	r := expectItem(t, f, bad, "loads", false, true)
	if n := len(r.Findings); n == 0 || !strings.Contains(r.Failed()[0]+strings.Join(r.Failed(), ""), "RTS chart") {
		t.Errorf("the finding should name the table: %v", r.Failed())
	}
	good := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, lift("deadlift", 3, 3, 200), lift("front-squat", 3, 5, 115))}}
	expectItem(t, f, good, "loads", true, false)

	// A jump: 4×2 at 220 to 4×2 at 245 is past the cap, though one rep
	// fewer in reserve might allow it.
	jump := lift("deadlift", 4, 2, 245)
	jump.RIR = rir(0)
	expectItem(t, f, Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, jump)}}, "loads", false, true)
}

// A logged 1,000 kg bench is set aside: 902.5 kg is refused, and so is any
// load drawn from it; a bench with no load (choose one at 3 in reserve)
// passes.
func TestLoadsFromUntrustedData(t *testing.T) {
	f := fixture(t, "beginner who logged bench press 5x5 at 1,000 kg")
	for _, load := range []float64{902.5, 60} {
		p := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, lift("bench-press", 5, 5, load))}}
		expectItem(t, f, p, "loads", false, true)
	}
	open := Item{ExerciseID: "bench-press", Sets: 3, Reps: 8, RIR: rir(3), RestSeconds: 120}
	expectItem(t, f, Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, open)}}, "loads", true, false)

	// Her squat, logged honestly, still sets its allowance.
	expectItem(t, f, Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 3, lift("back-squat", 5, 5, 57.5))}}, "loads", true, false)

	// One 1,000 kg set among her 100s: set aside, her squat is ~107.5 for 5.
	g := fixture(t, "a 1,000 kg squat logged among her 100s")
	expectItem(t, g, Plan{WeekStart: g.WeekStart, Sessions: []Session{session(g, 1, lift("back-squat", 3, 5, 150))}}, "loads", false, true)
	expectItem(t, g, Plan{WeekStart: g.WeekStart, Sessions: []Session{session(g, 1, lift("back-squat", 3, 5, 110))}}, "loads", true, false)
}

func run(minutes int) Item {
	return Item{ExerciseID: "running", Name: "ריצה", Sets: 1, Minutes: minutes, RPE: kg(5)}
}

// A runner's week without runs fails her sport; her usual minutes pass.
func TestRunnerKeepsHerRuns(t *testing.T) {
	f := fixture(t, "10 km runner with 19 runs in five weeks and five days")
	strength := Plan{WeekStart: f.WeekStart}
	for _, d := range []int{1, 3, 4, 6} {
		strength.Sessions = append(strength.Sessions, session(f, d, Item{ExerciseID: "push-up", Sets: 3, Reps: 10, RIR: rir(2), RestSeconds: 60},
			Item{ExerciseID: "goblet-squat", Sets: 3, Reps: 10, RIR: rir(2), RestSeconds: 60}))
	}
	expectItem(t, f, strength, "sport", false, false)

	runs := Plan{WeekStart: f.WeekStart, Sessions: []Session{
		session(f, 1, run(45)), session(f, 2, run(45)), session(f, 4, run(45)), session(f, 6, run(45)),
	}}
	r := expectItem(t, f, runs, "sport", true, false)
	if !r.Passed["days"] || !r.Passed["fill"] {
		t.Errorf("four runs of 45 minutes fill her 60-minute days: %v", r.Failed())
	}
}

// Knee tendinopathy: pogo jumps, a power snatch and Turkish get-ups are
// caught; wall sits and an upper-body day pass.
func TestKneeTendinopathy(t *testing.T) {
	f := fixture(t, "knee tendinopathy at the gym")
	for _, id := range []string{"pogo-jumps", "power-snatch", "turkish-get-up", "back-squat"} {
		p := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, Item{ExerciseID: id, Sets: 3, Reps: 8, RIR: rir(2)},
			Item{ExerciseID: "wall-sit", Sets: 4, Seconds: 45, RIR: rir(3)})}}
		expectItem(t, f, p, "injuries", false, true)
	}
	good := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1,
		Item{ExerciseID: "wall-sit", Sets: 4, Seconds: 45, RIR: rir(3)}, lift("bench-press", 3, 8, 52.5), lift("lat-pulldown", 3, 10, 45))}}
	expectItem(t, f, good, "injuries", true, false)
	norehab := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, lift("bench-press", 3, 8, 52.5))}}
	expectItem(t, f, norehab, "injuries", false, false)
}

// Handstand push-ups are beyond a no-equipment beginner; push-ups are not.
func TestSkillBeyondLevel(t *testing.T) {
	f := fixture(t, "no-equipment beginner")
	hspu := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, Item{ExerciseID: "handstand-push-up", Sets: 3, Reps: 10, RIR: rir(2)})}}
	expectItem(t, f, hspu, "level", false, true)
	bar := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, Item{ExerciseID: "pull-up", Sets: 3, Reps: 5, RIR: rir(2)})}}
	expectItem(t, f, bar, "level", false, false) // no bar, and not a beginner's
	ok := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, Item{ExerciseID: "knee-push-up", Sets: 3, Reps: 10, RIR: rir(2)})}}
	expectItem(t, f, ok, "level", true, false)
}

// A Hebrew studio's plan in English fails; in Hebrew (with RIR and kg) it
// passes. An English studio's plan in Hebrew fails.
func TestLanguage(t *testing.T) {
	f := fixture(t, "no-equipment beginner")
	p := Plan{WeekStart: f.WeekStart, Summary: "Three sessions of body weight work, with a deload.",
		Sessions: []Session{session(f, 1, Item{ExerciseID: "push-up", Sets: 3, Reps: 10, RIR: rir(2)})}}
	expectItem(t, f, p, "language", false, false)
	p.Summary = "שלושה אימונים במשקל גוף, RIR 2, עד 45 דקות."
	p.Adjustments = []Adjustment{{Kind: "readiness", Reason: "Readiness is low this week, so the sets are fewer."}}
	expectItem(t, f, p, "language", false, false)
	p.Adjustments[0].Reason = "המוכנות נמוכה השבוע, לכן פחות סטים."
	expectItem(t, f, p, "language", true, false)
	en := fixture(t, "new trainee with no history, English studio")
	p.WeekStart = en.WeekStart
	expectItem(t, en, p, "language", false, false)
}

// A week drafted again after a knee injury must drop goblet squats and
// split squats, and say why in her language.
func TestStaleAfterKneeInjury(t *testing.T) {
	f := fixture(t, "no-equipment beginner")
	first := raw(t, Plan{WeekStart: f.WeekStart, Summary: "שבוע", Sessions: []Session{session(f, 1, Item{ExerciseID: "push-up", Sets: 3, Reps: 10, RIR: rir(2)})}})
	stale := raw(t, Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1,
		Item{ExerciseID: "goblet-squat", Sets: 3, Reps: 10, RIR: rir(2)}, Item{ExerciseID: "split-squat", Sets: 3, Reps: 10, RIR: rir(2)})}})
	if r := Check(f, first, stale); r.Passed["stale"] || !r.Unsafe() {
		t.Errorf("a stale draft with squats after a knee injury passed: %v", r.Findings)
	}
	english := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, Item{ExerciseID: "push-up", Sets: 3, Reps: 10, RIR: rir(2)})},
		Adjustments: []Adjustment{{Kind: "injury", Reason: "Knee injury: no exercise that loads the knee."}}}
	if r := Check(f, first, raw(t, english)); r.Passed["stale"] {
		t.Errorf("a Hebrew studio's reason in English passed")
	}
	english.Adjustments[0].Reason = "פציעה בברך: בלי תרגילים שמעמיסים על הברך."
	if r := Check(f, first, raw(t, english)); !r.Passed["stale"] {
		t.Errorf("a fresh draft that spares the knee and says so failed: %v", r.Failed())
	}
	if r := Check(f, first, nil); r.Passed["stale"] {
		t.Errorf("no draft after the injury passed")
	}
}

// Conditions: a Copenhagen plank for a 62-year-old with hypertension is
// caught, and her week must state the hypertension and senior rules.
func TestConditions(t *testing.T) {
	f := fixture(t, "62-year-old with hypertension and low-back pain")
	p := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 2, Item{ExerciseID: "copenhagen-plank", Sets: 3, Seconds: 30, RIR: rir(2)})}}
	expectItem(t, f, p, "injuries", false, true)
	expectItem(t, f, p, "flags", false, false)
	p.Adjustments = []Adjustment{
		{Kind: "injury", Reason: "כאב בגב התחתון: בלי הרמות כבדות מהרצפה."},
		{Kind: "condition", Reason: "לחץ דם גבוה: בלי החזקות סטטיות קשות, לפחות 2 חזרות ברזרבה."},
		{Kind: "age", Reason: "מגיל 60: בלי קפיצות ובלי הרמות אולימפיות."},
	}
	expectItem(t, f, p, "flags", true, false)
}

// The program's week: its sessions adjusted in place, none beside them.
func TestProgramKept(t *testing.T) {
	f := fixture(t, "tired trainee on a running program")
	var p Plan
	p.WeekStart = f.WeekStart
	for _, pl := range f.Planned {
		s := session(f, pl.Weekday, run(pl.Minutes*3/4))
		s.PlannedID = pl.ID
		p.Sessions = append(p.Sessions, s)
	}
	expectItem(t, f, p, "sport", true, false)
	p.Sessions = append(p.Sessions, session(f, 4, run(20)))
	p.Sessions[len(p.Sessions)-1].Weekday = 1
	expectItem(t, f, p, "sport", false, false)
}

// The checker reads plans as JSON: it imports nothing of the generator,
// its rules or the catalogue (nor any of Perform's packages).
func TestIndependent(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, ".") { // a module path, not the standard library
				t.Errorf("%s imports %s: the checker must stand apart from what it grades", name, imp.Path.Value)
			}
		}
	}
}

// The fixtures hold the trainees the bar promises.
func TestFixturesCover(t *testing.T) {
	fs, err := LoadFixtures("testdata/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, f := range fs {
		has["sport "+f.Sport] = true
		has["lang "+f.Language] = true
		has["first "+f.FirstDay] = true
		for _, c := range f.Conditions {
			has["condition "+c] = true
		}
		for _, inj := range f.Injuries {
			has[inj.Kind+" "+inj.Area] = true
			has[inj.Kind] = true
		}
		has["age "+itoa(f.Age)] = true
		if f.Experience == "beginner" && len(f.Equipment) == 1 && f.Equipment[0] == "none" {
			has["no equipment beginner"] = true
		}
		if f.Expect.Deload && f.Experience == "advanced" {
			has["advanced deload"] = true
		}
		if len(f.Planned) > 0 {
			has["program"] = true
		}
		for _, b := range f.Booked {
			if !b.Fixes() || slices.Contains(f.Days, b.Weekday) {
				continue
			}
			has["booked outside her days"] = true
			has["booked "+[]string{"", "", "", "", "", "friday", "saturday", "sunday"}[b.Weekday]] = true
			has["booked "+f.Sport] = has["booked "+f.Sport] || f.Sport != "" || len(f.Logs) > 0
			has["booked lifter"] = has["booked lifter"] || f.Sport == "" && len(f.Logs) > 0
			has["booked injury"] = has["booked injury"] || len(f.Injuries) > 0
			has["booked program"] = has["booked program"] || len(f.Planned) > 0
		}
		if f.Goal == "fat_loss" {
			has["fat loss"] = true
		}
		if len(f.Expect.Holds) > 0 {
			has["holds"] = true
		}
		for _, x := range f.Extra {
			has["outlier"] = has["outlier"] || x.Kg >= 1000
		}
		for _, m := range f.Logs {
			for _, v := range m.Kg {
				has["tiny"] = has["tiny"] || (m.Exercise == "back-squat" && v <= 20)
				has["huge"] = has["huge"] || (m.Exercise == "deadlift" && v >= 300)
			}
		}
	}
	for _, want := range []string{"sport running", "sport cycling", "sport swimming", "sport conditioning", "lang he", "lang en",
		"first sunday", "first monday", "condition hypertension", "condition pregnancy", "condition osteoporosis",
		"condition heart_condition", "tendinopathy knee", "tendinopathy shoulder", "tendinopathy ankle", "sprain", "after_surgery",
		"age 60", "age 62", "age 68", "age 75", "no equipment beginner", "advanced deload", "program", "fat loss", "holds",
		"outlier", "tiny", "huge", "booked outside her days", "booked friday", "booked saturday", "booked sunday", "booked running",
		"booked lifter", "booked injury", "booked program"} {
		if !has[want] {
			t.Errorf("no fixture covers %q", want)
		}
	}
	if len(fs) < 40 {
		t.Errorf("%d fixtures; the bar needs at least 40", len(fs))
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A Sunday-first week: Sunday is its first day, and a session dated as
// if the week began on Monday is caught.
func TestDaysOfASundayFirstWeek(t *testing.T) {
	f := fixture(t, "beginner runner, Sunday-first week, Hebrew studio")
	if f.date(7) != "2026-12-06" || f.date(5) != "2026-12-11" {
		t.Fatalf("Sunday-first dates: Sunday %s, Friday %s", f.date(7), f.date(5))
	}
	good := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 7, run(30)), session(f, 3, run(30)), session(f, 5, run(40))}}
	expectItem(t, f, good, "days", true, false)
	monday := good
	monday.WeekStart = "2026-12-07"
	monday.Sessions = append([]Session(nil), good.Sessions...)
	monday.Sessions[0].Date = "2026-12-13" // the Sunday of a Monday-first week
	expectItem(t, f, monday, "days", false, false)
	two := Plan{WeekStart: f.WeekStart, Sessions: good.Sessions[:2]}
	expectItem(t, f, two, "days", false, false) // she runs three times a week
}

// A booked appointment fixes its day: a week without a session on it,
// or whose session there does not give its time, fails days; so does a
// session on a day only a waitlisted or cancelled appointment names. The
// same week with the booked Sunday planned and noted passes.
func TestBookedDaysAreFixed(t *testing.T) {
	f := fixture(t, "lifter booked on the studio's Sunday, a waitlisted Monday and a cancelled Wednesday")
	if f.date(7) != "2026-12-06" {
		t.Fatalf("the booked Sunday is %s; the week starts on it", f.date(7))
	}
	day := func(d int, note string) Session {
		s := session(f, d, lift("back-squat", 3, 5, 85), lift("bench-press", 3, 5, 60))
		s.Note = note
		return s
	}
	good := Plan{WeekStart: f.WeekStart, Sessions: []Session{day(7, "נקבע: 08:00 עם אורי כהן."), day(2, ""), day(4, "")}}
	expectItem(t, f, good, "days", true, false)
	missing := Plan{WeekStart: f.WeekStart, Sessions: good.Sessions[1:]}
	r := expectItem(t, f, missing, "days", false, false)
	if !slices.ContainsFunc(r.Findings, func(x Finding) bool { return x.Item == "days" && strings.Contains(x.Text, "apt_sun") }) {
		t.Errorf("no finding names the booked appointment: %v", r.Findings)
	}
	silent := Plan{WeekStart: f.WeekStart, Sessions: []Session{day(7, ""), day(2, ""), day(4, "")}}
	expectItem(t, f, silent, "days", false, false)
	waitlisted := Plan{WeekStart: f.WeekStart, Sessions: []Session{good.Sessions[0], day(1, ""), day(4, "")}}
	expectItem(t, f, waitlisted, "days", false, false)
}

// Session fill by the checker's own estimate, not the plan's durationMin.
func TestFill(t *testing.T) {
	f := fixture(t, "knee tendinopathy at the gym")
	short := session(f, 1, lift("bench-press", 3, 8, 52.5), lift("lat-pulldown", 3, 10, 45))
	short.DurationMin = 55 // the plan's claim does not count
	expectItem(t, f, Plan{WeekStart: f.WeekStart, Sessions: []Session{short}}, "fill", false, false)
	full := session(f, 1, Item{ExerciseID: "wall-sit", Sets: 5, Seconds: 45, RIR: rir(3), RestSeconds: 120},
		lift("bench-press", 4, 8, 52.5), lift("lat-pulldown", 4, 10, 45), lift("seated-cable-row", 3, 10, 45))
	if est := estimate(full); est < 45 || est > 63 {
		t.Fatalf("estimate %v", est)
	}
	expectItem(t, f, Plan{WeekStart: f.WeekStart, Sessions: []Session{full}}, "fill", true, false)
}

// Recovery: the same group heavy on consecutive days; a deload not taken
// when due, or taken when only accessories stalled; a held load cut.
func TestRecovery(t *testing.T) {
	f := fixture(t, "leg press held at RPE 6 while the squat rises")
	f.Days = []int{1, 2, 3, 5}
	legs := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, lift("back-squat", 3, 5, 97.5)), session(f, 2, lift("leg-press", 3, 10, 80))}}
	expectItem(t, f, legs, "recovery", false, false)
	cut := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 3, lift("leg-press", 3, 10, 65))}}
	expectItem(t, f, cut, "recovery", false, false)
	held := Plan{WeekStart: f.WeekStart, Sessions: []Session{session(f, 1, lift("back-squat", 3, 5, 100)), session(f, 3, lift("leg-press", 3, 10, 80))}}
	expectItem(t, f, held, "recovery", true, false)
	held.Deload = true
	expectItem(t, f, held, "recovery", false, false)

	due := fixture(t, "advanced lifter, deload due after four hard weeks")
	expectItem(t, due, Plan{WeekStart: due.WeekStart, Sessions: []Session{session(due, 1, lift("back-squat", 3, 5, 150))}}, "recovery", false, false)
}

// Words are found as words: "average" states no age rule, "שלב" (a phase)
// and "בלבד" (only) no heart condition, "גבוה" (high) no back injury.
func TestMentions(t *testing.T) {
	for _, c := range []struct {
		text  string
		words []string
		want  bool
	}{
		{"readiness average 3.5", ruleWords["senior"], false},
		{"At 68 (the studio's senior age), no jumps.", ruleWords["senior"], true},
		{"שלב הבנייה: עוד סט", ruleWords["heart_condition"], false},
		{"עצימות מתונה בלבד", ruleWords["heart_condition"], false},
		{"מחלת לב: בלי מאמץ מרבי", ruleWords["heart_condition"], true},
		{"לחץ דם גבוה", areaWords["lower_back"], false},
		{"כאב בגב התחתון", areaWords["lower_back"], true},
		{"Pregnancy: nothing lying on the back.", ruleWords["pregnancy"], true},
	} {
		if got := mentions(c.text, c.words); got != c.want {
			t.Errorf("mentions(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

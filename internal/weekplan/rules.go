package weekplan

import (
	"math"
	"slices"

	"github.com/otherwise/perform/internal/domain"
)

// Roles: the first two exercises of a session are its main lifts, the
// rest accessories. A role sets the rep range, the rest and the sets.
const (
	roleMain      = 0
	roleAccessory = 1
)

func roleOf(position int) int {
	if position < 2 {
		return roleMain
	}
	return roleAccessory
}

// setsFor is the working sets of an exercise in its role this week.
func (w *week) setsFor(role int) int {
	n := 3
	if role == roleMain && w.experience == advanced {
		n = 4
	}
	if role == roleAccessory && w.experience == beginner {
		n = 2
	}
	if w.returning {
		n = 2
	}
	if w.deload {
		n = max(int(math.Round(float64(n)*0.6)), 1)
	}
	return n
}

// repRange is the rep range of an exercise in its role under the rule;
// never under her conditions' fewest reps.
func (w *week) repRange(ex domain.Exercise, role int) (lo, hi int) {
	heavy := mainLift(ex) && slices.ContainsFunc(ex.Equipment, func(e string) bool { return e == "barbell" || e == "trap bar" }) &&
		(ex.Pattern == "squat" || ex.Pattern == "hinge" || ex.Pattern == "olympic")
	switch {
	case ex.Category == domain.CategoryCore || ex.Measure == domain.MeasureReps || w.bodyWeightOnly(ex):
		lo, hi = 10, 15
	case role == roleAccessory && heavy:
		lo, hi = 6, 10 // a heavy barbell lift is never a 15-rep accessory
	case role == roleAccessory:
		lo, hi = 10, 15
	case w.rule == RuleLinear, w.rule == RuleRPE:
		lo, hi = 5, 5
	case w.experience == beginner:
		lo, hi = 8, 12
	default:
		lo, hi = 6, 10
	}
	if m := w.cond.minReps; m > lo {
		lo, hi = m, max(hi, m)
	}
	return lo, hi
}

// restSeconds is the rest between sets: 150 s after a loaded main lift
// (120 for a beginner), 90 after an accessory or a body-weight main
// exercise, 60 after core work or a body-weight accessory.
func (w *week) restSeconds(ex domain.Exercise, role int) int {
	loaded := ex.Measure == domain.MeasureRepsLoad && !w.bodyWeightOnly(ex)
	switch {
	case ex.Category == domain.CategoryCore:
		return 60
	case role == roleMain && loaded && w.experience == beginner:
		return 120
	case role == roleMain && loaded:
		return 150
	case role == roleMain || loaded:
		return 90
	}
	return 60
}

// bodyWeightOnly reports whether she does a loadable exercise with her
// body alone: it can be done with nothing, and she has none of its
// implements.
func (w *week) bodyWeightOnly(ex domain.Exercise) bool {
	if !slices.Contains(ex.Equipment, "none") {
		return false
	}
	for _, e := range ex.Equipment {
		if e != "none" && !slices.Contains(stations, e) && slices.Contains(w.in.Equipment, e) {
			return false
		}
	}
	return true
}

// minutesFor is what an exercise's sets take: the work, the rest between
// them, a minute to set up, and ramp-up sets before a heavy load.
// An endurance or mobility item takes its minutes. A set's work is 4 s a
// rep (20 s at least), or its hold.
func minutesFor(it Item) float64 {
	if it.Minutes > 0 {
		return float64(it.Minutes)
	}
	reps := it.Reps
	if it.RepsMax > reps {
		reps = (reps + it.RepsMax + 1) / 2
	}
	work := float64(max(4*reps, 20)) / 60
	if it.Seconds > 0 {
		work = float64(it.Seconds) / 60
	}
	total := float64(it.Sets)*(work+float64(it.RestSeconds)/60) + 1
	if it.LoadKg != nil && *it.LoadKg >= rampUpKg {
		total += 3 // lighter sets up to a heavy load
	}
	return total
}

// rampUpKg is the load from which a lift takes ramp-up sets before its
// working sets (three minutes of them).
const rampUpKg = 40

// warmUp is the minutes a session with sets begins with (an endurance
// session's easy first minutes are its own warm-up).
const warmUp = 8

// duration is a session's estimated minutes: the warm-up when it has
// sets, and each item's minutes.
func duration(items []Item) int {
	total, warmed := 0.0, false
	for _, it := range items {
		if it.Minutes == 0 && !warmed {
			total, warmed = total+warmUp, true
		}
		total += minutesFor(it)
	}
	return int(math.Ceil(total))
}

// step is the load increment of an exercise: 5 kg on a barbell lower-body
// lift, 2.5 kg on other bars, machines and cables, 2 kg on dumbbells and
// kettlebells; loads are rounded to half of it (1 kg for dumbbells).
func step(ex domain.Exercise) (inc, round float64) {
	bar := slices.Contains(ex.Equipment, "barbell") || slices.Contains(ex.Equipment, "trap bar")
	lower := slices.ContainsFunc(ex.Primary, func(m string) bool {
		return m == "quadriceps" || m == "hamstrings" || m == "glutes"
	})
	switch {
	case bar && lower:
		return 5, 2.5
	case bar || slices.Contains(ex.Equipment, "machine") || slices.Contains(ex.Equipment, "cable"):
		return 2.5, 2.5
	}
	return 2, 1
}

// prescribe is the rules' prescription for ex in a role: sets, reps, the
// load and the intensity. The same week and exercise always give the same
// prescription; a plan's loads are checked against it.
func (w *week) prescribe(ex domain.Exercise, role int) Item {
	if slices.Contains(w.rehab, ex.ID) {
		sec := 45
		if w.cond.maxHold > 0 {
			sec = min(sec, w.cond.maxHold)
		}
		return Item{ExerciseID: ex.ID, Name: w.name(ex), Sets: 4, Seconds: sec, RPE: new(6.0), RestSeconds: 60,
			Basis: w.trf("an isometric for the tendon: 4 × %d s at a moderate effort", "החזקה סטטית לגיד: 4 × %d שניות במאמץ בינוני", sec)}
	}
	if w.isEndurance(ex) {
		basis := w.tr("conditioning: steady, hard but even", "אירובי-עצים: קצב קשה אך אחיד")
		if w.deload || w.returning {
			basis = w.tr("conditioning, easy this week: steady, able to talk", "אירובי-עצים, קל השבוע: קצב אחיד שמאפשר לדבר")
		}
		return w.endurancePrescription(ex, w.finisherMinutes(), w.finisherRPE(), basis)
	}
	if isMobility(ex) {
		return w.endurancePrescription(ex, 5, 2, w.tr("cool-down", "שחרור"))
	}
	it := Item{ExerciseID: ex.ID, Name: w.name(ex), Sets: w.setsFor(role), RestSeconds: w.restSeconds(ex, role)}
	rir := max(w.minRIR, 2)
	if w.deload || w.returning {
		rir = max(rir, 3)
	}
	xs := w.exposures[ex.ID]
	lo, hi := w.repRange(ex, role)
	switch {
	case ex.Measure == domain.MeasureTime:
		it.Seconds, it.Basis = 30, w.tr("held for time, no logged sets yet: 30 s", "החזקה לזמן, אין עדיין סטים רשומים: 30 שניות")
		if len(xs) > 0 {
			if _, sec := xs[len(xs)-1].bestReps(); sec > 0 {
				it.Seconds, it.Basis = sec+5, w.tr("held for time: 5 s more than last time", "החזקה לזמן: 5 שניות יותר מהפעם הקודמת")
			}
		}
		if m := w.cond.maxHold; m > 0 && it.Seconds > m {
			it.Seconds = m
			it.Basis += w.trf("; held to %d s", "; עד %d שניות", m)
		}
		it.RIR = new(rir)
	case ex.Measure != domain.MeasureRepsLoad || ex.Category == domain.CategoryCore || w.bodyWeightOnly(ex):
		it.Reps, it.Basis = lo, w.trf("body weight, no logged sets yet: %d reps", "משקל גוף, אין עדיין סטים רשומים: %d חזרות", lo)
		if len(xs) > 0 {
			if r, _ := xs[len(xs)-1].bestReps(); r > 0 {
				it.Reps = min(max(r+1, lo/2), hi+5)
				it.Basis = w.tr("body weight: one rep more than the best set last time", "משקל גוף: חזרה אחת יותר מהסט הטוב בפעם הקודמת")
			}
		}
		it.RIR = new(rir)
	default:
		w.prescribeLoad(&it, ex, role, xs, lo, hi, rir)
	}
	return it
}

// prescribeLoad fills a loaded exercise's reps, load and intensity. The
// rule proposes a load; the load table caps it at what her estimated 1RM
// allows for the reps and the reserve prescribed (allowance), and at 10%
// or one step over her last top load; a rep count far from her last
// one is loaded from the table, not carried over.
func (w *week) prescribeLoad(it *Item, ex domain.Exercise, role int, xs []exposure, lo, hi, rir int) {
	inc, rnd := step(ex)
	var load float64
	var reps int
	for i := len(xs) - 1; i >= 0; i-- { // the latest exposure with a load
		if l, r := xs[i].top(); l > 0 {
			load, reps = l, r
			break
		}
	}
	it.Reps = lo
	if hi > lo {
		it.RepsMax = hi
	}
	e1 := w.e1rm[ex.ID]
	if load == 0 || e1 == 0 {
		it.RIR = new(max(rir, 3))
		it.Basis = w.tr("no trusted logged load yet: choose one that leaves 3 reps in reserve", "אין עדיין משקל רשום אמין: לבחור משקל שמשאיר 3 חזרות ברזרבה")
		return
	}
	rule := w.rule
	if role == roleAccessory && rule != RuleDouble {
		rule = RuleDouble // accessories progress by reps, whatever the main lifts do
	}
	next := load
	fromTable := func() {
		next = tableLoad(e1, it.Reps, rir)
		it.Basis = w.trf("%.0f%% of the estimated 1RM of %.1f kg: %d reps with %d in reserve (%s)",
			"%.0[1]f%% מה-1RM המוערך (%.1[2]f ק\"ג): %[3]d חזרות עם %[4]d ברזרבה (טבלת RTS)", Percent1RM(it.Reps, float64(rir))*100, e1, it.Reps, rir, TableSource)
	}
	switch {
	case w.returning:
		next = load * 0.85
		it.Basis = w.trf("back after a break: 85%% of the last %.1f kg", "חזרה אחרי הפסקה: 85%% מ-%.1f ק\"ג האחרונים", load)
	case w.stalled[ex.ID]:
		next = load * 0.9
		it.Basis = w.trf("stalled at %.1f kg: reset 10%%", "תקוע ב-%.1f ק\"ג: ירידה של 10%%", load)
	case reps < lo-2 || reps > hi+2:
		fromTable() // her last sets were another rep range: the table, not her last load
	case rule == RuleLinear:
		fails := 0
		for i := len(xs) - 1; i >= 0 && fails < 2; i-- {
			if l, r := xs[i].top(); l == load && r < lo {
				fails++
			} else {
				break
			}
		}
		switch {
		case fails >= 2:
			next = load * 0.9
			it.Basis = w.trf("missed %d reps at %.1f kg twice: down 10%%", "פספוס של %d חזרות ב-%.1f ק\"ג פעמיים: ירידה של 10%%", lo, load)
		case fails == 1:
			it.Basis = w.trf("missed %d reps at %.1f kg: the same load again", "פספוס של %d חזרות ב-%.1f ק\"ג: אותו משקל שוב", lo, load)
		default:
			next = load + inc
			it.Basis = w.trf("all sets of %d at %.1f kg: +%.1f kg", "כל הסטים של %d ב-%.1f ק\"ג: \u200e+%.1f ק\"ג", lo, load, inc)
		}
	case rule == RuleRPE:
		rpe := float64(10 - rir)
		fromTable()
		it.RPE, it.Percent1RM = new(rpe), new(math.Round(Percent1RM(it.Reps, float64(rir))*1000)/10)
	default: // double progression
		if reps >= hi {
			next = load + inc
			it.Basis = w.trf("%d reps on every set at %.1f kg: +%.1f kg, back to %d reps", "%d חזרות בכל סט ב-%.1f ק\"ג: \u200e+%.1f ק\"ג, חזרה ל-%d חזרות", hi, load, inc, lo)
		} else {
			it.Reps = min(max(reps+1, lo), hi)
			it.Basis = w.trf("%d reps at %.1f kg: the same load, %d reps", "%d חזרות ב-%.1f ק\"ג: אותו משקל, %d חזרות", reps, load, it.Reps)
		}
	}
	limit := min(allowance(e1, it.Reps, rir, inc), jumpCap(load, inc), humanMaxKg(ex))
	if it.RepsMax > it.Reps {
		limit = min(limit, topReach(e1, it.RepsMax))
	}
	if next > limit {
		next = limit
		it.Basis += w.trf("; held to what the estimated 1RM of %.1f kg allows for %d reps with %d in reserve",
			"; מוגבל למה שה-1RM המוערך (%.1f ק\"ג) מאפשר ל-%d חזרות עם %d ברזרבה", e1, it.Reps, rir)
	}
	if w.deload {
		next *= 0.9
		it.Basis += w.tr("; deload: 90% of it", "; הורדת עומס: 90% מזה")
	}
	if floorTo(next, rnd) < rnd {
		// Under the smallest step: no load the grid can give.
		it.RPE, it.Percent1RM, it.RIR = nil, nil, new(max(rir, 3))
		it.Basis = w.tr("her numbers allow less than the smallest step: choose a load that leaves 3 reps in reserve",
			"המספרים מאפשרים פחות מהמדרגה הקטנה ביותר: לבחור משקל שמשאיר 3 חזרות ברזרבה")
		return
	}
	it.LoadKg = new(floorTo(next, rnd))
	if it.RPE == nil {
		it.RIR = new(rir)
	}
}

// name is the exercise's name in the plan's language.
func (w *week) name(ex domain.Exercise) string {
	if w.lang() == "he" && ex.NameHe != "" {
		return ex.NameHe
	}
	return ex.Name
}

package weekplan

import (
	"fmt"
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

// repRange is the rep range of an exercise in its role under the rule.
func (w *week) repRange(ex domain.Exercise, role int) (lo, hi int) {
	switch {
	case ex.Category == domain.CategoryCore || ex.Measure == domain.MeasureReps:
		return 10, 15
	case role == roleAccessory:
		return 10, 15
	case w.rule == RuleLinear:
		return 5, 5
	case w.rule == RuleRPE:
		return 5, 5
	case w.experience == beginner:
		return 8, 12
	}
	return 6, 10
}

// restSeconds is the rest between sets.
func restSeconds(ex domain.Exercise, role int) int {
	switch {
	case ex.Category == domain.CategoryCore:
		return 60
	case role == roleMain:
		return 150
	}
	return 90
}

// minutesFor is what an exercise's sets take: the work, the rest between
// them and a minute to set up.
func minutesFor(it Item) float64 {
	work := 0.75
	if it.Seconds > 0 {
		work = float64(it.Seconds) / 60
	}
	return float64(it.Sets)*(work+float64(it.RestSeconds)/60) + 1
}

// warmUp is the minutes a session begins with.
const warmUp = 8

// duration is a session's estimated minutes.
func duration(items []Item) int {
	total := float64(warmUp)
	for _, it := range items {
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

func roundTo(v, to float64) float64 { return math.Round(v/to) * to }

// prescribe is the rules' prescription for ex in a role: sets, reps, the
// load and the intensity. The same week and exercise always give the same
// prescription; a plan's loads are checked against it.
func (w *week) prescribe(ex domain.Exercise, role int) Item {
	it := Item{ExerciseID: ex.ID, Name: w.name(ex), Sets: w.setsFor(role), RestSeconds: restSeconds(ex, role)}
	rir := w.minRIR
	xs := w.exposures[ex.ID]
	lo, hi := w.repRange(ex, role)
	switch {
	case ex.Measure == domain.MeasureTime:
		it.Seconds, it.Basis = 30, "held for time, no logged sets yet: 30 s"
		if len(xs) > 0 {
			if _, sec := xs[len(xs)-1].bestReps(); sec > 0 {
				it.Seconds, it.Basis = sec+5, "held for time: 5 s more than last time"
			}
		}
		it.RIR = new(max(rir, 2))
	case ex.Measure != domain.MeasureRepsLoad || ex.Category == domain.CategoryCore:
		it.Reps, it.Basis = lo, fmt.Sprintf("body weight, no logged sets yet: %d reps", lo)
		if len(xs) > 0 {
			if r, _ := xs[len(xs)-1].bestReps(); r > 0 {
				it.Reps = min(max(r+1, lo/2), hi+5)
				it.Basis = "body weight: one rep more than the best set last time"
			}
		}
		it.RIR = new(max(rir, 2))
	default:
		w.prescribeLoad(&it, ex, role, xs, lo, hi, max(rir, 2))
	}
	if w.deload || w.returning {
		if it.RIR != nil {
			it.RIR = new(max(*it.RIR, 3))
		}
		if it.RPE != nil {
			it.RPE, it.RIR, it.Percent1RM = nil, new(3), nil
		}
	}
	return it
}

// prescribeLoad fills a loaded exercise's reps, load and intensity.
func (w *week) prescribeLoad(it *Item, ex domain.Exercise, role int, xs []exposure, lo, hi, rir int) {
	inc, rnd := step(ex)
	var last exposure
	var load float64
	var reps int
	for i := len(xs) - 1; i >= 0; i-- { // the latest exposure with a load
		if l, r := xs[i].top(); l > 0 {
			last, load, reps = xs[i], l, r
			break
		}
	}
	it.Reps = lo
	if hi > lo {
		it.RepsMax = hi
	}
	if load == 0 {
		it.RIR = new(max(rir, 3))
		it.Basis = "no logged load yet: choose one that leaves 3 reps in reserve"
		return
	}
	rule := w.rule
	if role == roleAccessory && rule != RuleDouble {
		rule = RuleDouble // accessories progress by reps, whatever the main lifts do
	}
	next := load
	switch {
	case w.returning:
		next = roundTo(load*0.85, rnd)
		it.Basis = fmt.Sprintf("back after a break: 85%% of the last %.1f kg", load)
	case w.stalled[ex.ID]:
		next = roundTo(load*0.9, rnd)
		it.Basis = fmt.Sprintf("stalled at %.1f kg: reset 10%%", load)
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
			next = roundTo(load*0.9, rnd)
			it.Basis = fmt.Sprintf("missed %d reps at %.1f kg twice: down 10%%", lo, load)
		case fails == 1:
			it.Basis = fmt.Sprintf("missed %d reps at %.1f kg: the same load again", lo, load)
		default:
			next = load + inc
			it.Basis = fmt.Sprintf("all sets of %d at %.1f kg: +%.1f kg", lo, load, inc)
		}
	case rule == RuleRPE:
		e1rm := last.e1RM()
		if len(xs) >= 2 {
			e1rm = max(e1rm, xs[len(xs)-2].e1RM())
		}
		const rpe = 8.0
		pct := 1 / (1 + (float64(lo)+(10-rpe))/30)
		next = roundTo(e1rm*pct, rnd)
		it.RPE, it.Percent1RM = new(rpe), new(math.Round(pct*1000)/10)
		it.Basis = fmt.Sprintf("%.0f%% of an estimated 1RM of %.1f kg for %d reps at RPE 8", pct*100, e1rm, lo)
	default: // double progression
		if reps >= hi {
			next = load + inc
			it.Basis = fmt.Sprintf("%d reps on every set at %.1f kg: +%.1f kg, back to %d reps", hi, load, inc, lo)
		} else {
			it.Reps = min(max(reps+1, lo), hi)
			it.Basis = fmt.Sprintf("%d reps at %.1f kg: the same load, %d reps", reps, load, it.Reps)
		}
	}
	if w.deload {
		next = roundTo(next*0.9, rnd)
		it.Basis += "; deload: 90% of it"
	}
	it.LoadKg = new(max(next, rnd))
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

func (w *week) lang() string {
	if w.in.Language == "en" {
		return "en"
	}
	return "he"
}

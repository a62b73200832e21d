package weekplan

import (
	"fmt"
	"math"
	"slices"

	"github.com/otherwise/perform/internal/domain"
)

// rtsChart is the one load table of the package: the share of a one-rep
// max a set of reps with some reps in reserve takes, by "effective reps"
// (reps + reps in reserve) in half steps from 1 to 15.5. It is Mike
// Tuchscherer's RPE chart (Reactive Training Systems): 5 reps at RPE 8
// (2 in reserve, 7 effective) is 81.1%. Every load the plan prescribes is
// read from it, and every estimated 1RM is read back through it.
var rtsChart = [...]float64{
	100, 97.8, 95.5, 93.9, 92.2, 90.7, 89.2, 87.8, 86.3, 85.0,
	83.7, 82.4, 81.1, 79.9, 78.6, 77.4, 76.2, 75.1, 73.9, 72.3,
	70.7, 69.4, 68.0, 66.7, 65.3, 64.0, 62.6, 61.3, 59.9, 58.6,
}

// TableSource names the load table, for the docs and the notes.
const TableSource = "the RTS RPE chart (Tuchscherer)"

// Percent1RM is the fraction of a one-rep max that reps with rir reps in
// reserve take: the chart, and past its last row (15.5 effective reps) the
// chart's own slope of 2.6 points a rep, never under 40%.
func Percent1RM(reps int, rir float64) float64 {
	e := float64(reps) + math.Max(rir, 0)
	if e <= 1 {
		return 1
	}
	idx := (e - 1) * 2
	if idx <= float64(len(rtsChart)-1) {
		lo := int(math.Floor(idx))
		f := idx - float64(lo)
		v := rtsChart[lo]
		if f > 0 {
			v += (rtsChart[lo+1] - v) * f
		}
		return v / 100
	}
	last := rtsChart[len(rtsChart)-1]
	return math.Max(last-2.6*(e-15.5), 40) / 100
}

// assumedRIR is the reserve a logged set without RPE or RIR is read with.
const assumedRIR = 1.0

// setRIR is a logged set's reps in reserve: its RIR, else 10 − its RPE,
// else assumedRIR; at most 5 (a reserve past 5 is a guess, not a reading).
func setRIR(s domain.SetEntry) float64 {
	r := assumedRIR
	switch {
	case s.RIR != nil:
		r = *s.RIR
	case s.RPE != nil:
		r = 10 - *s.RPE
	}
	return math.Min(math.Max(r, 0), 5)
}

// setE1RM is the one-rep max a set implies through the chart; 0 for a
// set the chart cannot read (no load, no reps, or more than 20 reps).
func setE1RM(s domain.SetEntry) float64 {
	if s.LoadKg == nil || *s.LoadKg <= 0 || s.Reps == nil || *s.Reps <= 0 || *s.Reps > 20 {
		return 0
	}
	return *s.LoadKg / Percent1RM(*s.Reps, setRIR(s))
}

// tableLoad is the chart's load for reps with rir in reserve from an
// estimated 1RM.
func tableLoad(e1rm float64, reps, rir int) float64 {
	return e1rm * Percent1RM(reps, float64(rir))
}

// allowance is the most a prescription may load: the chart's load plus
// the larger of 5% and one loading step (a week's honest progression).
// The generator never goes past it, and the validator refuses what does.
func allowance(e1rm float64, reps, rir int, inc float64) float64 {
	t := tableLoad(e1rm, reps, rir)
	return math.Max(t*1.05, t+inc)
}

// topReach is the most a rep range's load may be for its top to be
// within reach: the top reps to failure at no more than 10% over her
// estimated 1RM (a few weeks' progress). A range that tops out beyond it
// is not one she can progress through at that load.
func topReach(e1rm float64, top int) float64 { return tableLoad(e1rm, top, 0) * 1.10 }

// jumpCap is the most a load may rise on her last top load: 10% or one
// loading step, the larger.
func jumpCap(last, inc float64) float64 { return math.Max(last*1.10, last+inc) }

// floorTo rounds v down to the loading grid.
func floorTo(v, to float64) float64 { return math.Floor(v/to+1e-9) * to }

// Implausible says why a logged set cannot be a real one ("" when it can):
// its estimated 1RM, read through the load table, is beyond what people
// lift on that exercise. The lane may refuse such a set with this
// sentence; the plan flags it and leaves it out of her estimates.
func Implausible(ex domain.Exercise, s domain.SetEntry) string {
	if v, limit := setE1RM(s), humanMaxKg(ex); v > limit {
		return fmt.Sprintf("%d × %g kg of %s implies a one-rep max of %.0f kg, beyond what people lift on it (%.0f kg): check the load and the reps", *s.Reps, *s.LoadKg, ex.Name, v, limit)
	}
	return ""
}

// humanMaxKg is the heaviest one-rep max a person has plausibly lifted on
// an exercise of this pattern and implement, a little above the world's
// records; a logged set implying more is not her estimate, and no
// prescription may exceed it. A dumbbell or kettlebell is counted one hand.
func humanMaxKg(ex domain.Exercise) float64 {
	bar := map[string]float64{
		"squat": 500, "hinge": 500, "lunge": 300, "step_up": 250, "push_horizontal": 360, "push_vertical": 230,
		"pull_horizontal": 320, "pull_vertical": 250, "olympic": 270, "isolation_upper": 150, "isolation_lower": 300,
		"carry": 220, "core": 120, "get_up": 90, "isometric": 200,
	}
	kg, ok := bar[ex.Pattern]
	if !ok {
		kg = 300
	}
	hand := !slices.ContainsFunc(ex.Equipment, func(e string) bool {
		return e == "barbell" || e == "trap bar" || e == "machine" || e == "cable" || e == "ez bar" || e == "landmine"
	})
	switch {
	case hand:
		kg = math.Min(kg*0.4, 130)
	case slices.Contains(ex.Equipment, "machine") && ex.Pattern == "squat":
		kg = 1100 // a leg press sled
	}
	return kg
}

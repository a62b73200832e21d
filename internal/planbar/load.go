package planbar

import (
	"math"
	"slices"
)

// The checker's load table is the RTS RPE chart (M. Tuchscherer, Reactive
// Training Systems, "The Reactive Training Manual", 2008): the share of a
// one-rep maximum a lifter moves for a number of reps at an RPE. Its cells
// depend only on reps + reps in reserve (RIR = 10 − RPE), in half steps, so
// it is kept as one row indexed by that sum: rtsChart[k] is the share at
// (reps + RIR) = 1 + k/2. Past its edge (16 and beyond) the chart's last
// step, −1.3 points a rep, carries on, floored at 30%.
var rtsChart = []float64{
	100, 97.8, 95.5, 93.9, 92.2, 90.7, 89.2, 87.8, 86.3, 85.0, // 1 … 5.5
	83.7, 82.4, 81.1, 79.9, 78.6, 77.4, 76.2, 75.1, 73.9, 72.3, // 6 … 10.5
	70.7, 69.4, 68.0, 66.7, 65.3, 64.0, 62.6, 61.3, 59.9, 58.6, // 11 … 15.5
	57.3, // 16
}

// Share is the share of her 1RM (0–1) she can lift for reps with rir
// reps in reserve, by the RTS chart.
func Share(reps int, rir float64) float64 {
	x := float64(max(reps, 1)) + max(rir, 0)
	k := (x - 1) * 2
	last := float64(len(rtsChart) - 1)
	if k >= last {
		return max(rtsChart[len(rtsChart)-1]-1.3*(x-16), 30) / 100
	}
	lo := int(math.Floor(k))
	frac := k - float64(lo)
	return (rtsChart[lo]*(1-frac) + rtsChart[lo+1]*frac) / 100
}

// E1RM is the one-rep maximum a set shows: load ÷ share.
func E1RM(kg float64, reps int, rir float64) float64 { return kg / Share(reps, rir) }

// humanBound is the heaviest load, by pattern, anyone has lifted for a
// rep (kg, rounded up from the raw records): a logged set above it is a
// typing error, not her strength.
var humanBound = map[string]float64{
	"squat": 500, "legpress": 1000, "kneeext": 200, "lunge": 300, "stepup": 250, "hinge": 510,
	"hingelight": 300, "bridge": 500, "kneeflex": 200, "swing": 100, "olympic": 270,
	"hpush": 360, "pushup": 100, "vpush": 230, "dip": 150, "fly": 100, "hpull": 320, "vpull": 200,
	"raise": 60, "cuff": 40, "curl": 120, "triext": 120, "wrist": 100, "shrug": 500, "calf": 500,
	"tibialis": 100, "hipiso": 300, "carry": 200, "ohcarry": 150, "sled": 600, "thruster": 200,
	"crunch": 150, "antirot": 100, "twist": 60, "getup": 100,
}

const (
	// loadTolerance is the slack on the table's allowance: tables differ
	// (Epley, Brzycki and the RTS chart part by up to 8% at 12+ reps).
	loadTolerance = 0.10
	// loadSlackKg is the absolute slack: one small plate step, so a 20 kg
	// squat may still go to 25.
	loadSlackKg = 2.5
	// jumpCap is the most a load may rise on her last one for as many
	// reps: 10%, or 5 kg on a light lift.
	jumpCap, jumpFloorKg = 0.10, 5.0
	// noDataKg is the heaviest first load the checker accepts with no
	// trusted set of the lift or its pattern behind it: an empty bar.
	noDataKg = 20.0
	// defaultRIR is read for a logged set without an RIR or RPE.
	defaultRIR = 1.0
)

// liftData is what her history says of one exercise.
type liftData struct {
	best      float64 // the best trusted e1RM
	last      float64 // the last trusted top load, and its reps
	lastReps  int
	untrusted []float64 // loads set aside: above people's, or far above hers
}

// setRIR is the reps in reserve a logged set names.
func setRIR(s LoggedSet) float64 {
	switch {
	case s.RIR != nil:
		return *s.RIR
	case s.RPE != nil:
		return 10 - *s.RPE
	}
	return defaultRIR
}

// liftsOf reads her loaded sets, exercise by exercise, and sets aside what
// cannot be trusted: a load above the human bound of its pattern, or a set
// whose e1RM is over 1.5 times the median of her other days of the lift.
func liftsOf(h []LoggedSession) map[string]*liftData {
	type day struct {
		date string
		e1rm float64
		top  float64
		reps int
	}
	days := map[string][]day{}
	out := map[string]*liftData{}
	for _, s := range h {
		for _, e := range s.Exercises {
			m, _ := lookup(e.Exercise)
			d := day{date: s.Date}
			for _, set := range e.Sets {
				if set.Kg <= 0 || set.Reps <= 0 {
					continue
				}
				ld := out[e.Exercise]
				if ld == nil {
					ld = &liftData{}
					out[e.Exercise] = ld
				}
				if b, ok := humanBound[m.Pattern]; ok && set.Kg > b {
					ld.untrusted = append(ld.untrusted, set.Kg)
					continue
				}
				if set.Reps > 30 {
					continue
				}
				if x := E1RM(set.Kg, set.Reps, setRIR(set)); x > d.e1rm {
					d.e1rm = x
				}
				if set.Kg > d.top || (set.Kg == d.top && set.Reps > d.reps) {
					d.top, d.reps = set.Kg, set.Reps
				}
			}
			if d.e1rm > 0 {
				days[e.Exercise] = append(days[e.Exercise], d)
			}
		}
	}
	for id, ds := range days {
		ld := out[id]
		for i, d := range ds {
			if len(ds) >= 4 {
				var others []float64
				for k, o := range ds {
					if k != i {
						others = append(others, o.e1rm)
					}
				}
				slices.Sort(others)
				if med := others[len(others)/2]; d.e1rm > 1.5*med {
					ld.untrusted = append(ld.untrusted, d.top)
					continue
				}
			}
			ld.best = max(ld.best, d.e1rm)
			ld.last, ld.lastReps = d.top, d.reps
		}
	}
	return out
}

// intensity is the RIR a prescription asks for (its RIR, its RPE, else
// none: read as to failure, the most the table allows).
func (it Item) intensity() float64 {
	switch {
	case it.RIR != nil:
		return float64(*it.RIR)
	case it.RPE != nil:
		return 10 - *it.RPE
	}
	return 0
}

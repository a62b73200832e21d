package weekplan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// check is the validator: every rule a plan must keep, each broken rule
// one sentence a model (or a person) can act on. An empty answer is a
// valid plan.
func (w *week) check(p Plan) []string {
	var out []string
	say := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if len(p.Sessions) == 0 {
		say("The week has no session; lay out at least one on %s.", daysList(w.days))
	}
	seen := map[int]bool{}
	muscles := map[string]int{}
	injured := map[string]string{}
	for _, inj := range w.in.Injuries {
		injured[inj.Area] = inj.ID
	}
	for _, s := range p.Sessions {
		day := weekdayName(s.Weekday)
		if !slices.Contains(w.days, s.Weekday) {
			say("%s is not one of her training days (%s); move that session to one of them.", day, daysList(w.days))
		}
		if seen[s.Weekday] {
			say("%s has two sessions; put one session on a day.", day)
		}
		seen[s.Weekday] = true
		if len(s.Items) == 0 {
			say("%s's session has no exercise.", day)
		}
		if s.DurationMin > w.in.Minutes {
			say("%s's session takes about %d minutes, over her %d; drop an exercise from it.", day, s.DurationMin, w.in.Minutes)
		}
		ids := map[string]bool{}
		for _, it := range s.Items {
			if ids[it.ExerciseID] {
				say("%s lists %s twice; list an exercise once a session.", day, it.ExerciseID)
			}
			ids[it.ExerciseID] = true
			ex, ok := w.allowed[it.ExerciseID]
			if !ok {
				why := "needs equipment she does not have or is not planned work"
				if inj := w.avoided[it.ExerciseID]; inj != "" {
					why = "is ruled out by injury " + inj
				}
				say("%s's %s is not in the allowed set (it %s); choose another from the allowed list.", day, it.ExerciseID, why)
				ex = w.lookup(it.ExerciseID)
			}
			for _, a := range ex.Loads {
				if inj, hurt := injured[a]; hurt {
					say("%s's %s loads the %s, injured (%s); choose an exercise that spares it.", day, it.ExerciseID, strings.ReplaceAll(a, "_", " "), inj)
				}
			}
			if it.Sets < 1 {
				say("%s's %s has no working set.", day, it.ExerciseID)
			}
			if it.RPE == nil && it.RIR == nil && it.Percent1RM == nil {
				say("%s's %s has no intensity; every working set needs an RPE, RIR or %%1RM.", day, it.ExerciseID)
			}
			role := roleMain
			if idx := slices.IndexFunc(s.Items, func(x Item) bool { return x.ExerciseID == it.ExerciseID }); idx >= 2 {
				role = roleAccessory
			}
			want := w.prescribe(ex, role)
			if !sameLoad(want, it) {
				say("%s's %s is prescribed %s, but the rules give %s; loads come from the rules only.", day, it.ExerciseID, dose(it), dose(want))
			}
			if w.deload && it.Sets > w.setsFor(role) {
				say("%s's %s has %d sets in a deload week; at most %d.", day, it.ExerciseID, it.Sets, w.setsFor(role))
			}
			for _, m := range ex.Primary {
				muscles[m] += it.Sets
			}
		}
	}
	var over []string
	for m, n := range muscles {
		if n > w.band {
			over = append(over, fmt.Sprintf("%s %d", m, n))
		}
	}
	sort.Strings(over)
	if len(over) > 0 {
		say("Too many hard sets for a muscle this week (%s; at most %d for her level); drop an exercise that trains it.", strings.Join(over, ", "), w.band)
	}
	total := 0
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			total += it.Sets
		}
	}
	if w.cap > 0 && total > w.cap {
		say("The week has %d hard sets; it may have at most %d (last week %d, at most +20%%, less after overreaching or in a deload); drop exercises.", total, w.cap, w.weekSets[3])
	}
	if w.deload && !p.Deload {
		say("This is a deload week; the plan must be marked as one.")
	}
	return out
}

// sameLoad reports whether a plan's item carries the rules' prescription.
func sameLoad(want, got Item) bool {
	eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	eqi := func(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return want.Sets == got.Sets && want.Reps == got.Reps && want.Seconds == got.Seconds &&
		eq(want.LoadKg, got.LoadKg) && eq(want.RPE, got.RPE) && eq(want.Percent1RM, got.Percent1RM) && eqi(want.RIR, got.RIR)
}

// dose says an item's prescription in a few words: "3×8 at 60 kg, RIR 2".
func dose(it Item) string {
	var b strings.Builder
	switch {
	case it.Seconds > 0:
		fmt.Fprintf(&b, "%d×%d s", it.Sets, it.Seconds)
	case it.RepsMax > it.Reps:
		fmt.Fprintf(&b, "%d×%d–%d", it.Sets, it.Reps, it.RepsMax)
	default:
		fmt.Fprintf(&b, "%d×%d", it.Sets, it.Reps)
	}
	if it.LoadKg != nil {
		fmt.Fprintf(&b, " at %g kg", *it.LoadKg)
	}
	switch {
	case it.RPE != nil:
		fmt.Fprintf(&b, ", RPE %g", *it.RPE)
	case it.RIR != nil:
		fmt.Fprintf(&b, ", RIR %d", *it.RIR)
	}
	if it.Percent1RM != nil {
		fmt.Fprintf(&b, " (%g%% 1RM)", *it.Percent1RM)
	}
	return b.String()
}

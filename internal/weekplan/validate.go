package weekplan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/otherwise/perform/internal/domain"
)

// check is the validator: every rule a plan must keep, each broken rule
// one sentence a model (or a person) can act on. An empty answer is a
// valid plan. The sentences are English: the model reads them.
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
	sportSessions, sportMinutes, conditioning, rehab, strengthDays := 0, 0, 0, 0, 0
	for si, s := range p.Sessions {
		day := weekdayName(s.Weekday)
		if !slices.Contains(w.days, s.Weekday) {
			say("%s is not one of her training days (%s); move that session to one of them.", day, daysList(w.days))
		} else if s.Date != w.dates[s.Weekday] {
			say("%s's session is dated %s; in the week of %s that day is %s.", day, s.Date, w.in.WeekStart, w.dates[s.Weekday])
		}
		if seen[s.Weekday] {
			say("%s has two sessions; put one session on a day.", day)
		}
		seen[s.Weekday] = true
		pl, isPlanned := w.planned[s.Weekday]
		switch {
		case len(w.planned) > 0 && !isPlanned && !w.isBooked(s.Weekday):
			say("%s has no planned session in her program's week; the plan adjusts the planned sessions and adds none.", day)
		case isPlanned && s.PlannedID != pl.ID:
			say("%s's session must adjust her planned session %s in place (plannedId).", day, pl.ID)
		case !isPlanned && s.PlannedID != "":
			say("%s's session names planned session %q, which is not hers this week.", day, s.PlannedID)
		}
		if len(s.Items) == 0 {
			say("%s's session has no exercise.", day)
		}
		if est := duration(s.Items); s.DurationMin < est {
			say("%s's session is given %d minutes but takes about %d; give its honest estimate.", day, s.DurationMin, est)
		}
		if s.DurationMin > w.in.Minutes && !isPlanned {
			say("%s's session takes about %d minutes, over her %d; drop an exercise from it.", day, s.DurationMin, w.in.Minutes)
		}
		if t := w.fillTarget(); s.DurationMin < t && !isPlanned {
			say("%s's session takes about %d of her %d minutes; fill it to at least %d (%.0f%%).", day, s.DurationMin, w.in.Minutes, t, w.fillShare()*100)
		}
		ids := map[string]bool{}
		pos, hasSport, hasStrength := 0, false, false
		for _, it := range s.Items {
			if ids[it.ExerciseID] {
				say("%s lists %s twice; list an exercise once a session.", day, it.ExerciseID)
			}
			ids[it.ExerciseID] = true
			ex, ok := w.allowed[it.ExerciseID]
			if !ok {
				why := "needs equipment she does not have or is not planned work"
				switch by := w.avoided[it.ExerciseID]; by {
				case "":
				case "level":
					why = "asks more skill than her level and she has not logged it"
				case "condition":
					why = "is ruled out by a health condition's rules"
				case "senior":
					why = "is ruled out by the senior rules"
				default:
					why = "is ruled out by injury " + by
				}
				say("%s's %s is not in the allowed set (it %s); choose another from the allowed list.", day, it.ExerciseID, why)
				ex = w.lookup(it.ExerciseID)
			}
			if !ok || !(slices.Contains(w.rehab, ex.ID) || w.reduced[ex.ID]) {
				for _, a := range slices.Sorted(maps.Keys(injured)) {
					if loads(ex, a) {
						say("%s's %s loads the %s, injured (%s); choose an exercise that spares it.", day, it.ExerciseID, strings.ReplaceAll(a, "_", " "), injured[a])
					}
				}
			}
			if it.Sets < 1 {
				say("%s's %s has no working set.", day, it.ExerciseID)
			}
			if it.RPE == nil && it.RIR == nil && it.Percent1RM == nil {
				say("%s's %s has no intensity; every working set needs an RPE, RIR or %%1RM.", day, it.ExerciseID)
			}
			switch {
			case w.isEndurance(ex) || isMobility(ex):
				if it.Minutes <= 0 {
					say("%s's %s has no minutes; an endurance item is prescribed in minutes.", day, it.ExerciseID)
				}
				if c := w.cond.rpeCap; c > 0 && it.RPE != nil && *it.RPE > c {
					say("%s's %s is at RPE %g; her conditions allow RPE %g at most.", day, it.ExerciseID, *it.RPE, c)
				}
				if it.ExerciseID == w.sport.exercise && w.sport.exercise != "" {
					hasSport = true
					sportMinutes += it.Minutes
				} else if w.isEndurance(ex) && !it.pad {
					conditioning++
				}
			case slices.Contains(w.rehab, ex.ID):
				rehab++
			default:
				hasStrength = true
				at := pos
				role := roleOf(at)
				pos++
				want := w.itemFor(s.Weekday, it.ExerciseID, &at, nil)
				if w.lightAfter(p, si, it) {
					want.Sets = min(want.Sets, 2)
				}
				if isPlanned && it.Sets >= 1 && it.Sets < want.Sets {
					want.Sets = it.Sets // a program's sets held to the week's cap (holdToCap)
				}
				if !sameLoad(want, it) {
					say("%s's %s is prescribed %s, but the rules give %s; loads come from the rules only.", day, it.ExerciseID, dose(it), dose(want))
				}
				if w.deload && !isPlanned && it.Sets > w.setsFor(role) {
					say("%s's %s has %d sets in a deload week; at most %d.", day, it.ExerciseID, it.Sets, w.setsFor(role))
				}
				for _, m := range ex.Primary {
					muscles[m] += it.Sets
				}
			}
			out = append(out, w.checkLoad(day, ex, it)...)
		}
		if hasSport {
			sportSessions++
		}
		if hasStrength {
			strengthDays++
		}
	}
	for _, d := range w.days {
		if w.isBooked(d) && !seen[d] {
			say("%s is booked (%s): a booked day is fixed; lay out a session on it.", weekdayName(d), strings.Join(w.bookedStarts(d), ", "))
		}
	}
	if len(w.planned) == 0 {
		if sp := w.sport; sp.exercise != "" && sportSessions < sp.sessions {
			say("Her sport is %s: the week needs %d sessions of %s, and has %d; keep her sport's sessions.", sp.name, sp.sessions, sp.exercise, sportSessions)
		}
		if w.finisher != "" && conditioning == 0 && w.roomForConditioning(p) {
			say("Her goal asks for conditioning; end strength sessions with %s.", w.finisher)
		}
		if len(w.rehab) > 0 && strengthDays > 0 && rehab == 0 {
			say("A tendinopathy's isometrics (%s) belong in the week; open a strength session with one.", strings.Join(w.rehab, ", "))
		}
	}
	if sp := w.sport; sp.exercise != "" && len(w.planned) == 0 && sportMinutes > sp.minutes+5 {
		say("The week has %d minutes of %s; at most %d (about +10%% on her last week, less in a deload or under an injury).", sportMinutes, sp.exercise, sp.minutes)
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
			if w.strengthItem(it.ExerciseID) {
				total += it.Sets
			}
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

// roomForConditioning reports whether a strength session of the plan has
// room for the goal's conditioning within her minutes (a session too
// short for it keeps its strength work first). The room is judged as the
// builder judges it: the session's own exercises with the conditioning
// added, prescribed afresh for the day, against her minutes; a session's
// sets trimmed later for the week's cap make no room the builder never
// had.
func (w *week) roomForConditioning(p Plan) bool {
	for _, s := range p.Sessions {
		day := LayoutDay{Weekday: s.Weekday}
		strength := false
		for _, it := range s.Items {
			if !it.pad {
				day.Exercises = append(day.Exercises, it.ExerciseID)
			}
			strength = strength || w.strengthItem(it.ExerciseID)
		}
		if !strength {
			continue
		}
		day.Exercises = append(day.Exercises, w.finisher)
		if duration(w.dayItems(day, nil)) <= w.in.Minutes {
			return true
		}
	}
	return false
}

// checkLoad holds an item's load to the load table: only from a trusted
// estimate, within what the estimate allows for the reps and reserve
// prescribed, at most 10% (or one step) over her last top load, and within
// what people lift.
func (w *week) checkLoad(day string, ex domain.Exercise, it Item) []string {
	if it.LoadKg == nil {
		return nil
	}
	var out []string
	kg := *it.LoadKg
	if limit := humanMaxKg(ex); kg > limit {
		out = append(out, fmt.Sprintf("%s's %s is prescribed %g kg, beyond what people lift on it (%g kg); her log holds a mistake: leave the load open.", day, it.ExerciseID, kg, limit))
	}
	e1 := w.e1rm[ex.ID]
	if e1 == 0 {
		return append(out, fmt.Sprintf("%s's %s is prescribed %g kg, but her log holds no load the plan can trust for it; leave the load open (3 reps in reserve).", day, it.ExerciseID, kg))
	}
	rir := 0
	switch {
	case it.RIR != nil:
		rir = *it.RIR
	case it.RPE != nil:
		rir = int(10 - *it.RPE)
	}
	inc, _ := step(ex)
	if a := allowance(e1, it.Reps, rir, inc); kg > a+0.01 {
		out = append(out, fmt.Sprintf("%s's %s is prescribed %g kg for %d reps with %d in reserve; her estimated 1RM of %.1f kg allows %.1f kg at most (%s): lower the load.",
			day, it.ExerciseID, kg, it.Reps, rir, e1, a, TableSource))
	}
	if it.RepsMax > it.Reps {
		if r := topReach(e1, it.RepsMax); kg > r+0.01 {
			out = append(out, fmt.Sprintf("%s's %s tops out at %d reps, beyond her reach at %g kg (her estimated 1RM of %.1f kg reaches %d reps at %.1f kg at most): lower the load or the range.",
				day, it.ExerciseID, it.RepsMax, kg, e1, it.RepsMax, r))
		}
	}
	if last := w.lastTop[ex.ID]; last > 0 && kg > jumpCap(last, inc)+0.01 {
		out = append(out, fmt.Sprintf("%s's %s jumps to %g kg from her last %g kg; at most +10%% (or one %g kg step) a week.", day, it.ExerciseID, kg, last, inc))
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

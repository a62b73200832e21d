package weekplan

import (
	"math"
	"slices"
	"sort"

	"github.com/otherwise/perform/internal/domain"
)

// plannedLayout is her program's week as a layout: each planned session
// on its day with its exercises, one that the week rules out swapped for
// an allowed alternative (the catalogue's, then one of the same movement
// pattern) or dropped; an endurance session with no exercises gets her
// sport's (or the session's sport's) exercise, and a strength session with
// none is filled as the rules fill a strength day (its slots of the split).
func (w *week) plannedLayout() Layout {
	var out Layout
	var swaps, drops []string
	empty := 0 // strength sessions planned without exercises
	for _, d := range w.days {
		if s, ok := w.planned[d]; !ok || len(s.Exercises) == 0 && w.sessionExercise(s) == "" {
			empty++ // a booked day her program has no session on is a strength day of the rules
		}
	}
	tpl := split(max(empty, 1))
	if w.experience == beginner {
		tpl = []template{fullA, fullB, fullC}
	}
	used, j, planned := map[string]int{}, 0, 0
	for _, d := range w.days {
		s, isPlanned := w.planned[d]
		day := LayoutDay{Weekday: d, Title: s.Title}
		if day.Title == "" {
			day.Title = w.tr(titleCase(s.Sport), sportHe[s.Sport])
			if s.Sport == "strength" || day.Title == "" {
				day.Title = w.tr("Strength", "כוח")
			}
		}
		for _, e := range s.Exercises {
			id := w.substitute(e.ExerciseID, day.Exercises)
			switch {
			case id == "":
				drops = append(drops, e.ExerciseID)
			case id != e.ExerciseID:
				swaps = append(swaps, e.ExerciseID+" → "+id)
				fallthrough
			default:
				day.Exercises = append(day.Exercises, id)
			}
		}
		if len(s.Exercises) == 0 {
			if id := w.sessionExercise(s); id != "" && isPlanned {
				day.Exercises = append(day.Exercises, id)
			} else {
				for _, slot := range tpl[j%len(tpl)].slots {
					if id := w.pick(slot, used, day.Exercises); id != "" {
						day.Exercises = append(day.Exercises, id)
						used[id]++
					}
				}
				j++
			}
		}
		if len(day.Exercises) > 0 {
			out.Sessions = append(out.Sessions, day)
			if isPlanned {
				planned++
			} else {
				w.fitMinutes(&out, len(out.Sessions)-1) // a booked day's session is held to her minutes
			}
		}
	}
	sort.Strings(swaps)
	reason := w.trf("The week is %s program's: %d planned sessions adjusted in place, none added.",
		"השבוע הוא של התוכנית %s: %d אימונים מתוכננים הותאמו במקומם, בלי להוסיף אימונים.", w.her(), planned)
	if added := len(out.Sessions) - planned; added > 0 {
		reason = w.trf("The week is %s program's: %d planned sessions adjusted in place, and %d added on booked days the program leaves free.",
			"השבוע הוא של התוכנית %s: %d אימונים מתוכננים הותאמו במקומם, ו-%d נוספו בימים שנקבעו בהם תורים והתוכנית משאירה פנויים.", w.her(), planned, added)
	}
	if len(swaps) > 0 {
		reason += w.trf(" Swapped: %s.", " הוחלפו: %s.", joinIDs(swaps))
	}
	if len(drops) > 0 {
		reason += w.trf(" Left out, with nothing that spares the area to swap in: %s.", " הוצאו, בלי חלופה מתאימה: %s.", w.names(drops))
	}
	if w.deload {
		reason += w.tr(" A deload week: fewer sets, lighter loads, 70% of the endurance minutes.", " שבוע הורדת עומס: פחות סטים, משקלים קלים יותר, 70% מדקות האירובי.")
	}
	w.adjust = append(w.adjust, Adjustment{Kind: AdjustProgram, Reason: reason})
	return out
}

func joinIDs(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// substitute is id when the week allows it, else its first allowed
// alternative not yet in the day, else an allowed exercise of its pattern
// and category; "" when none.
func (w *week) substitute(id string, day []string) string {
	if _, ok := w.allowed[id]; ok {
		return id
	}
	ex := w.lookup(id)
	for _, alt := range ex.Alternatives {
		if _, ok := w.allowed[alt]; ok && !slices.Contains(day, alt) {
			return alt
		}
	}
	for _, cand := range w.in.Exercises {
		if _, ok := w.allowed[cand.ID]; ok && cand.Pattern == ex.Pattern && ex.Pattern != "" && cand.Category == ex.Category && !slices.Contains(day, cand.ID) {
			return cand.ID
		}
	}
	if w.isEndurance(ex) && w.sport.exercise != "" {
		return w.sport.exercise
	}
	return ""
}

// sessionExercise is the exercise an endurance session without exercises
// is done with: the session's sport's, or a swap that spares an injury.
func (w *week) sessionExercise(s domain.Session) string {
	for _, id := range sportDefaults[s.Sport] {
		if id := w.substitute(id, nil); id != "" {
			return id
		}
	}
	return w.sport.exercise
}

// fromPlan sets a planned session's item to its program's target, within
// the week's rules: the program's sets (fewer in a deload) and reps (the
// load then read from the table at those reps), its hold, its minutes
// (70% of them in a deload or under a mild injury).
func (w *week) fromPlan(it *Item, ex domain.Exercise, s domain.Session) {
	var t *domain.ExerciseTarget
	for _, e := range s.Exercises {
		if e.ExerciseID == ex.ID {
			t = e.Target
		}
	}
	if it.Minutes > 0 {
		m := 0
		switch {
		case t != nil && t.Seconds != nil:
			m = *t.Seconds / 60
		case s.DurationMin != nil:
			m = *s.DurationMin
		}
		if m > 0 {
			if w.deload || w.returning || w.reduced[ex.ID] {
				m = int(float64(m) * 0.7)
			}
			it.Minutes = max(m, 5)
			it.DistanceKm = nil
			if t != nil && t.Metres != nil && !w.deload && !w.reduced[ex.ID] {
				it.DistanceKm = new(math.Round(*t.Metres/500) / 2)
			}
			it.Basis = w.tr("the program's session", "האימון מהתוכנית")
		}
		return
	}
	if t == nil {
		return
	}
	if t.Sets != nil && *t.Sets > 0 && !slices.Contains(w.rehab, ex.ID) {
		it.Sets = *t.Sets
		if w.deload {
			it.Sets = max(int(math.Round(float64(it.Sets)*0.6)), 1)
		}
	}
	if t.Seconds != nil && it.Seconds > 0 {
		it.Seconds = *t.Seconds
		if w.cond.maxHold > 0 {
			it.Seconds = min(it.Seconds, w.cond.maxHold)
		}
		it.Basis = w.trf("the program's hold: %d s", "ההחזקה של התוכנית: %d שניות", it.Seconds)
	}
	if t.Reps != nil && *t.Reps > 0 && it.Seconds == 0 {
		reps := max(*t.Reps, w.cond.minReps)
		if reps != it.Reps || it.RepsMax > 0 {
			it.Reps, it.RepsMax = reps, 0
			if it.LoadKg != nil {
				rir := 3
				if it.RIR != nil {
					rir = *it.RIR
				} else if it.RPE != nil {
					rir = 10 - int(*it.RPE)
				}
				inc, rnd := step(ex)
				load := min(tableLoad(w.e1rm[ex.ID], reps, rir), jumpCap(w.lastTop[ex.ID], inc), humanMaxKg(ex))
				if w.deload {
					load *= 0.9
				}
				it.LoadKg = nil
				if floorTo(load, rnd) >= rnd {
					it.LoadKg = new(floorTo(load, rnd))
				}
				it.Percent1RM = nil
				it.Basis = w.trf("the program's %d reps: %.0f%% of the estimated 1RM of %.1f kg with %d in reserve (%s)",
					"%[1]d החזרות של התוכנית: %.0[2]f%% מה-1RM המוערך (%.1[3]f ק\"ג) עם %[4]d ברזרבה", reps,
					Percent1RM(reps, float64(rir))*100, w.e1rm[ex.ID], rir, TableSource)
			}
		}
	}
}

// holdToCap keeps her program's week within the week's hard-set cap (at
// most +20% on her last week): a set comes off the last exercise with the
// most sets of the fullest session, one at a time, down to two an
// exercise (one in a deload week); her program's exercises all stay, and the minutes freed go to
// a cool-down. An adjustment says so.
func (w *week) holdToCap(p *Plan) {
	if w.cap == 0 || p.HardSets <= w.cap {
		return
	}
	from := p.HardSets
	before := map[int]int{}
	for i, s := range p.Sessions {
		before[i] = duration(s.Items)
	}
	least := 2
	if w.deload {
		least = 1
	}
	for p.HardSets > w.cap {
		si, xi := -1, -1
		for i, s := range p.Sessions {
			if _, ok := w.planned[s.Weekday]; !ok {
				continue // a booked day's session is the rules' own, prescribed as the rules give it
			}
			for j, it := range s.Items {
				if !w.strengthItem(it.ExerciseID) || it.Sets <= least {
					continue
				}
				if si < 0 || it.Sets > p.Sessions[si].Items[xi].Sets ||
					it.Sets == p.Sessions[si].Items[xi].Sets && len(s.Items) >= len(p.Sessions[si].Items) {
					si, xi = i, j
				}
			}
		}
		if si < 0 {
			break // the least sets an exercise already: the validator says what is left
		}
		p.Sessions[si].Items[xi].Sets--
		p.HardSets--
		w.relighten(p) // a booked day after a day no longer heavy gets its sets back
	}
	for i := range p.Sessions {
		// The minutes the sets leave go to a cool-down: the session keeps
		// the length her program gave it.
		if _, ok := w.planned[p.Sessions[i].Weekday]; !ok {
			continue
		}
		w.padTo(&p.Sessions[i], before[i])
		p.Sessions[i].DurationMin = duration(p.Sessions[i].Items)
	}
	p.Adjustments = append(p.Adjustments, Adjustment{Kind: AdjustProgram,
		Reason: w.trf("The program's week holds %d hard sets; last week %s logged %d, so this one is held to %d (at most +20%%): sets come off, every exercise stays.",
			"בשבוע של התוכנית %d סטים קשים; בשבוע שעבר נרשמו %[3]d, ולכן השבוע מוגבל ל-%[4]d (עד \u200e+20%%): יורדים סטים, כל התרגילים נשארים.",
			from, w.her(), w.weekSets[3], p.HardSets)})
}

package weekplan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/training"
)

// digestHistory reads the logged sets: each exercise's exposures (trusted
// sets only), her estimated 1RM and latest top load, the weekly hard sets.
// A set is not trusted when its estimated 1RM is beyond what people lift
// on that exercise, or more than half again the median of her sessions'
// best on it: it is flagged, said in an adjustment, and left out of every
// estimate.
func (w *week) digestHistory() {
	sessions := slices.Clone(w.in.History)
	slices.SortStableFunc(sessions, func(a, b domain.Session) int { return strings.Compare(a.Date, b.Date) })
	type raw struct {
		date string
		sets []domain.SetEntry
	}
	byEx := map[string][]raw{}
	var ids []string
	for _, s := range sessions {
		if s.Status != domain.SessionCompleted || s.Date >= w.in.WeekStart {
			continue
		}
		k := weeksBefore(s.Date, w.in.WeekStart)
		if k >= 1 && k <= 4 {
			w.weekSessions[4-k]++
		}
		for _, e := range s.Exercises {
			var done []domain.SetEntry
			for _, set := range e.Sets {
				if set.Done && ((set.Reps != nil && *set.Reps > 0) || (set.Seconds != nil && *set.Seconds > 0)) {
					done = append(done, set)
				}
			}
			if len(done) == 0 {
				continue
			}
			if k >= 1 && k <= 4 && !w.isEndurance(w.lookup(e.ExerciseID)) {
				w.weekSets[4-k] += len(done)
			}
			if _, seen := byEx[e.ExerciseID]; !seen {
				ids = append(ids, e.ExerciseID)
			}
			byEx[e.ExerciseID] = append(byEx[e.ExerciseID], raw{s.Date, done})
		}
	}
	for _, id := range ids {
		ex := w.lookup(id)
		limit := humanMaxKg(ex)
		// Her own bound: half again the median of her sessions' best
		// estimates (each session's best, so warm-up sets weigh nothing),
		// once she has three sessions of it.
		var bests []float64
		for _, r := range byEx[id] {
			best := 0.0
			for _, s := range r.sets {
				if v := setE1RM(s); v <= limit {
					best = max(best, v)
				}
			}
			if best > 0 {
				bests = append(bests, best)
			}
		}
		median := 0.0
		if len(bests) >= 3 {
			slices.Sort(bests)
			median = bests[(len(bests)-1)/2]
		}
		for _, r := range byEx[id] {
			var kept []domain.SetEntry
			for _, s := range r.sets {
				v := setE1RM(s)
				if v > limit || (median > 0 && v > median*1.5) {
					w.flagged = append(w.flagged, flagged{exercise: id, date: r.date, reps: *s.Reps, kg: *s.LoadKg, human: v > limit})
					continue
				}
				kept = append(kept, s)
			}
			if len(kept) > 0 {
				w.exposures[id] = append(w.exposures[id], exposure{date: r.date, sets: kept})
			}
		}
		xs := w.exposures[id]
		for i := len(xs) - 1; i >= 0; i-- {
			if l, _ := xs[i].top(); l > 0 {
				w.lastTop[id] = l
				break
			}
		}
		// Her estimate: the better of her last two exposures.
		for i := max(len(xs)-2, 0); i < len(xs); i++ {
			w.e1rm[id] = max(w.e1rm[id], xs[i].e1RM())
		}
	}
	for _, f := range w.flagged {
		name := w.name(w.lookup(f.exercise))
		why := w.tr("far beyond "+w.her()+" own history on it", "רחוק מעבר להיסטוריה "+w.her()+" בתרגיל")
		if f.human {
			why = w.tr("beyond what people lift", "מעבר למה שאדם מרים")
		}
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustData, Exercises: []string{f.exercise},
			Reason: w.trf("%s: the set logged on %s (%d × %g kg) is %s; it was left out of the estimates and no load comes from it. Correct the log if it was mistyped.",
				"%s: הסט שנרשם ב-%s (%d × %g ק\"ג) %s; הוא הוצא מההערכות ושום משקל לא נגזר ממנו. כדאי לתקן את הרישום אם נפלה טעות.",
				name, f.date, f.reps, f.kg, why)})
	}
}

// judgeStalls marks the allowed exercises that stalled: the best estimated
// 1RM of each of the three weeks before, every one logged, never above the
// first of them, and the latest sets hard (RPE 8 or more, 2 or fewer in
// reserve). A load held on purpose at RPE 6 or 7 is not a stall.
func (w *week) judgeStalls() {
	for _, id := range w.order {
		xs := w.exposures[id]
		if len(xs) == 0 {
			continue
		}
		var best [4]float64 // by weeks before: best[1] the week just before
		for _, x := range xs {
			if k := weeksBefore(x.date, w.in.WeekStart); k >= 1 && k <= 3 {
				best[k] = max(best[k], x.e1RM())
			}
		}
		hard := xs[len(xs)-1].effort() <= 2
		if hard && best[1] > 0 && best[2] > 0 && best[3] > 0 && best[1] <= best[3]+0.01 && best[2] <= best[3]+0.01 {
			w.stalled[id] = true
		}
	}
}

// mainLift reports whether ex is a main lift: a loaded compound movement
// with a bar or free weights. Only main lifts' stalls make a deload.
func mainLift(ex domain.Exercise) bool {
	if ex.Measure != domain.MeasureRepsLoad {
		return false
	}
	switch ex.Pattern {
	case "squat", "hinge", "lunge", "push_horizontal", "push_vertical", "pull_horizontal", "pull_vertical", "olympic":
	default:
		return false
	}
	return slices.ContainsFunc(ex.Equipment, func(e string) bool {
		return e == "barbell" || e == "trap bar" || e == "dumbbell" || e == "kettlebell"
	})
}

// weeksBefore is how many weeks before weekStart day's week is (1: the
// week just before).
func weeksBefore(day, weekStart string) int {
	return (training.DayDiff(day, weekStart) + 6) / 7
}

// decide sets the week's deload, caps and adjustments from the history,
// the readiness, the program, her age and her conditions.
func (w *week) decide() {
	last := w.weekSets[3]
	prev := (w.weekSets[0] + w.weekSets[1] + w.weekSets[2]) / 3
	if last > 0 {
		// At most +20% on the last full week, and never under a starter's week.
		w.cap = max(last*6/5, w.minCap())
	}
	// A returner: nothing logged in the three weeks before, something before that.
	if w.weekSessions[1]+w.weekSessions[2]+w.weekSessions[3] == 0 && w.lastLogged() != "" {
		w.returning = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustReturn,
			Reason: w.trf("Back after %d days without a logged session (the last on %s): two sets an exercise, loads 15%% under the last ones, 3 reps in reserve.",
				"%s אחרי %d ימים בלי אימון רשום (האחרון ב-%s): שני סטים לתרגיל, משקלים נמוכים ב-15%% מהאחרונים, 3 חזרות ברזרבה.",
				w.retArgs()...)})
	}
	// Overreaching: last week far above the three before, or every session very hard.
	if rpe, n := w.lastWeekRPE(); (prev > 0 && last > w.minCap() && last*10 > prev*13) || (n >= 2 && rpe >= 9) {
		target := prev
		if target == 0 || target > last {
			target = last * 4 / 5
		}
		w.cap = max(target, w.minCap())
		w.minRIR = max(w.minRIR, 2)
		reason := w.trf("Last week's %d hard sets were well above the %d a week before it", "%d הסטים הקשים של השבוע שעבר היו הרבה מעל %d בשבוע שלפניו", last, prev)
		if n >= 2 && rpe >= 9 {
			reason = w.trf("Last week's sessions averaged RPE %.1f", "האימונים בשבוע שעבר היו בממוצע RPE %.1f", rpe)
		}
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustOverreaching, Reason: reason +
			w.trf(": this week is held to %d hard sets, with at least 2 reps in reserve.", ": השבוע מוגבל ל-%d סטים קשים, עם 2 חזרות ברזרבה לפחות.", w.cap)})
	}
	// Readiness: the latest three check-ins of the last week.
	if avg, n := w.readiness(); n > 0 && avg <= 4 {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustReadiness,
			Reason: w.trf("Readiness averaged %.1f of 10 over %s last %d check-ins: a deload week (fewer sets, lighter loads, more in reserve).",
				"המוכנות %s הייתה בממוצע %.1f מתוך 10 ב-%d הדיווחים האחרונים: שבוע הורדת עומס (פחות סטים, משקלים קלים יותר, יותר ברזרבה).",
				w.readyArgs(avg, n)...)})
	}
	var stalled, mainStalled []string
	for id := range w.stalled {
		stalled = append(stalled, id)
		if mainLift(w.allowed[id]) {
			mainStalled = append(mainStalled, id)
		}
	}
	sort.Strings(stalled)
	sort.Strings(mainStalled)
	if len(stalled) > 0 {
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustStall, Exercises: stalled,
			Reason: w.trf("No progress over the last three weeks of %s, at RPE 8 or harder: the load is reset 10%% to build back.",
				"אין התקדמות בשלושת השבועות האחרונים ב-%s, במאמץ RPE 8 ומעלה: המשקל יורד ב-10%% כדי לבנות מחדש.", w.names(stalled))})
	}
	if len(mainStalled) >= 2 && !w.deload {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustDeload, Exercises: mainStalled,
			Reason: w.trf("%d main lifts stalled at once (%s): a deload week.", "%d תרגילים מרכזיים נתקעו יחד (%s): שבוע הורדת עומס.", len(mainStalled), w.names(mainStalled))})
	}
	if p := w.in.Program; p != nil && strings.Contains(strings.ToLower(p.Phase), "deload") && !w.deload {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustDeload, Reason: w.trf("The program %q is in its %q phase: a deload week.", "התוכנית %q בשלב %q: שבוע הורדת עומס.", p.Name, p.Phase)})
	}
	if !w.deload && w.fourHardWeeks() {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustDeload, Reason: w.tr("Four hard weeks in a row without a lighter one: a scheduled deload week.",
			"ארבעה שבועות קשים ברצף בלי שבוע קל: שבוע הורדת עומס מתוכנן.")})
	}
	if w.deload {
		base := max(last, prev)
		if base > 0 {
			w.cap = max((base*6+9)/10, w.minCap()/2) // about 60% of the usual week
		}
		w.minRIR = max(w.minRIR, 3)
	}
	if w.returning {
		w.minRIR = max(w.minRIR, 3)
	}
	w.minRIR = max(w.minRIR, w.cond.minRIR)
	if w.cond.minRIR > 0 && w.rule == RuleRPE {
		w.rule = RuleDouble
	}
	if a := w.in.Age; a != nil && (w.senior || *a < 18) {
		w.minRIR = max(w.minRIR, 2)
		if *a >= 65 {
			w.minRIR = 3
		}
		if w.rule == RuleRPE {
			w.rule = RuleDouble
		}
		who, whoHe := fmt.Sprintf("a trainee of %d or more", w.seniorAge()), fmt.Sprintf("%s בגיל %d ומעלה", w.g("מתאמנת", "מתאמן"), w.seniorAge())
		if *a < 18 {
			who, whoHe = "a trainee under 18", w.g("מתאמנת", "מתאמן")+" מתחת לגיל 18"
		}
		reason := w.trf("Planned for %s: at least %d reps in reserve on every set, loads progressed by reps before weight, no %%1RM work",
			"מתוכנן ל%s: לפחות %d חזרות ברזרבה בכל סט, התקדמות בחזרות לפני משקל, בלי עבודה לפי אחוז מ-1RM", who, w.minRIR)
		if w.lang() == "he" {
			reason = fmt.Sprintf("מתוכנן ל%s: לפחות %d חזרות ברזרבה בכל סט, התקדמות בחזרות לפני משקל, בלי עבודה לפי אחוז מ-1RM", whoHe, w.minRIR)
		}
		if w.senior {
			reason += w.tr("; no jumps, no Olympic lifts, no exercise beyond the trainee's level.", "; בלי קפיצות, בלי הרמות אולימפיות ובלי תרגילים מעבר לרמה.")
		} else {
			reason += "."
		}
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustAge, Reason: reason})
	}
}

// retArgs are the returner's sentence's arguments, in the language's order.
func (w *week) retArgs() []any {
	days, last := training.DayDiff(w.lastLogged(), w.in.WeekStart), w.lastLogged()
	if w.lang() == "he" {
		return []any{w.g("חוזרת", "חוזר"), days, last}
	}
	return []any{days, last}
}

func (w *week) readyArgs(avg float64, n int) []any {
	if w.lang() == "he" {
		return []any{w.her(), avg, n}
	}
	return []any{avg, w.her(), n}
}

// names lists exercises by their names in the plan's language.
func (w *week) names(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = w.name(w.lookup(id))
	}
	return strings.Join(out, ", ")
}

func (w *week) lastLogged() string {
	latest := ""
	for _, xs := range w.exposures {
		if d := xs[len(xs)-1].date; d > latest {
			latest = d
		}
	}
	return latest
}

// lastWeekRPE is the mean session RPE of the week before and how many
// sessions reported one.
func (w *week) lastWeekRPE() (float64, int) {
	sum, n := 0, 0
	for _, s := range w.in.History {
		if s.Status == domain.SessionCompleted && s.RPE != nil && weeksBefore(s.Date, w.in.WeekStart) == 1 {
			sum += *s.RPE
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

// readiness is the mean of the latest three readiness check-ins of the
// seven days up to today.
func (w *week) readiness() (float64, int) {
	cs := slices.Clone(w.in.CheckIns)
	slices.SortFunc(cs, func(a, b domain.CheckIn) int { return strings.Compare(b.Day, a.Day) })
	sum, n := 0, 0
	for _, c := range cs {
		if c.Readiness == nil || training.DayDiff(c.Day, w.in.Today) > 7 || c.Day > w.in.Today {
			continue
		}
		sum += *c.Readiness
		if n++; n == 3 {
			break
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

// fourHardWeeks: every one of the four weeks before was trained, none
// under 70% of the hardest (a lighter week counts as the last deload).
func (w *week) fourHardWeeks() bool {
	hardest := slices.Max(w.weekSets[:])
	if hardest == 0 {
		return false
	}
	for _, n := range w.weekSets {
		if n*10 < hardest*7 {
			return false
		}
	}
	return true
}

package weekplan

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/training"
)

// InputError is input the core cannot plan from, with the sentence that
// says how to fix it.
type InputError struct {
	Field   string
	Message string
}

func (e *InputError) Error() string { return e.Message }

func inputErr(field, format string, a ...any) *InputError {
	return &InputError{Field: field, Message: fmt.Sprintf(format, a...)}
}

// week is the core's view of one planning problem: the input, checked and
// digested. Every rule reads it; nothing changes it after prepare.
type week struct {
	in         Input
	experience string
	rule       string
	days       []int          // the ISO weekdays to plan, sorted
	dates      map[int]string // weekday → date
	allowed    map[string]domain.Exercise
	order      []string          // allowed ids: logged ones first, then catalogue order
	avoided    map[string]string // exercise id → the injury that rules it out
	exposures  map[string][]exposure
	weekSets   [4]int // hard sets logged in each of the 4 weeks before, oldest first
	band       int    // most hard sets a muscle may get in the week
	cap        int    // most hard sets in the week (0: no cap)
	deload     bool
	returning  bool
	stalled    map[string]bool
	minRIR     int
	adjust     []Adjustment
}

// minCap is the fewest hard sets a week's cap allows: two short sessions'
// worth, so that +20% on a week of three sets still plans a week.
const minCap = 12

// exposure is one session's working sets of one exercise.
type exposure struct {
	date string
	sets []domain.SetEntry // done sets with reps
}

// top is the exposure's heaviest load and the fewest reps done at it.
func (x exposure) top() (load float64, reps int) {
	for _, s := range x.sets {
		if s.LoadKg != nil && *s.LoadKg > load {
			load = *s.LoadKg
		}
	}
	reps = math.MaxInt
	for _, s := range x.sets {
		if s.LoadKg != nil && *s.LoadKg == load && s.Reps != nil && *s.Reps < reps {
			reps = *s.Reps
		}
	}
	if reps == math.MaxInt {
		reps = 0
	}
	return load, reps
}

// e1RM is the best estimated one-rep max of the exposure's sets (Epley,
// with the reps in reserve the set reported; none reported counts as none
// left, the lower estimate).
func (x exposure) e1RM() float64 {
	best := 0.0
	for _, s := range x.sets {
		if s.LoadKg == nil || s.Reps == nil || *s.Reps <= 0 {
			continue
		}
		rir := 0.0
		switch {
		case s.RIR != nil:
			rir = *s.RIR
		case s.RPE != nil:
			rir = 10 - *s.RPE
		}
		if v := *s.LoadKg * (1 + (float64(*s.Reps)+max(rir, 0))/30); v > best {
			best = v
		}
	}
	return best
}

// bestReps is the most reps of one set (body-weight exercises).
func (x exposure) bestReps() (reps, seconds int) {
	for _, s := range x.sets {
		if s.Reps != nil && *s.Reps > reps {
			reps = *s.Reps
		}
		if s.Seconds != nil && *s.Seconds > seconds {
			seconds = *s.Seconds
		}
	}
	return reps, seconds
}

// Experience levels.
const (
	beginner     = "beginner"
	intermediate = "intermediate"
	advanced     = "advanced"
)

// prepare checks the input and digests it into a week.
func prepare(in Input) (*week, error) {
	w := &week{in: in, dates: map[int]string{}, allowed: map[string]domain.Exercise{}, avoided: map[string]string{},
		exposures: map[string][]exposure{}, stalled: map[string]bool{}}
	monday, err := time.Parse(time.DateOnly, in.WeekStart)
	if err != nil || monday.Weekday() != in.FirstDay {
		return nil, inputErr("week", "the studio's weeks start on %s: the week must be given by its first day, YYYY-MM-DD; got %q", in.FirstDay, in.WeekStart)
	}
	if end := monday.AddDate(0, 0, 6).Format(time.DateOnly); end < in.Today {
		return nil, inputErr("week", "the week of %s ended on %s, before today (%s): plan this week or a coming one", in.WeekStart, end, in.Today)
	}
	if len(in.Days) == 0 {
		return nil, inputErr("days", "no training days are known: give days, or set the availability of her training profile (update_training_profile; ISO weekdays, 1 Monday … 7 Sunday)")
	}
	for _, d := range in.Days {
		if d < 1 || d > 7 {
			return nil, inputErr("days", "day %d is not an ISO weekday; days are 1 (Monday) to 7 (Sunday)", d)
		}
		date := training.DayInWeek(monday, d).Format(time.DateOnly)
		if date < in.Today || w.dates[d] != "" {
			continue
		}
		w.dates[d] = date
		w.days = append(w.days, d)
	}
	slices.SortFunc(w.days, func(a, b int) int { return strings.Compare(w.dates[a], w.dates[b]) }) // by date: a week may start on a Sunday
	if len(w.days) == 0 {
		return nil, inputErr("days", "none of the training days (%s) is left in the week of %s: plan next week", daysList(in.Days), in.WeekStart)
	}
	if in.Minutes < 25 || in.Minutes > 240 {
		return nil, inputErr("minutes", "a session of %d minutes cannot be planned: set the trainee's session length between 25 and 240 minutes", in.Minutes)
	}
	if len(in.Equipment) == 0 {
		return nil, inputErr("equipment", "the training profile names no equipment: set it (update_training_profile; \"none\" alone for body weight only), so the plan uses only what she has")
	}
	w.in.Equipment = equipmentNames(in.Equipment)
	for _, inj := range in.Injuries {
		if !slices.Contains(domain.BodyAreas, inj.Area) {
			return nil, inputErr("injuries", "injury %s has no body area the plan can avoid (%q): set its area to one of %s first", inj.ID, inj.Area, strings.Join(domain.BodyAreas, ", "))
		}
	}
	switch in.Rule {
	case "", RuleDouble, RuleRPE, RuleLinear:
	default:
		return nil, inputErr("rule", "rule %q is not a progression Perform knows; use %s", in.Rule, strings.Join(Rules, ", "))
	}
	w.experience = in.Experience
	if w.experience != intermediate && w.experience != advanced {
		w.experience = beginner
	}
	w.rule = in.Rule
	if w.rule == "" {
		w.rule = map[string]string{beginner: RuleLinear, intermediate: RuleDouble, advanced: RuleRPE}[w.experience]
	}
	w.band = map[string]int{beginner: 10, intermediate: 16, advanced: 20}[w.experience]
	w.minRIR = 1
	w.allow()
	w.digestHistory()
	w.decide()
	return w, nil
}

func daysList(days []int) string {
	names := make([]string, len(days))
	for i, d := range days {
		names[i] = weekdayName(d)
	}
	return strings.Join(names, ", ")
}

func weekdayName(d int) string {
	if d < 1 || d > 7 {
		return fmt.Sprint(d)
	}
	return time.Weekday(d % 7).String()
}

// equipmentNames reads a profile's equipment in the catalogue's words:
// lower case, and "bands" or "dumbbells" as the catalogue's "band" and
// "dumbbell"; a name the catalogue does not know is kept as written.
func equipmentNames(in []string) []string {
	out := make([]string, 0, len(in))
	for _, e := range in {
		e = strings.ToLower(strings.TrimSpace(e))
		if !slices.Contains(exercises.Equipment, e) && slices.Contains(exercises.Equipment, strings.TrimSuffix(e, "s")) {
			e = strings.TrimSuffix(e, "s")
		}
		out = append(out, e)
	}
	return out
}

// Stations are equipment an exercise needs besides its implement (a squat
// needs the rack as well as the bar); of the rest any one will do (a goblet
// squat takes a dumbbell or a kettlebell).
var stations = []string{"rack", "bench", "box"}

// doable reports whether ex can be done with equipment.
func doable(ex domain.Exercise, equipment []string) bool {
	implement, anyImplement := false, false
	for _, e := range ex.Equipment {
		if slices.Contains(stations, e) {
			if !slices.Contains(equipment, e) {
				return false
			}
			continue
		}
		if e == "mat" || e == "dowel" {
			continue // a towel does
		}
		anyImplement = true
		if e == "none" || slices.Contains(equipment, e) {
			implement = true
		}
	}
	return implement || !anyImplement
}

// planned reports whether the plan lays ex out: strength and core work
// measured in sets (cardio, mobility and conditioning are left to the coach).
func planned(ex domain.Exercise) bool {
	return (ex.Category == domain.CategoryStrength || ex.Category == domain.CategoryCore ||
		ex.Category == domain.CategoryPlyometric) && ex.Measure != domain.MeasureDistance
}

// allow builds the allowed set: exercises she can do with her equipment
// that load none of her injured areas and are not named by an injury.
func (w *week) allow() {
	byArea := map[string]domain.Injury{}
	named := map[string]domain.Injury{}
	for _, inj := range w.in.Injuries {
		byArea[inj.Area] = inj
		for _, id := range inj.AffectedExercises {
			named[id] = inj
		}
	}
	senior := w.in.Age != nil && *w.in.Age >= 65
	for _, ex := range w.in.Exercises {
		if !planned(ex) || !doable(ex, w.in.Equipment) {
			continue
		}
		if senior && ex.Category == domain.CategoryPlyometric {
			continue
		}
		if inj, ok := named[ex.ID]; ok {
			w.avoided[ex.ID] = inj.ID
			continue
		}
		hit := ""
		for _, a := range ex.Loads {
			if inj, ok := byArea[a]; ok {
				hit = inj.ID
				break
			}
		}
		if hit != "" {
			w.avoided[ex.ID] = hit
			continue
		}
		w.allowed[ex.ID] = ex
	}
	for _, inj := range w.in.Injuries {
		var ids []string
		for id, by := range w.avoided {
			if by == inj.ID {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustInjury, Exercises: ids,
			Reason: fmt.Sprintf("%s %s injury (%s, severity %d): no exercise that loads the %s; %d such exercises left out.",
				titleCase(inj.Status), strings.ReplaceAll(inj.Area, "_", " "), sideWord(inj.Side), inj.Severity, strings.ReplaceAll(inj.Area, "_", " "), len(ids))})
	}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func sideWord(side string) string {
	if side == "" {
		return "side not given"
	}
	return side + " side"
}

// digestHistory reads the logged sets: each exercise's exposures, the
// weekly hard sets, stalls.
func (w *week) digestHistory() {
	sessions := slices.Clone(w.in.History)
	slices.SortStableFunc(sessions, func(a, b domain.Session) int { return strings.Compare(a.Date, b.Date) })
	for _, s := range sessions {
		if s.Status != domain.SessionCompleted || s.Date >= w.in.WeekStart {
			continue
		}
		k := weeksBefore(s.Date, w.in.WeekStart)
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
			if k >= 1 && k <= 4 {
				w.weekSets[4-k] += len(done)
			}
			w.exposures[e.ExerciseID] = append(w.exposures[e.ExerciseID], exposure{date: s.Date, sets: done})
		}
	}
	// The allowed exercises, the ones she has logged first (most exposures),
	// then in the catalogue's order.
	for _, ex := range w.in.Exercises {
		if _, ok := w.allowed[ex.ID]; ok {
			w.order = append(w.order, ex.ID)
		}
	}
	slices.SortStableFunc(w.order, func(a, b string) int { return len(w.exposures[b]) - len(w.exposures[a]) })
	// A stall: the best estimated 1RM of each of the three weeks before,
	// every one logged, never above the first of them.
	for id, xs := range w.exposures {
		if _, ok := w.allowed[id]; !ok {
			continue
		}
		var best [4]float64 // by weeks before: best[1] the week just before
		for _, x := range xs {
			if k := weeksBefore(x.date, w.in.WeekStart); k >= 1 && k <= 3 {
				best[k] = max(best[k], x.e1RM())
			}
		}
		if best[1] > 0 && best[2] > 0 && best[3] > 0 && best[1] <= best[3]+0.01 && best[2] <= best[3]+0.01 {
			w.stalled[id] = true
		}
	}
}

// weeksBefore is how many weeks before weekStart day's week is (1: the
// week just before).
func weeksBefore(day, weekStart string) int {
	return (training.DayDiff(day, weekStart) + 6) / 7
}

// decide sets the week's deload, caps and adjustments from the history,
// the readiness and the program.
func (w *week) decide() {
	last := w.weekSets[3]
	prev := (w.weekSets[0] + w.weekSets[1] + w.weekSets[2]) / 3
	if last > 0 {
		// At most +20% on the last full week, and never under a starter's week.
		w.cap = max(last*6/5, minCap)
	}
	// A returner: nothing logged in the three weeks before, something before that.
	if w.weekSets[1]+w.weekSets[2]+w.weekSets[3] == 0 && w.lastLogged() != "" {
		w.returning = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustReturn,
			Reason: fmt.Sprintf("Back after %d days without a logged session (the last on %s): two sets an exercise, loads 15%% under the last ones, 3 reps in reserve.", training.DayDiff(w.lastLogged(), w.in.WeekStart), w.lastLogged())})
	}
	// Overreaching: last week far above the three before, or every session very hard.
	if rpe, n := w.lastWeekRPE(); (prev > 0 && last*10 > prev*13) || (n >= 2 && rpe >= 9) {
		target := prev
		if target == 0 || target > last {
			target = last * 4 / 5
		}
		w.cap = max(target, minCap)
		w.minRIR = max(w.minRIR, 2)
		reason := fmt.Sprintf("Last week's %d hard sets were well above the %d a week before it", last, prev)
		if n >= 2 && rpe >= 9 {
			reason = fmt.Sprintf("Last week's sessions averaged RPE %.1f", rpe)
		}
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustOverreaching, Reason: reason + fmt.Sprintf(": this week is held to %d hard sets, with at least 2 reps in reserve.", w.cap)})
	}
	// Readiness: the latest three check-ins of the last week.
	if avg, n := w.readiness(); n > 0 && avg <= 4 {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustReadiness,
			Reason: fmt.Sprintf("Readiness averaged %.1f of 10 over her last %d check-ins: a deload week (fewer sets, lighter loads, more in reserve).", avg, n)})
	}
	var stalled []string
	for id := range w.stalled {
		stalled = append(stalled, id)
	}
	sort.Strings(stalled)
	if len(stalled) > 0 {
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustStall, Exercises: stalled,
			Reason: fmt.Sprintf("No progress over the last three sessions of %s: the load is reset 10%% to build back.", strings.Join(stalled, ", "))})
	}
	if len(stalled) >= 2 && !w.deload {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustDeload, Reason: fmt.Sprintf("%d lifts stalled at once: a deload week.", len(stalled))})
	}
	if p := w.in.Program; p != nil && strings.Contains(strings.ToLower(p.Phase), "deload") && !w.deload {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustDeload, Reason: fmt.Sprintf("The program %q is in its %q phase: a deload week.", p.Name, p.Phase)})
	}
	if !w.deload && w.fourHardWeeks() {
		w.deload = true
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustDeload, Reason: "Four hard weeks in a row without a lighter one: a scheduled deload week."})
	}
	if w.deload {
		base := max(last, prev)
		if base > 0 {
			w.cap = max((base*6+9)/10, minCap/2) // about 60% of the usual week
		}
		w.minRIR = max(w.minRIR, 3)
	}
	if w.returning {
		w.minRIR = max(w.minRIR, 3)
	}
	if a := w.in.Age; a != nil && (*a >= 65 || *a < 18) {
		w.minRIR = max(w.minRIR, 2)
		if *a >= 65 {
			w.minRIR = 3
		}
		if w.rule == RuleRPE {
			w.rule = RuleDouble
		}
		who := "a trainee of 65 or more"
		if *a < 18 {
			who = "a trainee under 18"
		}
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustAge,
			Reason: fmt.Sprintf("Planned for %s: at least %d reps in reserve on every set, loads progressed by reps before weight, no %%1RM work.", who, w.minRIR)})
	}
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

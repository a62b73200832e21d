package weekplan

import (
	"fmt"
	"math"
	"slices"
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
	in           Input
	experience   string
	rule         string
	days         []int          // the ISO weekdays to plan, in date order
	dates        map[int]string // weekday → date
	allowed      map[string]domain.Exercise
	order        []string          // allowed ids: logged ones first, then catalogue order
	avoided      map[string]string // exercise id → what rules it out (an injury id, "level", "condition", "senior")
	exposures    map[string][]exposure
	e1rm         map[string]float64 // her estimated 1RM of an exercise, from trusted sets (0: none)
	lastTop      map[string]float64 // her latest trusted top load of an exercise
	flagged      []flagged          // logged sets left out of her estimates
	weekSets     [4]int             // hard sets logged in each of the 4 weeks before, oldest first
	weekSessions [4]int             // sessions of any kind logged in each of them
	band         int                // most hard sets a muscle may get in the week
	cap          int                // most hard sets in the week (0: no cap)
	deload       bool
	returning    bool
	stalled      map[string]bool
	minRIR       int
	adjust       []Adjustment
	senior       bool
	cond         conditionRules
	rehab        []string        // rehabilitation isometrics an injury's kind allows
	reduced      map[string]bool // an endurance exercise kept, easier, under a mild injury
	sport        sportPlan
	finisher     string                 // the conditioning exercise her goal adds ("" none)
	planned      map[int]domain.Session // weekday → her program's session adjusted in place
	booked       map[int][]Appointment  // weekday → her booked appointments that day, in start order (booked.go)
	freed        []int                  // free days left out for a booked day (keepRuns)
	program      *Layout                // her program's week as a layout (nil without one)
}

// minCap is the fewest hard sets a week's cap allows: a starter's week of
// six sets a training day (12 at least), so that +20% on a week of three
// logged sets still plans sessions that fill her minutes.
func (w *week) minCap() int { return max(12, 6*len(w.days)) }

// exposure is one session's working sets of one exercise (the trusted
// ones: a set the estimates cannot trust is flagged, not kept).
type exposure struct {
	date string
	sets []domain.SetEntry // done sets with reps
}

// flagged is a logged set the estimates left out, and why.
type flagged struct {
	exercise string
	date     string
	reps     int
	kg       float64
	human    bool // beyond what people lift (else beyond her own history)
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

// e1RM is the best estimated one-rep max of the exposure's sets, read
// through the load table (setE1RM).
func (x exposure) e1RM() float64 {
	best := 0.0
	for _, s := range x.sets {
		best = max(best, setE1RM(s))
	}
	return best
}

// effort is the mean reps in reserve of the exposure's sets.
func (x exposure) effort() float64 {
	sum := 0.0
	for _, s := range x.sets {
		sum += setRIR(s)
	}
	if len(x.sets) == 0 {
		return assumedRIR
	}
	return sum / float64(len(x.sets))
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
		exposures: map[string][]exposure{}, stalled: map[string]bool{}, e1rm: map[string]float64{}, lastTop: map[string]float64{},
		reduced: map[string]bool{}, planned: map[int]domain.Session{}}
	start, err := time.Parse(time.DateOnly, in.WeekStart)
	if err != nil || start.Weekday() != in.FirstDay {
		got := "not a date"
		if err == nil {
			got = "a " + start.Weekday().String()
		}
		return nil, inputErr("week", "the studio's weeks start on a %s: give the week's first day, YYYY-MM-DD, a %s (%q is %s)", in.FirstDay, in.FirstDay, in.WeekStart, got)
	}
	if end := start.AddDate(0, 0, 6).Format(time.DateOnly); end < in.Today {
		return nil, inputErr("week", "the week of %s ended on %s, before today (%s): plan this week or a coming one", in.WeekStart, end, in.Today)
	}
	done := map[string]bool{} // days of the week already logged: never touched
	for _, s := range slices.Concat(in.History, in.Planned) {
		if s.Status == domain.SessionCompleted && s.Date >= in.WeekStart {
			done[s.Date] = true
		}
	}
	dateOf := func(d int) string {
		return start.AddDate(0, 0, (d%7-int(in.FirstDay)+7)%7).Format(time.DateOnly)
	}
	booked, err := w.bookedDays(done)
	if err != nil {
		return nil, err
	}
	days := in.Days
	if len(in.Planned) > 0 {
		// Her program's week: its planned days, adjusted in place.
		days = nil
		for _, s := range in.Planned {
			t, err := time.Parse(time.DateOnly, s.Date)
			if err != nil || s.Date < in.WeekStart || training.DayDiff(in.WeekStart, s.Date) > 6 {
				return nil, inputErr("planned", "planned session %s is dated %q, outside the week of %s: give only the week's planned sessions", s.ID, s.Date, in.WeekStart)
			}
			if s.Status != domain.SessionPlanned || s.Date < in.Today || done[s.Date] {
				continue
			}
			d := int(t.Weekday())
			if d == 0 {
				d = 7
			}
			if _, twice := w.planned[d]; twice {
				continue // one session a day: the second stays as planned
			}
			w.planned[d] = s
			days = append(days, d)
		}
		if len(days) == 0 && len(booked) == 0 {
			return nil, inputErr("planned", "every planned session of the week of %s is done, skipped or past: there is nothing left to adjust", in.WeekStart)
		}
	}
	for _, d := range booked {
		if !slices.Contains(days, d) {
			days = append(slices.Clone(days), d) // a booked day is a training day, whatever her days
		}
	}
	if len(days) == 0 {
		return nil, inputErr("days", "no training days are known: give days, or set the availability of her training profile (update_training_profile; ISO weekdays, 1 Monday … 7 Sunday)")
	}
	for _, d := range days {
		if d < 1 || d > 7 {
			return nil, inputErr("days", "day %d is not an ISO weekday; days are 1 (Monday) to 7 (Sunday)", d)
		}
		date := dateOf(d)
		if date < in.Today || w.dates[d] != "" || done[date] {
			continue
		}
		w.dates[d] = date
		w.days = append(w.days, d)
	}
	slices.SortFunc(w.days, func(a, b int) int { return strings.Compare(w.dates[a], w.dates[b]) })
	if len(w.planned) == 0 {
		w.keepRuns(dateOf)
	}
	if len(w.days) == 0 {
		return nil, inputErr("days", "none of the training days (%s) is left in the week of %s: plan next week", daysList(days), in.WeekStart)
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
		if inj.Kind != "" && !slices.Contains(domain.InjuryKinds, inj.Kind) {
			return nil, inputErr("injuries", "injury %s has a kind Perform does not know (%q): use one of %s", inj.ID, inj.Kind, strings.Join(domain.InjuryKinds, ", "))
		}
	}
	for _, c := range in.Conditions {
		if !slices.Contains(domain.HealthConditions, c) {
			return nil, inputErr("conditions", "health condition %q is not one the rules know: use %s", c, strings.Join(domain.HealthConditions, ", "))
		}
	}
	if in.Sport != "" && !slices.Contains(domain.Sports, in.Sport) {
		return nil, inputErr("sport", "sport %q is not one Perform plans: use %s", in.Sport, strings.Join(domain.Sports, ", "))
	}
	if in.Goal != "" && !slices.Contains(domain.TrainingGoals, in.Goal) {
		return nil, inputErr("goal", "goal %q is not one Perform plans for: use %s", in.Goal, strings.Join(domain.TrainingGoals, ", "))
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
	w.digestHistory()
	w.allow()
	w.judgeStalls()
	w.decide()
	w.planSport()
	w.bookedAdjustment()
	if len(w.planned) > 0 {
		l := w.plannedLayout()
		w.program = &l
	}
	return w, nil
}

func daysList(days []int) string {
	names := make([]string, len(days))
	for i, d := range days {
		names[i] = weekdayName(d)
	}
	return strings.Join(names, ", ")
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
		if (e == "band" || e == "pull-up bar") && slices.Contains(ex.Equipment, "band") && slices.Contains(ex.Equipment, "pull-up bar") &&
			!(slices.Contains(equipment, "band") && slices.Contains(equipment, "pull-up bar")) {
			continue // a band-assisted hang takes the band and the bar together
		}
		if e == "none" || slices.Contains(equipment, e) {
			implement = true
		}
	}
	return implement || !anyImplement
}

package weekplan

import (
	"math"
	"slices"

	"github.com/otherwise/perform/internal/domain"
)

// Layout is a week as the model (or the core) lays it out: which
// exercises on which days, in order, with titles and notes. The core
// prescribes every exercise of it.
type Layout struct {
	Sessions []LayoutDay `json:"sessions"`
	Summary  string      `json:"summary"`
}

// LayoutDay is one session of a layout.
type LayoutDay struct {
	Weekday   int      `json:"weekday"`
	Title     string   `json:"title"`
	Exercises []string `json:"exercises"`
	Note      string   `json:"note"`
}

// Movement slots, read from an exercise's primary muscles.
const (
	slotSquat = "squat"
	slotHinge = "hinge"
	slotPush  = "push"
	slotVPush = "vertical push"
	slotPull  = "pull"
	slotVPull = "vertical pull"
	slotCore  = "core"
	slotArms  = "arms"
)

func fits(ex domain.Exercise, slot string) bool {
	has := func(ms ...string) bool {
		return slices.ContainsFunc(ex.Primary, func(m string) bool { return slices.Contains(ms, m) })
	}
	also := func(ms ...string) bool {
		return slices.ContainsFunc(ex.Secondary, func(m string) bool { return slices.Contains(ms, m) })
	}
	if has("quadriceps", "hamstrings", "glutes") && (has("traps", "front delts", "side delts") || also("front delts", "side delts")) {
		return false // a total-body lift (the Olympic lifts, a swing): for a coach to choose, not the rules
	}
	if ex.Category == domain.CategoryCore {
		return slot == slotCore
	}
	if ex.Category != domain.CategoryStrength {
		return false
	}
	switch slot {
	case slotSquat:
		return has("quadriceps")
	case slotHinge:
		return has("hamstrings", "glutes") && !has("quadriceps")
	case slotPush:
		return has("chest")
	case slotVPush:
		return has("front delts", "side delts") && !has("chest")
	case slotPull:
		return has("upper back", "rhomboids") || has("rear delts") && ex.Pattern != "isolation_upper" // a rear-delt raise is no row
	case slotVPull:
		return has("lats") && !has("upper back", "rhomboids", "chest") // a pullover is no pull
	case slotArms:
		return has("biceps", "triceps") && !has("chest", "lats", "front delts")
	}
	return false
}

// family is the movement family ex trains, for keeping each of them in a
// week that must drop exercises: legs, posterior chain, push, pull, core,
// arms ("" for none).
func family(ex domain.Exercise) string {
	switch ex.Pattern {
	case "squat", "lunge", "step_up":
		return "legs"
	case "hinge":
		return "posterior"
	case "push_horizontal", "push_vertical":
		return "push"
	case "pull_horizontal", "pull_vertical":
		return "pull"
	}
	for _, f := range []struct{ slot, name string }{
		{slotSquat, "legs"}, {slotHinge, "posterior"}, {slotPush, "push"}, {slotVPush, "push"},
		{slotPull, "pull"}, {slotVPull, "pull"}, {slotCore, "core"}, {slotArms, "arms"},
	} {
		if fits(ex, f.slot) {
			return f.name
		}
	}
	return ""
}

// template is a day of the core's own week: a title and its slots.
type template struct {
	title [2]string // English, Hebrew
	slots []string
}

var (
	fullA = template{[2]string{"Full body A", "גוף מלא א"}, []string{slotSquat, slotPush, slotPull, slotHinge, slotCore, slotArms}}
	fullB = template{[2]string{"Full body B", "גוף מלא ב"}, []string{slotHinge, slotVPush, slotVPull, slotSquat, slotCore, slotArms}}
	fullC = template{[2]string{"Full body C", "גוף מלא ג"}, []string{slotSquat, slotVPull, slotPush, slotHinge, slotArms, slotCore}}
	upper = template{[2]string{"Upper body", "פלג גוף עליון"}, []string{slotPush, slotPull, slotVPush, slotVPull, slotArms}}
	lower = template{[2]string{"Lower body", "פלג גוף תחתון"}, []string{slotSquat, slotHinge, slotSquat, slotCore}}
	push  = template{[2]string{"Push", "דחיפה"}, []string{slotPush, slotVPush, slotPush, slotArms}}
	pull  = template{[2]string{"Pull", "משיכה"}, []string{slotVPull, slotPull, slotHinge, slotArms}}
	legs  = template{[2]string{"Legs", "רגליים"}, []string{slotSquat, slotHinge, slotSquat, slotCore}}
)

// split is the core's week for n training days.
func split(n int) []template {
	switch n {
	case 1:
		return []template{fullA}
	case 2:
		return []template{fullA, fullB}
	case 3:
		return []template{fullA, fullB, fullC}
	case 4:
		return []template{upper, lower, upper, lower}
	case 5:
		return []template{upper, lower, push, pull, legs}
	}
	return []template{push, pull, legs, push, pull, legs}
}

// baseline is the core's own layout: her program's planned sessions when
// she has them; otherwise her sport's sessions on some of her days and the
// split's slots filled with allowed exercises on the others (the ones she
// has logged first, a tendinopathy's isometric first, her goal's
// conditioning last), each session trimmed to the minutes and the week to
// its caps. It is the fallback, and the model's starting point.
func (w *week) baseline() Layout {
	if w.program != nil {
		l := *w.program
		l.Sessions = slices.Clone(l.Sessions)
		return l
	}
	lang := 0
	if w.lang() == "he" {
		lang = 1
	}
	sportDays := map[int]bool{}
	if w.sport.exercise != "" {
		strength := len(w.days) - w.sport.sessions
		for j := range strength {
			i := int(math.Round((float64(j)+0.5)*float64(len(w.days))/float64(strength) - 0.5))
			sportDays[i] = true // for now: strength days
		}
		for i := range w.days {
			sportDays[i] = !sportDays[i]
		}
		w.bookedForStrength(sportDays)
	}
	strengthDays := 0
	for i := range w.days {
		if !sportDays[i] {
			strengthDays++
		}
	}
	tpl := split(max(strengthDays, 1))
	if w.experience == beginner {
		tpl = []template{fullA, fullB, fullC} // a beginner trains the whole body each day
	}
	var out Layout
	used := map[string]int{}
	j := 0
	for i, d := range w.days {
		if sportDays[i] {
			title := map[string][2]string{"running": {"Run", "ריצה"}, "cycling": {"Ride", "רכיבה"}, "swimming": {"Swim", "שחייה"}}[w.allowedSportName()]
			if title[0] == "" {
				title = [2]string{w.name(w.allowed[w.sport.exercise]), w.name(w.allowed[w.sport.exercise])}
			}
			out.Sessions = append(out.Sessions, LayoutDay{Weekday: d, Title: title[lang], Exercises: []string{w.sport.exercise}})
			continue
		}
		t := tpl[j%len(tpl)]
		day := LayoutDay{Weekday: d, Title: t.title[lang]}
		if len(w.rehab) > 0 {
			day.Exercises = append(day.Exercises, w.rehab[j%len(w.rehab)])
		}
		j++
		for _, slot := range t.slots {
			if id := w.pick(slot, used, day.Exercises); id != "" {
				day.Exercises = append(day.Exercises, id)
				used[id]++
			}
		}
		if w.finisher != "" {
			day.Exercises = append(day.Exercises, w.finisher)
		}
		out.Sessions = append(out.Sessions, day)
	}
	w.trim(&out)
	return out
}

// allowedSportName is the sport the sessions' exercise is (after a swap).
func (w *week) allowedSportName() string {
	p := w.allowed[w.sport.exercise].Pattern
	for name, sp := range sportPatterns {
		if sp == p {
			return name
		}
	}
	return ""
}

// strengthItem reports whether id is laid out in sets and counted in the
// week's hard sets: strength work that is not a rehabilitation hold.
func (w *week) strengthItem(id string) bool {
	ex := w.lookup(id)
	return strengthWork(ex) && !slices.Contains(w.rehab, id)
}

// pick is the allowed exercise for slot used least this week and not yet
// in the day; then one she has logged; for a main lift (the day's first
// two) the more compound; then the allowed order.
func (w *week) pick(slot string, used map[string]int, day []string) string {
	n := 0
	for _, id := range day {
		if w.strengthItem(id) {
			n++
		}
	}
	main := n < 2
	type key struct{ uses, unlogged, simple, at int }
	less := func(a, b key) bool {
		if a.uses != b.uses {
			return a.uses < b.uses
		}
		if a.unlogged != b.unlogged {
			return a.unlogged < b.unlogged
		}
		if a.simple != b.simple {
			return a.simple < b.simple
		}
		return a.at < b.at
	}
	best, bestKey := "", key{}
	for at, id := range w.order {
		ex := w.allowed[id]
		if !strengthWork(ex) || !fits(ex, slot) || slices.Contains(day, id) {
			continue
		}
		k := key{uses: used[id], at: at}
		if len(w.exposures[id]) == 0 {
			k.unlogged = 1
		}
		if main {
			k.simple = -(2*len(ex.Primary) + len(ex.Secondary))
			if ex.Measure != domain.MeasureRepsLoad {
				k.simple += 10 // a loaded lift leads the day
			}
		}
		if best == "" || less(k, bestKey) {
			best, bestKey = id, k
		}
	}
	return best
}

// dayItems prescribes a day's exercises in order: her sport's minutes
// from share, a strength exercise by its role (the first two strength
// exercises are the main lifts), her program's targets on a planned day.
func (w *week) dayItems(d LayoutDay, share map[int]int) []Item {
	out := make([]Item, 0, len(d.Exercises))
	pos := 0
	for _, id := range d.Exercises {
		out = append(out, w.itemFor(d.Weekday, id, &pos, share))
	}
	return out
}

// itemFor is the prescription of id on a day; pos counts the day's
// strength exercises so far.
func (w *week) itemFor(day int, id string, pos *int, share map[int]int) Item {
	ex, ok := w.allowed[id]
	if !ok {
		ex = w.lookup(id)
	}
	var it Item
	switch {
	case id == w.sport.exercise && w.sport.exercise != "":
		m, rpe := share[day], 4.0
		if m == 0 {
			m = max(min(w.sport.minutes/max(w.sport.sessions, 1), w.in.Minutes), 10)
		}
		if m > w.sport.minutes/max(w.sport.sessions, 1)+5 {
			rpe = 5 // the long one, steady
		}
		it = w.endurancePrescription(ex, m, rpe, w.trf("%d of the week's %d minutes, easy and conversational",
			"%d מתוך %d הדקות של השבוע, בקצב קל שמאפשר לדבר", m, w.sport.minutes))
	case strengthWork(ex) && !slices.Contains(w.rehab, id):
		it = w.prescribe(ex, roleOf(*pos))
		*pos++
	default:
		it = w.prescribe(ex, roleMain)
	}
	if p, ok := w.planned[day]; ok {
		w.fromPlan(&it, ex, p)
	}
	return it
}

// lookup is any exercise of the input by id (one outside the allowed set
// is prescribed all the same, so the validator can name it).
func (w *week) lookup(id string) domain.Exercise {
	if ex, ok := w.allowed[id]; ok {
		return ex
	}
	for _, ex := range w.in.Exercises {
		if ex.ID == id {
			return ex
		}
	}
	return domain.Exercise{ID: id, Name: id, Measure: domain.MeasureRepsLoad, Category: domain.CategoryStrength}
}

// fill turns a layout into a plan: dates, prescriptions, each session
// filled to its share of her minutes, durations, totals.
func (w *week) fill(l Layout) Plan {
	p := Plan{WeekStart: w.in.WeekStart, Rule: w.rule, Deload: w.deload, Summary: l.Summary,
		Adjustments: slices.Clone(w.adjust), LastHardSets: w.weekSets[3]}
	days := slices.Clone(l.Sessions)
	slices.SortStableFunc(days, func(a, b LayoutDay) int { return compareDates(w.dates[a.Weekday], w.dates[b.Weekday]) })
	share := w.sportShare(l)
	for _, d := range days {
		p.Sessions = append(p.Sessions, Session{Date: w.dates[d.Weekday], Weekday: d.Weekday, Title: d.Title, Note: w.noteFor(d.Weekday, d.Note), Items: w.dayItems(d, share)})
	}
	w.lighten(&p)
	for i := range p.Sessions {
		s := &p.Sessions[i]
		if pl, ok := w.planned[s.Weekday]; ok {
			s.PlannedID = pl.ID
		} else {
			w.pad(s)
		}
		s.DurationMin = duration(s.Items)
		for _, it := range s.Items {
			if w.strengthItem(it.ExerciseID) {
				p.HardSets += it.Sets
			}
		}
	}
	if len(w.planned) > 0 {
		w.holdToCap(&p)
		w.fitBooked(&p)
	}
	if p.Summary == "" {
		p.Summary = w.summary(p)
	}
	return p
}

// summary is the core's one sentence about a plan.
func (w *week) summary(p Plan) string {
	minutes := 0
	for _, s := range p.Sessions {
		minutes += s.DurationMin
	}
	s := w.trf("%d sessions, about %d minutes, %d hard sets (last week %d), %s", "%d אימונים, כ-%d דקות, %d סטים קשים (בשבוע שעבר %d), %s",
		len(p.Sessions), minutes, p.HardSets, p.LastHardSets, w.ruleName())
	if w.sport.exercise != "" {
		s += w.trf(", %d minutes of %s", ", %d דקות %s", w.sport.minutes, w.name(w.allowed[w.sport.exercise]))
	}
	if p.Deload {
		s += w.tr(", a deload week", ", שבוע הורדת עומס")
	}
	if len(w.planned) > 0 {
		s += w.tr(", the program's sessions adjusted in place", ", אימוני התוכנית הותאמו במקומם")
	}
	return s + "."
}

func (w *week) ruleName() string {
	if w.lang() == "en" {
		return w.rule
	}
	return map[string]string{RuleDouble: "התקדמות כפולה", RuleRPE: "לפי RPE", RuleLinear: "התקדמות ליניארית"}[w.rule]
}

package weekplan

import (
	"fmt"
	"slices"
	"strings"

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
		return has("upper back", "rhomboids", "rear delts")
	case slotVPull:
		return has("lats") && !has("upper back", "rhomboids")
	case slotArms:
		return has("biceps", "triceps") && !has("chest", "lats", "front delts")
	}
	return false
}

// template is a day of the core's own week: a title and its slots.
type template struct {
	title [2]string // English, Hebrew
	slots []string
}

var (
	fullA = template{[2]string{"Full body A", "גוף מלא א"}, []string{slotSquat, slotPush, slotPull, slotHinge, slotCore}}
	fullB = template{[2]string{"Full body B", "גוף מלא ב"}, []string{slotHinge, slotVPush, slotVPull, slotSquat, slotCore}}
	fullC = template{[2]string{"Full body C", "גוף מלא ג"}, []string{slotSquat, slotVPull, slotPush, slotHinge, slotArms}}
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

// baseline is the core's own layout: the split's slots filled with allowed
// exercises (the ones she has logged first), each session trimmed to the
// minutes and the week to its caps. It is the fallback, and the model's
// starting point.
func (w *week) baseline() Layout {
	lang := 0
	if w.lang() == "he" {
		lang = 1
	}
	var out Layout
	used := map[string]int{}
	for i, t := range split(len(w.days)) {
		day := LayoutDay{Weekday: w.days[i], Title: t.title[lang]}
		for _, slot := range t.slots {
			if id := w.pick(slot, used, day.Exercises); id != "" {
				day.Exercises = append(day.Exercises, id)
				used[id]++
			}
		}
		out.Sessions = append(out.Sessions, day)
	}
	w.trim(&out)
	return out
}

// pick is the allowed exercise for slot used least this week and not yet
// in the day; then one she has logged; for a main lift (the day's first
// two) the more compound; then the allowed order.
func (w *week) pick(slot string, used map[string]int, day []string) string {
	main := len(day) < 2
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
		if !fits(ex, slot) || slices.Contains(day, id) {
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

// trim drops a layout's last exercises until each session fits the minutes
// and the week fits its hard-set cap and the muscle band.
func (w *week) trim(l *Layout) {
	for i := range l.Sessions {
		d := &l.Sessions[i]
		for len(d.Exercises) > 1 && duration(w.items(d.Exercises)) > w.in.Minutes {
			d.Exercises = d.Exercises[:len(d.Exercises)-1]
		}
	}
	for range 200 {
		p := w.fill(*l)
		if len(w.check(p)) == 0 {
			return
		}
		// A muscle over its band loses its latest accessory; otherwise the
		// longest session loses its last exercise, and at one exercise a
		// session, the week its last session.
		si, xi := w.overworked(p)
		if si < 0 {
			for i, d := range l.Sessions {
				if len(d.Exercises) > 1 && (si < 0 || len(d.Exercises) > len(l.Sessions[si].Exercises)) {
					si, xi = i, len(d.Exercises)-1
				}
			}
		}
		if si < 0 {
			if len(l.Sessions) == 1 {
				return
			}
			l.Sessions = l.Sessions[:len(l.Sessions)-1]
			continue
		}
		d := &l.Sessions[si]
		d.Exercises = slices.Delete(d.Exercises, xi, xi+1)
	}
}

// overworked finds, for a muscle over its weekly band, the exercise to
// drop: the one training it furthest down the latest session that has
// another exercise. -1 when no muscle is over, or none can go.
func (w *week) overworked(p Plan) (session, index int) {
	count := map[string]int{}
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			for _, m := range w.lookup(it.ExerciseID).Primary {
				count[m] += it.Sets
			}
		}
	}
	// p.Sessions is the layout's order sorted by date; the layout the
	// core builds is already in date order, so the indexes agree.
	// Accessories go first, then main lifts.
	for _, first := range []int{2, 0} {
		for si := len(p.Sessions) - 1; si >= 0; si-- {
			items := p.Sessions[si].Items
			if len(items) < 2 {
				continue
			}
			for xi := len(items) - 1; xi >= first; xi-- {
				for _, m := range w.lookup(items[xi].ExerciseID).Primary {
					if count[m] > w.band {
						return si, xi
					}
				}
			}
		}
	}
	return -1, -1
}

// items prescribes a day's exercises in order.
func (w *week) items(ids []string) []Item {
	out := make([]Item, 0, len(ids))
	for i, id := range ids {
		ex, ok := w.allowed[id]
		if !ok {
			ex = w.lookup(id)
		}
		out = append(out, w.prescribe(ex, roleOf(i)))
	}
	return out
}

// lookup is any exercise of the input by id (one outside the allowed set
// is prescribed all the same, so the validator can name it).
func (w *week) lookup(id string) domain.Exercise {
	for _, ex := range w.in.Exercises {
		if ex.ID == id {
			return ex
		}
	}
	return domain.Exercise{ID: id, Name: id, Measure: domain.MeasureRepsLoad, Category: domain.CategoryStrength}
}

// fill turns a layout into a plan: dates, prescriptions, durations, totals.
func (w *week) fill(l Layout) Plan {
	p := Plan{WeekStart: w.in.WeekStart, Rule: w.rule, Deload: w.deload, Summary: l.Summary,
		Adjustments: slices.Clone(w.adjust), LastHardSets: w.weekSets[3]}
	days := slices.Clone(l.Sessions)
	slices.SortStableFunc(days, func(a, b LayoutDay) int { return strings.Compare(w.dates[a.Weekday], w.dates[b.Weekday]) }) // by date: a week may start on any day
	for _, d := range days {
		s := Session{Date: w.dates[d.Weekday], Weekday: d.Weekday, Title: d.Title, Note: d.Note, Items: w.items(d.Exercises)}
		s.DurationMin = duration(s.Items)
		for _, it := range s.Items {
			p.HardSets += it.Sets
		}
		p.Sessions = append(p.Sessions, s)
	}
	if p.Summary == "" {
		p.Summary = w.summary(p)
	}
	return p
}

// summary is the core's one sentence about a plan.
func (w *week) summary(p Plan) string {
	s := fmt.Sprintf("%d sessions, %d hard sets (last week %d), %s", len(p.Sessions), p.HardSets, p.LastHardSets, w.rule)
	if p.Deload {
		s += ", a deload week"
	}
	return s + "."
}

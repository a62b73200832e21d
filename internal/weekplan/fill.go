package weekplan

import (
	"math"
	"slices"
)

// fillShare is the least share of her session length a session fills:
// 80%, 60% in a deload week.
func (w *week) fillShare() float64 {
	if w.deload {
		return 0.6
	}
	return 0.8
}

// fillTarget is the least minutes a session of the week takes.
func (w *week) fillTarget() int { return int(math.Ceil(float64(w.in.Minutes) * w.fillShare())) }

// padTarget is what a short session is filled to: five points over the
// least, so that an estimate a few minutes out still fills her share.
func (w *week) padTarget() int {
	return min(int(math.Ceil(float64(w.in.Minutes)*(w.fillShare()+0.05))), w.in.Minutes)
}

// fillers are the patterns that fill a session's minutes easily, best
// first: after her sport, a walk or an easy ride; after strength, an easy
// ride, row or walk.
var (
	fillAfterSport    = []string{"walk", "cycle", "row", "swim", "conditioning"}
	fillAfterStrength = []string{"cycle", "row", "walk", "swim", "conditioning", "run"}
	easyConditioning  = []string{"elliptical", "stationary-bike", "assault-bike", "rowing-machine", "ski-erg"}
)

// pad fills a session to padTarget: a cool-down of mobility (10 minutes
// at most; two of them when she has an endurance sport, whose sessions
// hold the week's aerobic volume), then easy aerobic work that is not her
// sport (so her sport's volume stays what the week allows), then more
// mobility.
func (w *week) pad(s *Session) { w.padTo(s, w.padTarget()) }

// padTo fills a session to target minutes, as pad does.
func (w *week) padTo(s *Session, target int) {
	gap := func() int { return target - duration(s.Items) }
	if gap() <= 0 {
		return
	}
	has := func(id string) bool {
		return slices.ContainsFunc(s.Items, func(it Item) bool { return it.ExerciseID == id })
	}
	var mobility []string
	for _, ex := range w.in.Exercises {
		if _, ok := w.allowed[ex.ID]; ok && isMobility(ex) {
			mobility = append(mobility, ex.ID)
		}
	}
	add := func(id string, minutes int, rpe float64, basis string) {
		it := w.endurancePrescription(w.allowed[id], minutes, rpe, basis)
		it.pad = true
		s.Items = append(s.Items, it)
	}
	cool := w.tr("cool-down and mobility", "שחרור וגמישות")
	if len(mobility) > 0 {
		id := mobility[s.Weekday%len(mobility)]
		add(id, min(max(gap(), 3), 10), 2, cool)
		if w.sport.exercise != "" && w.sport.name != "conditioning" && gap() > 0 && len(mobility) > 1 {
			// Her sport holds the week's aerobic volume: more mobility
			// before any aerobic work beside it.
			add(mobility[(s.Weekday+1)%len(mobility)], min(max(gap(), 3), 10), 2, cool)
		}
	}
	if g := gap(); g > 0 {
		afterSport := len(s.Items) > 0 && s.Items[0].ExerciseID == w.sport.exercise
		order := fillAfterStrength
		if afterSport {
			order = fillAfterSport
		}
		sportPattern := w.allowed[w.sport.exercise].Pattern
		pick := ""
		for _, p := range order {
			for _, id := range w.order {
				ex := w.allowed[id]
				if !w.isEndurance(ex) || ex.Pattern != p || p == sportPattern || has(id) || w.reduced[id] ||
					(p == "conditioning" && !slices.Contains(easyConditioning, id)) {
					continue
				}
				pick = id
				break
			}
			if pick != "" {
				break
			}
		}
		if pick != "" {
			add(pick, g, 3, w.tr("easy aerobic work to round off the session", "אירובי קל להשלמת האימון"))
		}
	}
	for _, id := range mobility {
		if gap() <= 0 {
			break
		}
		if !has(id) {
			add(id, min(max(gap(), 3), 10), 2, cool)
		}
	}
	// Still short (a long session with little she can do): the last
	// filler takes the rest.
	if g := gap(); g > 0 && len(s.Items) > 0 && s.Items[len(s.Items)-1].pad {
		s.Items[len(s.Items)-1].Minutes += g
	}
}

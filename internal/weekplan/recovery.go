package weekplan

import (
	"slices"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/training"
)

// compound reports whether ex is a compound lift of a main movement
// family: one that can be trained heavy.
func compound(ex domain.Exercise) bool {
	return slices.Contains([]string{"squat", "lunge", "hinge", "push_horizontal", "push_vertical",
		"pull_horizontal", "pull_vertical", "olympic"}, ex.Pattern)
}

// heavyFamilies are the movement families a session trains heavy: three
// sets or more of a compound lift of the family.
func (w *week) heavyFamilies(s Session) map[string]bool {
	out := map[string]bool{}
	for _, it := range s.Items {
		if ex := w.lookup(it.ExerciseID); it.Sets >= 3 && compound(ex) && family(ex) != "" {
			out[family(ex)] = true
		}
	}
	return out
}

// lightAfter reports whether item it of session i must be a lighter
// exposure: a compound lift of a family the day before trained heavy.
// The plan's sessions are in date order.
func (w *week) lightAfter(p Plan, i int, it Item) bool {
	if i == 0 || w.deload {
		return false
	}
	prev := p.Sessions[i-1]
	ex := w.lookup(it.ExerciseID)
	return training.DayDiff(prev.Date, p.Sessions[i].Date) == 1 && compound(ex) && w.heavyFamilies(prev)[family(ex)]
}

// lighten keeps a movement family from being trained heavy two days
// running: the second day's compound lifts of it take two sets.
func (w *week) lighten(p *Plan) {
	for i := range p.Sessions {
		for j, it := range p.Sessions[i].Items {
			if it.Sets > 2 && w.strengthItem(it.ExerciseID) && w.lightAfter(*p, i, it) {
				p.Sessions[i].Items[j].Sets = 2
				p.Sessions[i].Items[j].Basis += w.lightWords()
			}
		}
	}
}

func (w *week) lightWords() string {
	return w.tr("; two sets: the day after a heavy session of the same movement", "; שני סטים: יום אחרי אימון כבד של אותה תנועה")
}

// relighten prescribes the strength work of the rules' own sessions of a
// program's week (a booked day's) again once holdToCap took sets off the
// program's or fitBooked an exercise off them: a day before that is no
// longer heavy leaves the day after it its sets, and an exercise that
// moved up the session takes its new role.
func (w *week) relighten(p *Plan) {
	for i := range p.Sessions {
		s := &p.Sessions[i]
		if _, ok := w.planned[s.Weekday]; ok {
			continue
		}
		pos := 0
		for j, it := range s.Items {
			if it.pad {
				continue
			}
			want := w.itemFor(s.Weekday, it.ExerciseID, &pos, nil)
			if !w.strengthItem(it.ExerciseID) {
				continue
			}
			if w.lightAfter(*p, i, it) && want.Sets > 2 {
				want.Sets = 2
				want.Basis += w.lightWords()
			}
			if !sameLoad(want, it) {
				p.HardSets += want.Sets - it.Sets
				s.Items[j] = want
			}
		}
		s.DurationMin = duration(s.Items)
	}
}

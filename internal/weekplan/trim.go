package weekplan

import "slices"

// dropRank is how readily a week drops the strength exercise id, least
// missed first: 0 one whose family the week trains elsewhere too and she
// has not logged; 1 the same, logged; 2 the last of an accessory family
// (arms, core); 3 the last of a main family she has not trained; 4 the
// last of a main family she trains. count is the layout's strength
// exercises by family.
func (w *week) dropRank(id string, count map[string]int) int {
	f := family(w.lookup(id))
	switch {
	case count[f] > 1 && len(w.exposures[id]) == 0:
		return 0
	case count[f] > 1:
		return 1
	case f == "arms" || f == "core" || f == "":
		return 2
	case !w.trainsFamily(f):
		return 3
	}
	return 4
}

// trainsFamily: she has logged an exercise of family f in her history.
func (w *week) trainsFamily(f string) bool {
	for id, xs := range w.exposures {
		if len(xs) > 0 && family(w.lookup(id)) == f {
			return true
		}
	}
	return false
}

// strengthCount is a layout day's strength exercises.
func (w *week) strengthCount(d LayoutDay) int {
	n := 0
	for _, id := range d.Exercises {
		if w.strengthItem(id) {
			n++
		}
	}
	return n
}

// families counts a layout's strength exercises by family.
func (w *week) families(l Layout) map[string]int {
	count := map[string]int{}
	for _, d := range l.Sessions {
		for _, id := range d.Exercises {
			if w.strengthItem(id) {
				count[family(w.lookup(id))]++
			}
		}
	}
	return count
}

// dropIn is the strength exercise day d drops first: the least missed
// (dropRank), the latest of equals; -1 when it has none.
func (w *week) dropIn(d LayoutDay, count map[string]int) (index, rank int) {
	index, rank = -1, 5
	for i := len(d.Exercises) - 1; i >= 0; i-- {
		if !w.strengthItem(d.Exercises[i]) {
			continue
		}
		if r := w.dropRank(d.Exercises[i], count); r < rank {
			index, rank = i, r
		}
	}
	return index, rank
}

// trim drops a layout's strength exercises until each session fits the
// minutes and the week fits its hard-set cap and the muscle band, keeping
// each movement family she trains as long as it can.
func (w *week) trim(l *Layout) {
	for i := range l.Sessions {
		w.fitMinutes(l, i)
	}
	for range 200 {
		p := w.fill(*l)
		if !w.overCaps(p) {
			return
		}
		// A muscle over its band loses its latest accessory.
		if si, xi := w.overworked(p); si >= 0 {
			d := &l.Sessions[si]
			d.Exercises = slices.Delete(d.Exercises, xi, xi+1)
			continue
		}
		// Otherwise the week loses the strength exercise it misses least
		// (the fullest session's, of equals). A session's only one is not
		// dropped: the fullest session's least missed moves in to take its
		// place, when that spares a family she trains.
		count := w.families(*l)
		si, xi, rank := -1, -1, 5
		for i, d := range l.Sessions {
			if w.strengthCount(d) <= 1 {
				continue
			}
			x, r := w.dropIn(d, count)
			if r < rank || r == rank && w.strengthCount(d) > w.strengthCount(l.Sessions[si]) {
				si, xi, rank = i, x, r
			}
		}
		for i, d := range l.Sessions {
			if si < 0 || w.strengthCount(d) != 1 || slices.Contains(d.Exercises, w.sport.exercise) {
				continue
			}
			if x, r := w.dropIn(d, count); r < rank {
				moved := l.Sessions[si].Exercises[xi]
				l.Sessions[i].Exercises[x] = moved
				l.Sessions[si].Exercises = slices.Delete(l.Sessions[si].Exercises, xi, xi+1)
				si = -2
				break
			}
		}
		switch {
		case si == -2:
			continue
		case si >= 0:
			l.Sessions[si].Exercises = slices.Delete(l.Sessions[si].Exercises, xi, xi+1)
			continue
		}
		// One strength exercise a session and still over: the week's
		// last strength-only session of a free day goes (a booked day's
		// never does).
		drop := -1
		for i, d := range l.Sessions {
			if w.strengthCount(d) > 0 && !slices.Contains(d.Exercises, w.sport.exercise) && !w.isBooked(d.Weekday) {
				drop = i
			}
		}
		if drop < 0 || len(l.Sessions) == 1 {
			return
		}
		l.Sessions = slices.Delete(l.Sessions, drop, drop+1)
	}
}

// hardSets are a plan's hard sets, in all and by each strength
// exercise's primary muscles.
func (w *week) hardSets(p Plan) (total int, muscles map[string]int) {
	muscles = map[string]int{}
	for _, s := range p.Sessions {
		for _, it := range s.Items {
			if w.strengthItem(it.ExerciseID) {
				total += it.Sets
				for _, m := range w.lookup(it.ExerciseID).Primary {
					muscles[m] += it.Sets
				}
			}
		}
	}
	return total, muscles
}

// overCaps reports whether a plan is over the week's hard-set cap or a
// muscle's band.
func (w *week) overCaps(p Plan) bool {
	total, muscles := w.hardSets(p)
	for _, n := range muscles {
		if n > w.band {
			return true
		}
	}
	return w.cap > 0 && total > w.cap
}

// overworked finds, for a muscle over its weekly band, the exercise to
// drop: the one training it furthest down the latest session that has
// another strength exercise. -1 when no muscle is over, or none can go.
// The plan's sessions are the layout's, in the same order.
func (w *week) overworked(p Plan) (session, index int) {
	_, count := w.hardSets(p)
	for _, accessories := range []bool{true, false} {
		for si := len(p.Sessions) - 1; si >= 0; si-- {
			var strength []int // indexes of the layout's strength exercises
			for xi, it := range p.Sessions[si].Items {
				if it.pad {
					break
				}
				if w.strengthItem(it.ExerciseID) {
					strength = append(strength, xi)
				}
			}
			if len(strength) < 2 {
				continue
			}
			for k := len(strength) - 1; k >= 0; k-- {
				if accessories && k < 2 {
					break
				}
				for _, m := range w.lookup(p.Sessions[si].Items[strength[k]].ExerciseID).Primary {
					if count[m] > w.band {
						return si, strength[k]
					}
				}
			}
		}
	}
	return -1, -1
}

// fitMinutes trims session i of a layout to her minutes: strength
// exercises go, down to one; then the goal's conditioning; then the last
// strength exercise when a rehabilitation hold stays.
func (w *week) fitMinutes(l *Layout, i int) {
	d := &l.Sessions[i]
	for len(d.Exercises) > 1 && duration(w.dayItems(*d, nil)) > w.in.Minutes {
		x, _ := w.dropIn(*d, w.families(*l))
		if f := slices.Index(d.Exercises, w.finisher); w.strengthCount(*d) <= 1 && f >= 0 && w.finisher != "" {
			x = f
		}
		if x < 0 {
			break
		}
		d.Exercises = slices.Delete(d.Exercises, x, x+1)
	}
}

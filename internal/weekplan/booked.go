package weekplan

import (
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/training"
)

// Booked appointments are fixed days: a day holding one of her booked (or
// attended) appointments is a training day even when her days leave it
// out, and the session planned on it says when and with whom. When an
// added booked day makes a run of training days longer than her own week
// has (two at least), a free day of the run is left out; a booked day
// never is. The week's hard-set cap drops a free day's session before a
// booked one's (trim), and a day already logged stays as it is.

// bookedDays reads the week's appointments that count (booked or
// attended, dated in the week) into w.booked by ISO weekday, each day's
// in start order, and answers those weekdays still to plan (today or
// later, not logged).
func (w *week) bookedDays(done map[string]bool) ([]int, error) {
	w.booked = map[int][]Appointment{}
	var out []int
	for _, a := range w.in.Booked {
		if a.Status != domain.AppointmentBooked && a.Status != domain.AppointmentAttended {
			continue // waitlisted, cancelled or missed: no fixed day
		}
		t, err := time.Parse(time.DateOnly, a.Date)
		if err != nil || a.Date < w.in.WeekStart || training.DayDiff(w.in.WeekStart, a.Date) > 6 {
			return nil, inputErr("booked", "appointment %s is dated %q, outside the week of %s: give only the week's appointments", a.ID, a.Date, w.in.WeekStart)
		}
		if _, err := time.Parse("15:04", a.Start); err != nil {
			return nil, inputErr("booked", "appointment %s starts at %q; give its local start as HH:MM", a.ID, a.Start)
		}
		if a.Date < w.in.Today || done[a.Date] {
			continue // past, or a day already logged: left as it is
		}
		d := isoWeekday(t)
		if len(w.booked[d]) == 0 {
			out = append(out, d)
		}
		w.booked[d] = append(w.booked[d], a)
	}
	for _, as := range w.booked {
		slices.SortFunc(as, func(a, b Appointment) int { return strings.Compare(a.Start, b.Start) })
	}
	return out, nil
}

func isoWeekday(t time.Time) int {
	if d := int(t.Weekday()); d != 0 {
		return d
	}
	return 7
}

// isBooked: weekday d holds a booked appointment still to plan.
func (w *week) isBooked(d int) bool { return len(w.booked[d]) > 0 }

// keepRuns leaves out free days so that no booked day outside her days
// makes a run of consecutive training days longer than her own days make
// (two at least): of a run too long, the free day whose leaving shortens
// the booked day's run most goes (the later of equals), until the run
// fits or only booked days are left in it. dateOf is a weekday's date.
func (w *week) keepRuns(dateOf func(int) string) {
	longest := func(days []int) int {
		dates := make([]string, 0, len(days))
		for _, d := range days {
			dates = append(dates, dateOf(d))
		}
		slices.Sort(dates)
		best, run := 0, 0
		for i, d := range dates {
			if i > 0 && training.DayDiff(dates[i-1], d) == 1 {
				run++
			} else {
				run = 1
			}
			best = max(best, run)
		}
		return best
	}
	limit := max(2, longest(w.in.Days))
	// runOf is the run of w.days holding day b, as indexes of w.days
	// (which is in date order).
	runOf := func(days []int, b int) []int {
		i := slices.Index(days, b)
		lo, hi := i, i
		for lo > 0 && training.DayDiff(w.dates[days[lo-1]], w.dates[days[lo]]) == 1 {
			lo--
		}
		for hi < len(days)-1 && training.DayDiff(w.dates[days[hi]], w.dates[days[hi+1]]) == 1 {
			hi++
		}
		var out []int
		for k := lo; k <= hi; k++ {
			out = append(out, k)
		}
		return out
	}
	for _, b := range slices.Clone(w.days) {
		if !w.isBooked(b) || slices.Contains(w.in.Days, b) || !slices.Contains(w.days, b) {
			continue
		}
		for {
			run := runOf(w.days, b)
			if len(run) <= limit {
				break
			}
			drop, best := -1, 0
			for _, k := range run {
				d := w.days[k]
				if w.isBooked(d) {
					continue
				}
				rest := slices.Delete(slices.Clone(w.days), k, k+1)
				if n := len(runOf(rest, b)); drop < 0 || n <= best {
					drop, best = k, n
				}
			}
			if drop < 0 {
				break // only booked days in the run: they all stay
			}
			d := w.days[drop]
			w.freed = append(w.freed, d)
			delete(w.dates, d)
			w.days = slices.Delete(w.days, drop, drop+1)
		}
	}
}

// bookedWords is a day's appointments in a few words: "18:00 with Dana
// Levi", two of them joined ("08:00 with Dana Levi and 18:00 at Studio A").
func (w *week) bookedWords(d int) string {
	var parts []string
	for _, a := range w.booked[d] {
		s := a.Start
		if a.With != "" {
			s += w.tr(" with ", " עם ") + a.With
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, w.tr(" and ", " ו-"))
}

// bookedNote is the note of a booked day's session ("" for a free day).
func (w *week) bookedNote(d int) string {
	if !w.isBooked(d) {
		return ""
	}
	return w.trf("Booked %s.", "נקבע: %s.", w.bookedWords(d))
}

// noteFor is a session's note: a booked day's first, then the layout's.
func (w *week) noteFor(d int, note string) string {
	b := w.bookedNote(d)
	switch {
	case b == "" || strings.Contains(note, b):
		return note
	case note == "":
		return b
	}
	return b + " " + note
}

// bookedAdjustment says which booked days the week keeps fixed, which of
// them her days leave out, and which free days it left out for them.
func (w *week) bookedAdjustment() {
	var days []int
	for _, d := range w.days {
		if w.isBooked(d) {
			days = append(days, d)
		}
	}
	if len(days) == 0 {
		return
	}
	var kept, added []string
	for _, d := range days {
		kept = append(kept, w.dayName(d)+" "+w.bookedWords(d))
		if !slices.Contains(w.in.Days, d) {
			added = append(added, w.dayName(d))
		}
	}
	reason := w.trf("Booked appointments are fixed training days: %s.", "תורים שנקבעו הם ימי אימון קבועים: %s.", strings.Join(kept, "; "))
	if len(added) > 0 {
		reason += w.trf(" Not among %s days, planned all the same: %s.", " לא בין הימים %s, ובכל זאת מתוכננים: %s.", w.her(), strings.Join(added, ", "))
	}
	if len(w.freed) > 0 {
		var freed []string
		for _, d := range w.freed {
			freed = append(freed, w.dayName(d))
		}
		reason += w.trf(" Left free, so no run of training days is longer than %s own week has: %s.",
			" נשארו פנויים, כדי שלא יהיו יותר ימי אימון רצופים מאשר בשבוע הרגיל %s: %s.", w.her(), strings.Join(freed, ", "))
	}
	w.adjust = append(w.adjust, Adjustment{Kind: AdjustBooked, Reason: reason})
}

var heDays = []string{"ראשון", "שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת"}

// dayName is an ISO weekday's name in the plan's language.
func (w *week) dayName(d int) string {
	if w.lang() == "he" {
		return "יום " + heDays[d%7]
	}
	return weekdayName(d)
}

// bookedForStrength makes a booked day a strength day of the core's week
// (an appointment at the studio is coached strength work): a booked day
// the spread made a sport day trades with the nearest free strength day.
// sportDays is by index of w.days.
func (w *week) bookedForStrength(sportDays map[int]bool) {
	for i, d := range w.days {
		if !sportDays[i] || !w.isBooked(d) {
			continue
		}
		best := -1
		for j, e := range w.days {
			if sportDays[j] || w.isBooked(e) {
				continue
			}
			if best < 0 || abs(j-i) < abs(best-i) {
				best = j
			}
		}
		if best >= 0 {
			sportDays[i], sportDays[best] = false, true
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// bookedStarts are a booked day's local start times.
func (w *week) bookedStarts(d int) []string {
	var out []string
	for _, a := range w.booked[d] {
		out = append(out, a.Start)
	}
	return out
}

// fitBooked holds a program week's booked-day sessions (the rules' own,
// beside her program's) to the week's cap and each muscle's band once
// holdToCap has taken what it may off the program's: a booked session
// loses its last strength exercise that trains a muscle over its band,
// or, over the cap, its last strength exercise, down to one; its filling
// is laid again.
func (w *week) fitBooked(p *Plan) {
	for range 50 {
		_, muscles := w.hardSets(*p)
		overCap := w.cap > 0 && p.HardSets > w.cap
		si, xi := -1, -1
		for i, s := range p.Sessions {
			if _, ok := w.planned[s.Weekday]; ok || !w.isBooked(s.Weekday) {
				continue
			}
			var strength []int
			for j, it := range s.Items {
				if !it.pad && w.strengthItem(it.ExerciseID) {
					strength = append(strength, j)
				}
			}
			if len(strength) < 2 {
				continue
			}
			for k := len(strength) - 1; k >= 0 && xi < 0; k-- {
				for _, m := range w.lookup(s.Items[strength[k]].ExerciseID).Primary {
					if muscles[m] > w.band {
						si, xi = i, strength[k]
						break
					}
				}
			}
			if xi < 0 && overCap {
				si, xi = i, strength[len(strength)-1]
			}
			if xi >= 0 {
				break
			}
		}
		if xi < 0 {
			return
		}
		s := &p.Sessions[si]
		p.HardSets -= s.Items[xi].Sets
		s.Items = slices.Delete(s.Items, xi, xi+1)
		s.Items = slices.DeleteFunc(s.Items, func(it Item) bool { return it.pad })
		w.pad(s)
		s.DurationMin = duration(s.Items)
		w.relighten(p)
	}
}

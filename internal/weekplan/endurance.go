package weekplan

import (
	"math"
	"slices"

	"github.com/otherwise/perform/internal/domain"
)

// sportPatterns are the endurance sports and the movement pattern each
// one's sessions are.
var sportPatterns = map[string]string{"running": "run", "cycling": "cycle", "swimming": "swim", "conditioning": "conditioning"}

// sportDefaults are the catalogue exercises a sport's sessions use when
// she has logged none, first that her equipment allows.
var sportDefaults = map[string][]string{
	"running":      {"running", "treadmill-running"},
	"cycling":      {"cycling", "stationary-bike", "spinning", "assault-bike"},
	"swimming":     {"swimming"},
	"conditioning": {"assault-bike", "rowing-machine", "ski-erg", "jump-rope", "battle-ropes", "burpee", "mountain-climber"},
}

// sportPlan is the week's endurance sport: her sessions of it and their
// volume.
type sportPlan struct {
	name     string  // running, cycling, swimming, conditioning ("" none)
	exercise string  // the exercise its sessions use this week
	sessions int     // sessions this week
	minutes  int     // the week's minutes of it, at most
	base     int     // her logged minutes of it last week (0: none logged)
	usual    int     // her mean weekly minutes of it over the last four weeks
	pace     float64 // her minutes a kilometre (0: unknown)
	easy     bool    // easy effort only (a mild injury)
}

// sportName is her endurance sport: her profile's, or, when it names
// strength or nothing, the one her history shows (at least four sessions
// in the four weeks, as many as her other sessions).
func (w *week) sportName() string {
	if _, ok := sportPatterns[w.in.Sport]; ok {
		return w.in.Sport
	}
	count, other := map[string]int{}, 0
	for _, s := range w.in.History {
		if s.Status != domain.SessionCompleted || s.Date >= w.in.WeekStart || weeksBefore(s.Date, w.in.WeekStart) > 4 {
			continue
		}
		if sp := w.sessionSport(s); sp != "" {
			count[sp]++
		} else {
			other++
		}
	}
	best := ""
	for _, sp := range []string{"running", "cycling", "swimming", "conditioning"} {
		if count[sp] >= 4 && count[sp] >= other && count[sp] > count[best] {
			best = sp
		}
	}
	return best
}

// sessionSport is the endurance sport a logged session was ("" none).
func (w *week) sessionSport(s domain.Session) string {
	if _, ok := sportPatterns[s.Sport]; ok && s.Sport != "conditioning" {
		return s.Sport
	}
	for _, e := range s.Exercises {
		p := w.lookup(e.ExerciseID).Pattern
		for sp, sp2 := range sportPatterns {
			if p == sp2 && sp != "conditioning" {
				return sp
			}
		}
	}
	if s.Sport == "conditioning" {
		return "conditioning"
	}
	return ""
}

// sessionMinutes and sessionKm are a logged endurance session's volume.
func (w *week) sessionVolume(s domain.Session) (minutes, km float64) {
	for _, e := range s.Exercises {
		for _, set := range e.Sets {
			if !set.Done {
				continue
			}
			if set.Seconds != nil {
				minutes += float64(*set.Seconds) / 60
			}
			if set.Metres != nil {
				km += *set.Metres / 1000
			}
		}
	}
	if minutes == 0 && s.DurationMin != nil {
		minutes = float64(*s.DurationMin)
	}
	return minutes, km
}

// planSport sets the week's sport sessions, their volume (within about
// +10% of her logged week; less in a deload or under a mild injury), the
// exercise they use (swapped for one that spares a badly injured area),
// and the conditioning her goal adds.
func (w *week) planSport() {
	w.planEndurance()
	w.planGoal()
}

// planGoal adds the conditioning a fat-loss goal asks for (or an
// endurance goal without a sport): one she can do that is not her sport's.
func (w *week) planGoal() {
	if g := w.in.Goal; g == "fat_loss" || w.sportName() == "" && g == "endurance" {
		for _, id := range sportDefaults["conditioning"] {
			if _, ok := w.allowed[id]; ok && id != w.sport.exercise {
				w.finisher = id
				break
			}
		}
		if w.finisher != "" && len(w.planned) == 0 {
			w.adjust = append(w.adjust, Adjustment{Kind: AdjustGoal, Exercises: []string{w.finisher},
				Reason: w.trf("%s goal asks for conditioning: each strength session ends with %d minutes of %s.",
					"המטרה %s דורשת אימון אירובי-עצים: כל אימון כוח מסתיים ב-%d דקות של %s.", w.goalArgs()...)})
		}
	}
}

// planEndurance sets her sport's sessions.
func (w *week) planEndurance() {
	name := w.sportName()
	if name == "" {
		return
	}
	sp := sportPlan{name: name}
	pattern := sportPatterns[name]
	var perWeek [5]int
	var mins [5]float64
	var totMin, totKm float64
	logged := map[string]int{}
	for _, s := range w.in.History {
		k := weeksBefore(s.Date, w.in.WeekStart)
		if s.Status != domain.SessionCompleted || s.Date >= w.in.WeekStart || k < 1 || k > 4 || w.sessionSport(s) != name {
			continue
		}
		m, km := w.sessionVolume(s)
		perWeek[k]++
		mins[k] += m
		if km > 0 && m > 0 {
			totMin, totKm = totMin+m, totKm+km
		}
		for _, e := range s.Exercises {
			if w.lookup(e.ExerciseID).Pattern == pattern {
				logged[e.ExerciseID]++
			}
		}
	}
	weeks, runs, vol := 0, 0, 0.0
	for k := 1; k <= 4; k++ {
		if perWeek[k] > 0 {
			weeks, runs, vol = weeks+1, runs+perWeek[k], vol+mins[k]
		}
	}
	if totKm > 0 {
		sp.pace = totMin / totKm
	}
	sp.sessions = 3
	if weeks > 0 {
		sp.sessions = int(math.Round(float64(runs) / float64(weeks)))
		sp.base = int(math.Round(mins[1]))
		if sp.base == 0 {
			sp.base = int(math.Round(vol / float64(weeks)))
		}
	}
	sp.sessions = max(min(sp.sessions, len(w.days)), 1)
	if sp.sessions == len(w.days) && len(w.days) >= 3 && name != "conditioning" {
		sp.sessions-- // a day for strength
	}
	// The exercise: the one of the sport she logged most, else the default.
	best := ""
	for id, n := range logged {
		if _, ok := w.allowed[id]; ok && (best == "" || n > logged[best] || n == logged[best] && id < best) {
			best = id
		}
	}
	if best == "" {
		for _, id := range sportDefaults[name] {
			if _, ok := w.allowed[id]; ok {
				best = id
				break
			}
		}
	}
	scale := 1.10
	if w.deload || w.returning {
		scale = 0.7
	}
	sportEx := best
	if best == "" {
		// Her sport is ruled out (a severe injury, her equipment): the
		// sessions swap to what spares the area.
		for _, p := range []string{"swim", "cycle", "row", "walk", "conditioning"} {
			for _, id := range w.order {
				if ex := w.allowed[id]; w.isEndurance(ex) && ex.Pattern == p {
					best = id
					break
				}
			}
			if best != "" {
				break
			}
		}
		if best == "" {
			w.adjust = append(w.adjust, Adjustment{Kind: AdjustSport,
				Reason: w.trf("%s sport (%s) is ruled out this week, and nothing that spares the area is at hand: strength work only.",
					"הענף %s (%s) לא מתאים השבוע ואין חלופה שחוסכת את האזור: אימוני כוח בלבד.", w.sportArgs(name)...)})
			return
		}
		sp.pace = 0
		scale = min(scale, 1.0)
	}
	sp.exercise = best
	if w.reduced[best] {
		sp.easy = true
		scale = 0.7
	}
	if sp.base == 0 {
		sp.base = sp.sessions * map[string]int{beginner: 20, intermediate: 30, advanced: 40}[w.experience]
		scale = 1
	}
	sp.minutes = int(float64(sp.base) * scale)
	if weeks > 0 && !w.returning {
		// Within 10% of her usual week (the mean of the four, a week
		// without any counting as none), and at most +10% on the last.
		usual := (mins[1] + mins[2] + mins[3] + mins[4]) / 4
		sp.usual = int(math.Round(usual))
		if scale > 1 {
			sp.minutes = int(min(max(math.Floor(1.1*float64(sp.base)), math.Ceil(0.9*usual)), math.Floor(1.1*usual)))
		} else {
			sp.minutes = int(scale * min(float64(sp.base), usual))
		}
	}
	w.sport = sp
	reason := w.trf("%s sport is %s: %d sessions of %s this week, %d minutes in all (%d in the latest logged week, %d in a usual week; at most +10%%).",
		"הענף %s הוא %s: %d אימוני %s השבוע, %d דקות בסך הכול (%d בשבוע האחרון שנרשם, %d בשבוע רגיל; עד \u200e+10%%).", w.sportLine(sp)...)
	if sportEx == "" {
		reason += w.trf(" %s is swapped for %s, which spares the injured area.", " %s הוחלף ב%s, שחוסך את האזור הפצוע.", w.tr(titleCase(name), sportHe[name]), w.name(w.allowed[best]))
	}
	if sp.easy {
		reason += w.tr(" Easy effort only, at 70% of the volume, while the injury settles.", " במאמץ קל בלבד, 70% מהנפח, עד שהפציעה נרגעת.")
	}
	if w.deload {
		reason += w.tr(" A deload week: 70% of the volume.", " שבוע הורדת עומס: 70% מהנפח.")
	}
	if len(w.planned) == 0 { // a program's week keeps its own sessions
		w.adjust = append(w.adjust, Adjustment{Kind: AdjustSport, Exercises: []string{best}, Reason: reason})
	}
}

var sportHe = map[string]string{"running": "ריצה", "cycling": "רכיבה", "swimming": "שחייה", "conditioning": "אימון אירובי-עצים", "strength": "כוח"}

func (w *week) sportArgs(name string) []any {
	if w.lang() == "he" {
		return []any{w.her(), sportHe[name]}
	}
	return []any{titleCase(w.her()), name}
}

func (w *week) sportLine(sp sportPlan) []any {
	exName := w.name(w.allowed[sp.exercise])
	usual := sp.usual
	if usual == 0 {
		usual = sp.base
	}
	if w.lang() == "he" {
		return []any{w.her(), sportHe[sp.name], sp.sessions, exName, sp.minutes, sp.base, usual}
	}
	return []any{titleCase(w.her()), sp.name, sp.sessions, exName, sp.minutes, sp.base, usual}
}

func (w *week) goalArgs() []any {
	if w.lang() == "he" {
		return []any{"ירידה בשומן", w.finisherMinutes(), w.name(w.allowed[w.finisher])}
	}
	return []any{titleCase(w.her()) + " fat-loss", w.finisherMinutes(), w.name(w.allowed[w.finisher])}
}

// finisherMinutes is the conditioning her goal adds to a strength
// session: 10 minutes, more when she has few strength days, so the week
// holds 30 at least (the same in a deload or after a break, at an easier
// effort: finisherRPE).
func (w *week) finisherMinutes() int {
	days := max(len(w.days)-w.sport.sessions, 1)
	return min(max(10, (30+days-1)/days), 20)
}

// finisherRPE is the effort of the goal's conditioning: hard but even,
// easier for a senior, in a deload or after a break.
func (w *week) finisherRPE() float64 {
	switch {
	case w.deload || w.returning:
		return 5
	case w.senior:
		return 6
	}
	return 7
}

// sportShare is each sport session's minutes for the layout's days: an
// even share of the week's minutes, the last session a long one (1.4
// shares) when there are three or more, each within her session length.
func (w *week) sportShare(l Layout) map[int]int {
	var days []int
	for _, d := range l.Sessions {
		if slices.Contains(d.Exercises, w.sport.exercise) && w.sport.exercise != "" {
			days = append(days, d.Weekday)
		}
	}
	out := map[int]int{}
	if len(days) == 0 {
		return out
	}
	slices.SortFunc(days, func(a, b int) int { return compareDates(w.dates[a], w.dates[b]) })
	shares := float64(len(days))
	if len(days) >= 3 {
		shares += 0.4
	}
	each := float64(w.sport.minutes) / shares
	total := 0
	for i, d := range days {
		m := each
		if len(days) >= 3 && i == len(days)-1 {
			m *= 1.4
		}
		out[d] = max(min(int(m/5)*5, w.in.Minutes), 10)
		total += out[d]
	}
	// The minutes the fives left over go to the last session (the long
	// one), within her session length: the week keeps its volume.
	last := days[len(days)-1]
	out[last] = max(min(out[last]+w.sport.minutes-total, w.in.Minutes), out[last])
	return out
}

func compareDates(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// endurancePrescription is an endurance item: minutes, distance at her
// pace, and an effort (RPE) within her conditions.
func (w *week) endurancePrescription(ex domain.Exercise, minutes int, rpe float64, basis string) Item {
	if w.cond.rpeCap > 0 {
		rpe = math.Min(rpe, w.cond.rpeCap)
	}
	if w.sport.easy && ex.ID == w.sport.exercise {
		rpe = math.Min(rpe, 4)
	}
	it := Item{ExerciseID: ex.ID, Name: w.name(ex), Sets: 1, Minutes: minutes, RPE: new(rpe), Basis: basis}
	if ex.ID == w.sport.exercise && w.sport.pace > 0 {
		km := math.Round(float64(minutes)/w.sport.pace*2) / 2
		if km > 0 {
			it.DistanceKm = new(km)
		}
	}
	return it
}

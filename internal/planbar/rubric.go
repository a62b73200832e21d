package planbar

import (
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
)

// days: sessions only on her days and the days her appointments fix, in
// the week, not before today, one a day, and as many as make sense (her
// program's count, her sport's usual count, at least two of a strength
// week's days; a booked day outside her days may add one, or take a free
// day's place). Every booked day has a session whose note gives its time.
func (c *checker) days() {
	const item = "days"
	f, p := c.f, c.p
	if p.WeekStart != f.WeekStart {
		c.fail(item, false, "the plan's week starts %s, not %s (her studio's weeks start on %s)", p.WeekStart, f.WeekStart, f.First())
	}
	fixed := f.fixed()
	open, extra := 0, 0
	for _, d := range f.Days {
		if f.date(d) >= f.Today {
			open++
		}
	}
	for d := range fixed {
		if !slices.Contains(f.Days, d) {
			extra++
		}
	}
	lo, hi := min(2, open), open
	if usual := c.usualSessions(); usual > 0 {
		lo = min(usual, open)
	}
	if len(f.Planned) > 0 {
		lo, hi = len(f.Planned), len(f.Planned)
		for d := range fixed {
			if !slices.ContainsFunc(f.Planned, func(pl Planned) bool { return pl.Weekday == d }) {
				lo, hi = lo+1, hi+1 // a booked day her program leaves free
			}
		}
		extra = 0
	}
	hi += extra
	lo = max(lo, len(fixed))
	if f.Expect.MinSessions > 0 {
		lo = f.Expect.MinSessions
	}
	if f.Expect.MaxSessions > 0 {
		hi = f.Expect.MaxSessions
	}
	if n := len(p.Sessions); n < lo || n > hi {
		c.fail(item, false, "%d sessions; her week should have %d to %d", n, lo, hi)
	}
	for _, d := range slices.Sorted(maps.Keys(fixed)) {
		i := slices.IndexFunc(p.Sessions, func(s Session) bool { return s.Date == f.date(d) })
		if i < 0 {
			c.fail(item, false, "%s is booked (%s at %s) and has no session: a booked appointment is a fixed day", f.date(d), fixed[d][0].ID, fixed[d][0].Time)
			continue
		}
		for _, b := range fixed[d] {
			if !strings.Contains(p.Sessions[i].Note, b.Time) {
				c.fail(item, false, "%s's session does not say it is booked at %s: its note is %q", f.date(d), b.Time, p.Sessions[i].Note)
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range p.Sessions {
		if !slices.Contains(f.Days, s.Weekday) && len(fixed[s.Weekday]) == 0 {
			c.fail(item, false, "%s (weekday %d) is not one of her days %v nor booked", s.Date, s.Weekday, f.Days)
		}
		if want := f.date(s.Weekday); s.Date != want {
			c.fail(item, false, "weekday %d of the week of %s is %s, not %s", s.Weekday, f.WeekStart, want, s.Date)
		}
		if s.Date < f.Today {
			c.fail(item, false, "%s is before today (%s)", s.Date, f.Today)
		}
		if seen[s.Date] {
			c.fail(item, false, "%s has two sessions", s.Date)
		}
		seen[s.Date] = true
		if len(s.Items) == 0 {
			c.fail(item, false, "%s has no exercise", s.Date)
		}
	}
}

// usualSessions is her endurance sport's sessions a week over the last
// four (0 for a strength trainee).
func (c *checker) usualSessions() int {
	if !endurance(c.f.Sport) || len(c.f.Planned) > 0 {
		return 0
	}
	n := 0
	for _, s := range c.f.History() {
		if s.Sport == c.f.Sport && s.Date >= c.f.dayOf(4, firstISO(c.f)) {
			n++
		}
	}
	return int(math.Floor(float64(n)/4 + 0.25))
}

func firstISO(f Fixture) int {
	if f.First() == time.Sunday {
		return 7
	}
	return 1
}

func endurance(sport string) bool {
	return sport == "running" || sport == "cycling" || sport == "swimming"
}

// pace is minutes a kilometre, by pattern.
var pace = map[string]float64{"run": 6, "walk": 11, "hike": 13, "cycle": 2.5, "swim": 25, "aquajog": 10, "row": 5, "skierg": 5, "sprint": 6, "sled": 10, "carry": 10, "crawl": 20}

// itemMinutes is the checker's own estimate of an item: endurance by its
// minutes or distance; sets by reps at 4 s each (or the hold), rest
// between sets, two minutes to set up and move on, and three of ramp-up
// sets before a heavy load.
func itemMinutes(it Item, m movement) float64 {
	if it.Minutes > 0 {
		return float64(it.Minutes)
	}
	if it.DistanceKm != nil {
		p := pace[m.Pattern]
		if p == 0 {
			p = 6
		}
		return *it.DistanceKm * p
	}
	sets := float64(max(it.Sets, 1))
	work := float64(it.Reps) * 4 / 60
	switch {
	case it.Seconds > 0:
		work = float64(it.Seconds) / 60
	case it.Reps == 0:
		work = 0.75
	}
	rest := float64(it.RestSeconds) / 60
	if it.RestSeconds == 0 {
		rest = 1.5
	}
	total := sets*work + (sets-1)*rest + 2
	if it.LoadKg != nil && *it.LoadKg >= 40 {
		total += 3
	}
	return total
}

// estimate is a session's minutes: its items, and ten minutes of warm-up
// before strength or conditioning work (an endurance session warms up in
// its own minutes).
func estimate(s Session) float64 {
	total, warm := 0.0, false
	for _, it := range s.Items {
		m, known := lookup(it.ExerciseID)
		if !known {
			m, _ = guess(it.ExerciseID, it.Name)
		}
		total += itemMinutes(it, m)
		if it.Minutes == 0 && it.DistanceKm == nil && m.Pattern != "mobility" {
			warm = true
		}
	}
	if warm {
		total += 10
	}
	return total
}

// fill: each session takes 80–100% of her session length by the checker's
// estimate (at least 60% in a deload week; a program's session is held to
// its own planned minutes), five points of slack either side for the
// estimate, and never more than her length by the plan's own.
func (c *checker) fill() {
	const item = "fill"
	planned := map[string]Planned{}
	for _, pl := range c.f.Planned {
		planned[pl.ID] = pl
	}
	for _, s := range c.p.Sessions {
		target, lo := float64(c.f.Minutes), 0.8
		if c.p.Deload || c.f.Expect.Deload {
			lo = 0.6
		}
		if pl, ok := planned[s.PlannedID]; ok && pl.Minutes > 0 {
			target, lo = float64(pl.Minutes), 0.6
		}
		est := estimate(s)
		if est < (lo-0.05)*target || est > 1.05*target {
			c.fail(item, false, "%s takes about %.0f min by the checker's estimate; it should take %.0f–%.0f of her %.0f", s.Date, est, lo*target, target, target)
		}
		if s.DurationMin > c.f.Minutes {
			c.fail(item, false, "%s says %d min, over her %d", s.Date, s.DurationMin, c.f.Minutes)
		}
	}
}

// sportMinutes is the plan's minutes of sport.
func (c *checker) sportMinutes(p Plan, sport string) (minutes float64, sessions int) {
	for _, s := range p.Sessions {
		in := 0.0
		for _, it := range s.Items {
			m, known := lookup(it.ExerciseID)
			if !known {
				m, _ = guess(it.ExerciseID, it.Name)
			}
			if m.sport == sport || (sport == "conditioning" && m.sport != "") {
				in += itemMinutes(it, m)
			}
		}
		if in > 0 {
			minutes += in
			sessions++
		}
	}
	return minutes, sessions
}

// sport: a program's sessions kept (each adjusted in place, none added);
// a runner's, cyclist's or swimmer's weekly minutes at her usual ±10%; a
// fat-loss or conditioning week with at least 30 minutes of conditioning
// over two days; a lifter's muscle groups kept.
func (c *checker) sport() {
	const item = "sport"
	f, p := c.f, c.p
	lo, hi := f.Expect.SportMin, f.Expect.SportMax
	if lo == 0 {
		lo = 0.9
	}
	if hi == 0 {
		hi = 1.1
	}
	if len(f.Planned) > 0 {
		ids := map[string]bool{}
		usual := 0.0
		for _, pl := range f.Planned {
			ids[pl.ID] = true
			if pl.Sport == f.Sport {
				usual += float64(pl.Minutes)
			}
		}
		used := map[string]bool{}
		for _, s := range p.Sessions {
			switch {
			case s.PlannedID == "" && len(f.fixed()[s.Weekday]) > 0 && !slices.ContainsFunc(f.Planned, func(pl Planned) bool { return pl.Weekday == s.Weekday }):
				// a booked day her program leaves free: the one session beside them
			case s.PlannedID == "":
				c.fail(item, false, "%s is a session beside her program's, not one of them adjusted", s.Date)
			case !ids[s.PlannedID]:
				c.fail(item, false, "%s adjusts %q, not a session of her program", s.Date, s.PlannedID)
			case used[s.PlannedID]:
				c.fail(item, false, "%s adjusts %s a second time", s.Date, s.PlannedID)
			}
			used[s.PlannedID] = true
		}
		if endurance(f.Sport) && usual > 0 {
			c.volume(item, usual, lo, hi)
		}
		return
	}
	switch {
	case endurance(f.Sport):
		usual := 0.0
		for _, s := range f.History() {
			if s.Sport == f.Sport && s.Date >= f.dayOf(4, firstISO(f)) {
				usual += float64(s.Minutes)
			}
		}
		c.volume(item, usual/4, lo, hi)
	case f.Goal == "fat_loss" || f.Sport == "conditioning":
		min, n := c.sportMinutes(p, "conditioning")
		if min < 30 || (n < 2 && len(p.Sessions) >= 2) {
			c.fail(item, false, "%.0f minutes of conditioning over %d days; a %s week needs at least 30 over two", min, n, strings.ReplaceAll(f.Goal+f.Sport, "_", " "))
		}
	default:
		groups := map[string]bool{}
		c.items(p, func(_ Session, _ Item, m movement, _ bool) { groups[m.group] = true })
		for _, g := range c.loggedGroups() {
			if !groups[g] {
				c.fail(item, false, "her %s lifts are gone from the week (she trains them, and nothing rules them out)", g)
			}
		}
		if len(p.Sessions) > 0 && len(groups) == 0 {
			c.fail(item, false, "the week has no exercise")
		}
	}
}

func (c *checker) volume(item string, usual, lo, hi float64) {
	sport := c.f.Sport
	if c.f.Expect.CrossTrain {
		sport = "conditioning" // any endurance or conditioning work
	}
	got, _ := c.sportMinutes(c.p, sport)
	if usual == 0 {
		return
	}
	if got < lo*usual || got > hi*usual {
		c.fail(item, false, "%.0f minutes of %s against her usual %.0f a week; keep it within %.0f–%.0f", got, c.f.Sport, usual, lo*usual, hi*usual)
	}
}

// loggedGroups are the muscle groups of the heavy lifts she logged in the
// last two weeks that none of her injuries or conditions rules out.
func (c *checker) loggedGroups() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range c.f.History() {
		if s.Date < c.f.dayOf(2, firstISO(c.f)) {
			continue
		}
		for _, e := range s.Exercises {
			m, _ := lookup(e.Exercise)
			if !m.heavy || m.group == "" || seen[m.group] || c.ruledOut(m) {
				continue
			}
			seen[m.group] = true
			out = append(out, m.group)
		}
	}
	slices.Sort(out)
	return out
}

func (c *checker) ruledOut(m movement) bool {
	for _, inj := range c.f.active() {
		if injuryVerdict(m, Item{}, inj) != "" || m.joints[inj.Area] > 0 {
			return true
		}
	}
	for _, r := range c.rules() {
		for _, t := range conditionRules[r].tags {
			if m.has(t) {
				return true
			}
		}
	}
	return false
}

var levels = map[string]int{"beginner": 0, "intermediate": 1, "advanced": 2}

// level: nothing beyond her experience, nothing her equipment cannot do.
func (c *checker) level() {
	const item = "level"
	exp := levels[c.f.Experience]
	have := map[string]bool{"none": true}
	for _, e := range c.f.Equipment {
		have[e] = true
	}
	c.items(c.p, func(s Session, it Item, m movement, known bool) {
		if m.Level > exp {
			c.fail(item, m.Level-exp >= 2, "%s: %s asks for a %s's skill; she is a %s", s.Date, it.ExerciseID, []string{"beginner", "intermediate", "advanced"}[m.Level], c.f.Experience)
		}
		if !known {
			return
		}
		for _, alt := range m.Needs {
			ok := true
			for _, e := range alt {
				ok = ok && have[e]
			}
			if ok {
				return
			}
		}
		c.fail(item, false, "%s: %s needs %v; she has %v", s.Date, it.ExerciseID, m.Needs, c.f.Equipment)
	})
}

// recovery: no muscle group trained heavy on two days in a row; the
// deload when one is due and none when it is not (an accessory's stall is
// not a reason); a load held on purpose at an easy RPE is not cut.
func (c *checker) recovery() {
	const item = "recovery"
	f, p := c.f, c.p
	heavy := map[string]map[string]bool{}
	for _, s := range p.Sessions {
		heavy[s.Date] = map[string]bool{}
		for _, it := range s.Items {
			m, _ := lookup(it.ExerciseID)
			if m.heavy && m.group != "" && it.Sets >= 3 && !p.Deload {
				heavy[s.Date][m.group] = true
			}
		}
	}
	for _, s := range p.Sessions {
		d, err := time.Parse(time.DateOnly, s.Date)
		if err != nil {
			continue
		}
		next := d.AddDate(0, 0, 1).Format(time.DateOnly)
		for g := range heavy[s.Date] {
			if heavy[next][g] {
				c.fail(item, false, "%s and %s both train her %s heavy", s.Date, next, g)
			}
		}
	}
	if f.Expect.Deload && !p.Deload {
		c.fail(item, false, "a deload is due (%s) and the week is not one", f.Expect.Why)
	}
	if f.Expect.NoDeload && p.Deload {
		c.fail(item, false, "the week is a deload, but nothing calls for one (%s)", f.Expect.Why)
	}
	for _, id := range f.Expect.Holds {
		ld := c.lifts[id]
		c.items(p, func(s Session, it Item, _ movement, _ bool) {
			if it.ExerciseID == id && ld != nil && it.LoadKg != nil && *it.LoadKg < 0.95*ld.last && !p.Deload {
				c.fail(item, false, "%s: %s cut from %.1f to %.1f kg, though she held it on purpose at an easy RPE", s.Date, id, ld.last, *it.LoadKg)
			}
		})
	}
}

// english is a run of four Latin words: an English sentence, not a unit
// or an abbreviation.
var english = regexp.MustCompile(`[A-Za-z]{2,}[^A-Za-z\p{Hebrew}]+[A-Za-z]{2,}[^A-Za-z\p{Hebrew}]+[A-Za-z]{2,}[^A-Za-z\p{Hebrew}]+[A-Za-z]{2,}`)

func hebrew(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hebrew, r) {
			return true
		}
	}
	return false
}

// texts are the words of a plan a person reads.
func texts(p Plan) []string {
	out := []string{p.Summary}
	for _, a := range p.Adjustments {
		out = append(out, a.Reason)
	}
	for _, s := range p.Sessions {
		out = append(out, s.Title, s.Note)
		for _, it := range s.Items {
			out = append(out, it.Name, it.Basis, it.Note)
		}
	}
	return out
}

// language: a Hebrew studio's plan speaks Hebrew (its summary and reasons
// in Hebrew letters, no English sentence anywhere); an English one has no
// Hebrew.
func (c *checker) language() {
	const item = "language"
	if c.f.Language == "he" {
		if !hebrew(c.p.Summary) {
			c.fail(item, false, "the summary is not in Hebrew: %q", c.p.Summary)
		}
		for _, a := range c.p.Adjustments {
			if !hebrew(a.Reason) {
				c.fail(item, false, "the %s reason is not in Hebrew: %q", a.Kind, a.Reason)
			}
		}
		for _, t := range texts(c.p) {
			if s := english.FindString(t); s != "" {
				c.fail(item, false, "English in a Hebrew plan: %q", t)
				break
			}
		}
		return
	}
	if strings.TrimSpace(c.p.Summary) == "" {
		c.fail(item, false, "the plan has no summary")
	}
	for _, t := range texts(c.p) {
		if hebrew(t) {
			c.fail(item, false, "Hebrew in an English plan: %q", t)
			break
		}
	}
}

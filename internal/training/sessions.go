package training

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// Sessions: totals, estimated 1RMs, a program laid out on dates, where a
// program stands on a day, and the operations that modify a planned
// session. Everything here is arithmetic on values; nothing reads a store.

// Totals sums a session's done sets: volume is Σ reps × loadKg over the
// sets that have both; sets counts the done sets.
func Totals(exs []domain.SessionExercise) domain.SessionTotals {
	var t domain.SessionTotals
	for _, ex := range exs {
		for _, s := range ex.Sets {
			if !s.Done {
				continue
			}
			t.Sets++
			if s.Reps != nil {
				t.Reps += *s.Reps
				if s.LoadKg != nil {
					t.VolumeKg += float64(*s.Reps) * *s.LoadKg
				}
			}
			if s.Seconds != nil {
				t.Seconds += *s.Seconds
			}
			if s.Metres != nil {
				t.Metres += *s.Metres
			}
		}
	}
	t.VolumeKg, t.Metres = hundredths(t.VolumeKg), hundredths(t.Metres)
	return t
}

// MaxE1RMReps is the most reps a set may have to estimate a 1RM: past it
// Epley overestimates (a set of 30 light reps is endurance, not strength).
const MaxE1RMReps = 12

// E1RM is Epley's estimated one-rep max, load × (1 + reps/30), rounded to
// 0.01 kg; a single is its load. Zero when reps or load cannot estimate one.
func E1RM(loadKg float64, reps int) float64 {
	switch {
	case reps < 1 || reps > MaxE1RMReps || loadKg <= 0:
		return 0
	case reps == 1:
		return hundredths(loadKg)
	}
	return hundredths(loadKg * (1 + float64(reps)/30))
}

// Lift is the best estimated 1RM of one exercise in a session and the set
// it came from.
type Lift struct {
	ExerciseID string  `json:"exerciseId"`
	Name       string  `json:"name"`
	E1RM       float64 `json:"e1rmKg"`
	LoadKg     float64 `json:"loadKg"`
	Reps       int     `json:"reps"`
}

// BestLifts is each exercise's best e1RM over its done sets, in the order
// the exercises first appear; exercises with no set that estimates one are
// left out.
func BestLifts(exs []domain.SessionExercise) []Lift {
	var out []Lift
	at := map[string]int{}
	for _, ex := range exs {
		for _, s := range ex.Sets {
			if !s.Done || s.Reps == nil || s.LoadKg == nil {
				continue
			}
			e := E1RM(*s.LoadKg, *s.Reps)
			if e == 0 {
				continue
			}
			i, seen := at[ex.ExerciseID]
			if !seen {
				at[ex.ExerciseID] = len(out)
				out = append(out, Lift{ExerciseID: ex.ExerciseID, Name: ex.Name, E1RM: e, LoadKg: *s.LoadKg, Reps: *s.Reps})
				continue
			}
			if e > out[i].E1RM {
				out[i].E1RM, out[i].LoadKg, out[i].Reps = e, *s.LoadKg, *s.Reps
			}
		}
	}
	return out
}

// Program layout.

// PlannedDay is one day of a program structure on its date.
type PlannedDay struct {
	Date string
	// Phase, WeekInPhase and Week (of the whole program) are 1-based.
	Phase, WeekInPhase, Week int
	PhaseName                string
	Day                      domain.ProgramDay
}

// DefaultWeekdays spreads n sessions over a week when neither the day
// nor the trainee's availability says when (ISO weekdays).
func DefaultWeekdays(n int) []int {
	switch {
	case n <= 1:
		return []int{1}
	case n == 2:
		return []int{1, 4}
	case n == 3:
		return []int{1, 3, 5}
	case n == 4:
		return []int{1, 2, 4, 5}
	case n == 5:
		return []int{1, 2, 3, 4, 5}
	case n == 6:
		return []int{1, 2, 3, 4, 5, 6}
	}
	return []int{1, 2, 3, 4, 5, 6, 7}
}

// Weeks is how many weeks a structure has across its phases.
func Weeks(s domain.ProgramStructure) int {
	n := 0
	for _, p := range s.Phases {
		n += len(p.Weeks)
	}
	return n
}

// Layout puts a structure's days on dates. Week k of the whole program
// (0-based, across phases) is the studio's week (starting on first) of
// startsOn plus k. A day is on
// its own Weekday; the days without one take, in order, the trainee's
// availability (ISO weekdays) not already taken that week, then
// DefaultWeekdays, then any free weekday. Days that fall before startsOn in
// its first week are left out, so a program started on a Monday lays out
// every day. Days come out by date, in structure order within a date.
func Layout(s domain.ProgramStructure, startsOn string, availability []int, first time.Weekday) ([]PlannedDay, error) {
	start, err := time.Parse(time.DateOnly, startsOn)
	if err != nil {
		return nil, fmt.Errorf("startsOn %q is not a YYYY-MM-DD date", startsOn)
	}
	weekStart := StartOfWeek(start, first)
	var out []PlannedDay
	week := 0
	for pi, phase := range s.Phases {
		for wi, w := range phase.Weeks {
			days := weekdaysOf(w.Days, availability)
			for di, d := range w.Days {
				date := DayInWeek(weekStart.AddDate(0, 0, 7*week), days[di])
				if date.Before(start) {
					continue
				}
				out = append(out, PlannedDay{
					Date: date.Format(time.DateOnly), Phase: pi + 1, WeekInPhase: wi + 1, Week: week + 1,
					PhaseName: phase.Name, Day: d,
				})
			}
			week++
		}
	}
	slices.SortStableFunc(out, func(a, b PlannedDay) int {
		if a.Date < b.Date {
			return -1
		}
		if a.Date > b.Date {
			return 1
		}
		return 0
	})
	return out, nil
}

// weekdaysOf gives each day of a week its ISO weekday (see Layout).
func weekdaysOf(days []domain.ProgramDay, availability []int) []int {
	out := make([]int, len(days))
	taken := map[int]bool{}
	need := 0
	for i, d := range days {
		if d.Weekday != nil && *d.Weekday >= 1 && *d.Weekday <= 7 {
			out[i] = *d.Weekday
			taken[*d.Weekday] = true
		} else {
			need++
		}
	}
	if need == 0 {
		return out
	}
	avail := slices.Clone(availability)
	slices.Sort(avail)
	var pool []int
	for _, src := range [][]int{avail, DefaultWeekdays(need), {1, 2, 3, 4, 5, 6, 7}} {
		for _, wd := range src {
			if wd >= 1 && wd <= 7 && !taken[wd] {
				taken[wd] = true
				pool = append(pool, wd)
			}
		}
	}
	slices.Sort(pool[:min(need, len(pool))])
	j := 0
	for i, d := range days {
		if d.Weekday != nil && *d.Weekday >= 1 && *d.Weekday <= 7 {
			continue
		}
		if j < len(pool) {
			out[i] = pool[j]
		} else {
			out[i] = 7 // more days than weekdays: the rest share Sunday
		}
		j++
	}
	return out
}

// Position is where a program stands on a day.
type Position struct {
	// State is "upcoming" (before its first week), "running" or "finished".
	State string `json:"state"`
	// Week is the program's week (1-based, across phases) that holds the
	// day, of Weeks; 0 when upcoming or finished.
	Week       int    `json:"week"`
	Weeks      int    `json:"weeks"`
	Phase      int    `json:"phase"` // 1-based; 0 when not running
	PhaseName  string `json:"phaseName,omitempty"`
	PhaseFocus string `json:"phaseFocus,omitempty"`
	// WeekInPhase is 1-based, of WeeksInPhase.
	WeekInPhase  int `json:"weekInPhase"`
	WeeksInPhase int `json:"weeksInPhase"`
	// WeekStart and WeekEnd are the first and last days of the day's week
	// (the studio's week).
	WeekStart string `json:"weekStart"`
	WeekEnd   string `json:"weekEnd"`
	// EndsOn is the last day of the program's last week.
	EndsOn string `json:"endsOn"`
}

// ProgramPosition is where a structure started on startsOn stands on day
// (both YYYY-MM-DD), in a studio whose weeks start on first: the
// program's week 1 is the week that holds startsOn.
func ProgramPosition(s domain.ProgramStructure, startsOn, day string, first time.Weekday) (Position, error) {
	start, err := time.Parse(time.DateOnly, startsOn)
	if err != nil {
		return Position{}, fmt.Errorf("startsOn %q is not a YYYY-MM-DD date", startsOn)
	}
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return Position{}, fmt.Errorf("day %q is not a YYYY-MM-DD date", day)
	}
	firstWeek, this := StartOfWeek(start, first), StartOfWeek(d, first)
	weeks := Weeks(s)
	p := Position{
		Weeks:     weeks,
		WeekStart: this.Format(time.DateOnly),
		WeekEnd:   this.AddDate(0, 0, 6).Format(time.DateOnly),
		EndsOn:    firstWeek.AddDate(0, 0, 7*weeks-1).Format(time.DateOnly),
	}
	k := int(this.Sub(firstWeek).Hours()/24+0.5) / 7
	switch {
	case d.Before(start):
		p.State = "upcoming"
		return p, nil
	case k >= weeks:
		p.State = "finished"
		return p, nil
	}
	p.State, p.Week = "running", k+1
	for i, ph := range s.Phases {
		if k < len(ph.Weeks) {
			p.Phase, p.PhaseName, p.WeekInPhase, p.WeeksInPhase = i+1, ph.Name, k+1, len(ph.Weeks)
			if ph.Focus != nil {
				p.PhaseFocus = *ph.Focus
			}
			break
		}
		k -= len(ph.Weeks)
	}
	return p, nil
}

// Modifying a planned session. Each operation works on a copy and answers
// how many exercises it changed.

// ReduceVolume takes pct percent (1–90) off each exercise's target: the
// sets first, sets × (1 − pct/100) rounded to the nearest whole set and at
// least 1; when that leaves the sets as they were (a single set, or a cut
// too small to remove one) the reps instead, rounded the same way and at
// least 1. Time and distance targets shrink by the same share (seconds
// rounded to the second, metres to the metre).
func ReduceVolume(exs []domain.SessionExercise, pct float64) ([]domain.SessionExercise, int) {
	keep := 1 - pct/100
	out, changed := cloneExercises(exs), 0
	for i := range out {
		t := out[i].Target
		if t == nil {
			continue
		}
		before := *t
		switch {
		case t.Sets != nil && *t.Sets > 1 && scaled(*t.Sets, keep) < *t.Sets:
			t.Sets = ptr(scaled(*t.Sets, keep))
		case t.Reps != nil && *t.Reps > 1:
			t.Reps = ptr(scaled(*t.Reps, keep))
		}
		if t.Seconds != nil {
			t.Seconds = ptr(scaled(*t.Seconds, keep))
		}
		if t.Metres != nil {
			t.Metres = ptr(math.Max(1, math.Round(*t.Metres*keep)))
		}
		if !sameTarget(before, *t) {
			changed++
		}
	}
	return out, changed
}

func scaled(n int, keep float64) int { return max(1, int(math.Round(float64(n)*keep))) }

// RaiseIntensity raises each exercise's load by loadPct percent (loadKg
// rounded to the nearest 0.5 kg; percent1RM to 0.5, at most 100) and its
// effort by effort points (RPE up, at most 10; RIR down, at least 0).
func RaiseIntensity(exs []domain.SessionExercise, loadPct, effort float64) ([]domain.SessionExercise, int) {
	out, changed := cloneExercises(exs), 0
	for i := range out {
		t := out[i].Target
		if t == nil {
			continue
		}
		before := *t
		if loadPct > 0 {
			if t.LoadKg != nil {
				t.LoadKg = ptr(math.Round(*t.LoadKg*(1+loadPct/100)*2) / 2)
			}
			if t.PercentRM != nil {
				t.PercentRM = ptr(math.Min(100, math.Round(*t.PercentRM*(1+loadPct/100)*2)/2))
			}
		}
		if effort > 0 {
			if t.RPE != nil {
				t.RPE = ptr(math.Min(10, *t.RPE+effort))
			}
			if t.RIR != nil {
				t.RIR = ptr(max(0, *t.RIR-int(math.Round(effort))))
			}
		}
		if !sameTarget(before, *t) {
			changed++
		}
	}
	return out, changed
}

// SwapExercise puts to in place of every exercise of the session with id
// from, keeping its target, sets and notes.
func SwapExercise(exs []domain.SessionExercise, from string, to domain.Exercise) ([]domain.SessionExercise, int) {
	out, changed := cloneExercises(exs), 0
	for i := range out {
		if out[i].ExerciseID == from {
			out[i].ExerciseID, out[i].Name = to.ID, to.Name
			changed++
		}
	}
	return out, changed
}

func cloneExercises(exs []domain.SessionExercise) []domain.SessionExercise {
	out := make([]domain.SessionExercise, len(exs))
	for i, ex := range exs {
		out[i] = ex
		if ex.Target != nil {
			t := *ex.Target
			out[i].Target = &t
		}
		out[i].Sets = slices.Clone(ex.Sets)
	}
	return out
}

func sameTarget(a, b domain.ExerciseTarget) bool {
	return eq(a.Sets, b.Sets) && eq(a.Reps, b.Reps) && eq(a.LoadKg, b.LoadKg) && eq(a.PercentRM, b.PercentRM) &&
		eq(a.RPE, b.RPE) && eq(a.RIR, b.RIR) && eq(a.Seconds, b.Seconds) && eq(a.Metres, b.Metres)
}

func eq[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func ptr[T any](v T) *T { return &v }

// Benchmarks.

// BenchmarkValue is one value of a benchmark and when it was recorded.
type BenchmarkValue struct {
	Value      float64   `json:"value"`
	RecordedAt time.Time `json:"recordedAt"`
	Source     string    `json:"source"`
	SessionID  *string   `json:"sessionId,omitempty"`
}

// BenchmarkStats summarise a benchmark's history at an instant.
type BenchmarkStats struct {
	Best   *BenchmarkValue `json:"best"`
	Latest *BenchmarkValue `json:"latest"`
	// Change4Weeks and Change12Weeks are latest minus the value that was
	// latest 28 (84) days before now; null when the history is younger.
	// Positive means the number went up, whatever the direction.
	Change4Weeks  *float64 `json:"change4Weeks"`
	Change12Weeks *float64 `json:"change12Weeks"`
	Entries       int      `json:"entries"`
}

// Better reports whether a beats b in direction (higher or lower).
func Better(direction string, a, b float64) bool {
	if direction == domain.LowerIsBetter {
		return a < b
	}
	return a > b
}

// Stats computes a benchmark's best, latest and changes at now; entries
// are oldest first, as the store gives them.
func Stats(b domain.Benchmark, now time.Time) BenchmarkStats {
	st := BenchmarkStats{Entries: len(b.Entries)}
	if len(b.Entries) == 0 {
		return st
	}
	var best, latest *domain.BenchmarkEntry
	for i := range b.Entries {
		e := &b.Entries[i]
		if best == nil || Better(b.Direction, e.Value, best.Value) {
			best = e
		}
		if latest == nil || !e.RecordedAt.Before(latest.RecordedAt) {
			latest = e
		}
	}
	st.Best, st.Latest = valueOf(best), valueOf(latest)
	st.Change4Weeks = changeSince(b.Entries, latest.Value, now.AddDate(0, 0, -28))
	st.Change12Weeks = changeSince(b.Entries, latest.Value, now.AddDate(0, 0, -84))
	return st
}

func valueOf(e *domain.BenchmarkEntry) *BenchmarkValue {
	return &BenchmarkValue{Value: e.Value, RecordedAt: e.RecordedAt, Source: e.Source, SessionID: e.SessionID}
}

// changeSince is latest minus the latest value recorded at or before cut.
func changeSince(entries []domain.BenchmarkEntry, latest float64, cut time.Time) *float64 {
	var base *domain.BenchmarkEntry
	for i := range entries {
		e := &entries[i]
		if !e.RecordedAt.After(cut) && (base == nil || !e.RecordedAt.Before(base.RecordedAt)) {
			base = e
		}
	}
	if base == nil {
		return nil
	}
	return ptr(hundredths(latest - base.Value))
}

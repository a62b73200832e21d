package planbar

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Fixture is one trainee of the bar, in the checker's own terms: what the
// lane would know of her, and what her week must show. Fixtures are data
// (testdata/fixtures/*.json), written apart from any generator.
type Fixture struct {
	Name     string `json:"name"`
	Language string `json:"language"` // "he" or "en"
	Today    string `json:"today"`
	// WeekStart is the first day of the planned week, FirstDay its weekday
	// ("monday" or "sunday").
	WeekStart  string   `json:"weekStart"`
	FirstDay   string   `json:"firstDay"`
	Days       []int    `json:"days"` // ISO weekdays (1 Monday … 7 Sunday)
	Minutes    int      `json:"minutes"`
	Equipment  []string `json:"equipment"`
	Experience string   `json:"experience"`
	Age        int      `json:"age,omitempty"`
	SeniorAge  int      `json:"seniorAge,omitempty"` // the studio's (0: 60)
	Sport      string   `json:"sport,omitempty"`
	Goal       string   `json:"goal,omitempty"`
	Conditions []string `json:"conditions,omitempty"`
	Injuries   []Injury `json:"injuries,omitempty"`
	// Readiness is her latest check-ins' readiness, today first.
	Readiness []int     `json:"readiness,omitempty"`
	Program   *Program  `json:"program,omitempty"`
	Planned   []Planned `json:"planned,omitempty"`
	// Booked are her appointments in the planned week: a booked (or
	// attended) one fixes a training day, her days or not.
	Booked []Booked `json:"booked,omitempty"`
	// Logs repeat one exercise on one weekday over past weeks; Extra are
	// single sets on a date (an outlier, a one-off).
	Logs []Log `json:"logs,omitempty"`
	// LightWeek is a past week (weeks ago) she trained lighter: 60% of
	// each lift's sets.
	LightWeek int     `json:"lightWeek,omitempty"`
	Extra     []Extra `json:"extra,omitempty"`
	Expect    Expect  `json:"expect"`
}

// Injury is an injury as a coach records it.
type Injury struct {
	ID       string `json:"id"`
	Area     string `json:"area"`
	Kind     string `json:"kind"` // tendinopathy, sprain, strain, fracture, after_surgery, pain
	Severity int    `json:"severity"`
	Side     string `json:"side,omitempty"`
	Status   string `json:"status,omitempty"` // active (default), recovering
	Note     string `json:"note,omitempty"`
}

// Program is her active program's position.
type Program struct {
	Name  string `json:"name"`
	Phase string `json:"phase,omitempty"`
	Week  int    `json:"week"`
}

// Planned is a session already on her calendar in the planned week.
type Planned struct {
	ID      string        `json:"id"`
	Weekday int           `json:"weekday"`
	Title   string        `json:"title"`
	Sport   string        `json:"sport"`
	Minutes int           `json:"minutes,omitempty"`
	Items   []PlannedItem `json:"items"`
}

// Booked is an appointment of hers in the planned week, in the studio's
// time.
type Booked struct {
	ID      string `json:"id"`
	Weekday int    `json:"day"`  // ISO weekday
	Time    string `json:"time"` // local start, HH:MM
	Minutes int    `json:"minutes,omitempty"`
	With    string `json:"with,omitempty"`   // the coach's name, or the place
	Status  string `json:"status,omitempty"` // booked (default), attended, waitlisted, cancelled
}

// Fixes: the appointment fixes a training day (booked or attended).
func (b Booked) Fixes() bool { return b.Status == "" || b.Status == "booked" || b.Status == "attended" }

// BookedDate is the date of a booked appointment.
func (f Fixture) BookedDate(b Booked) string { return f.date(b.Weekday) }

// fixed are the weekdays her booked appointments fix, from today on.
func (f Fixture) fixed() map[int][]Booked {
	out := map[int][]Booked{}
	for _, b := range f.Booked {
		if b.Fixes() && f.date(b.Weekday) >= f.Today {
			out[b.Weekday] = append(out[b.Weekday], b)
		}
	}
	return out
}

// PlannedItem is one exercise of a planned session.
type PlannedItem struct {
	Exercise string   `json:"ex"`
	Sets     int      `json:"sets,omitempty"`
	Reps     int      `json:"reps,omitempty"`
	Kg       float64  `json:"kg,omitempty"`
	RIR      *int     `json:"rir,omitempty"`
	Minutes  int      `json:"minutes,omitempty"`
	Km       *float64 `json:"km,omitempty"`
}

// Log is one exercise done on one weekday of each listed past week.
// WeeksAgo lists the weeks (1 the week before the planned one), oldest
// first ([4,3,2,1] when empty); Kg, Minutes and Km give one value per listed
// week, or one for all.
type Log struct {
	Exercise string    `json:"ex"`
	Weekday  int       `json:"day"`
	WeeksAgo []int     `json:"weeksAgo,omitempty"`
	Sets     int       `json:"sets,omitempty"`
	Reps     int       `json:"reps,omitempty"`
	Kg       []float64 `json:"kg,omitempty"`
	RIR      *float64  `json:"rir,omitempty"`
	RPE      *float64  `json:"rpe,omitempty"`
	Seconds  int       `json:"seconds,omitempty"`
	Minutes  []int     `json:"minutes,omitempty"`
	Km       []float64 `json:"km,omitempty"`
}

// Extra is one logged set on a date.
type Extra struct {
	Date     string   `json:"date"`
	Exercise string   `json:"ex"`
	Sets     int      `json:"sets"`
	Reps     int      `json:"reps"`
	Kg       float64  `json:"kg"`
	RIR      *float64 `json:"rir,omitempty"`
}

// Expect is what her week must show beyond the rules every week keeps.
type Expect struct {
	// MinSessions and MaxSessions bound the week's sessions (0: the
	// checker's default, see days).
	MinSessions int `json:"minSessions,omitempty"`
	MaxSessions int `json:"maxSessions,omitempty"`
	// Deload: the week must be a deload; NoDeload: it must not be.
	Deload   bool `json:"deload,omitempty"`
	NoDeload bool `json:"noDeload,omitempty"`
	// Holds are exercises whose load was held on purpose (easy sets): the
	// week must not cut them.
	Holds []string `json:"holds,omitempty"`
	// SportMin and SportMax bound her sport's weekly volume as a share of
	// her usual (default 0.9–1.1).
	SportMin float64 `json:"sportMin,omitempty"`
	SportMax float64 `json:"sportMax,omitempty"`
	// CrossTrain: her sport's volume may be kept by any endurance work
	// (an injured runner on a bike or in the pool).
	CrossTrain bool `json:"crossTrain,omitempty"`
	// Flags are further reasons the week must state: deload, readiness,
	// return.
	Flags []string `json:"flags,omitempty"`
	Why   string   `json:"why,omitempty"` // for the reader
}

// LoggedSet is one set of her history; Session one logged day.
type LoggedSet struct {
	Reps    int
	Kg      float64
	RIR     *float64
	RPE     *float64
	Seconds int
	Metres  float64
}

// LoggedExercise is one exercise of a logged day.
type LoggedExercise struct {
	Exercise string
	Sets     []LoggedSet
}

// LoggedSession is one day of her history, in date order.
type LoggedSession struct {
	Date      string
	Sport     string // the sport of its endurance work, or strength
	Minutes   int    // the endurance minutes logged
	Exercises []LoggedExercise
}

// LoadFixtures reads every fixture file of dir (each a JSON array).
func LoadFixtures(dir string) ([]Fixture, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Fixture
	names := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var fs []Fixture
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fs); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		for _, fx := range fs {
			if err := fx.check(); err != nil {
				return nil, fmt.Errorf("%s: fixture %q: %w", filepath.Base(f), fx.Name, err)
			}
			if names[fx.Name] {
				return nil, fmt.Errorf("%s: fixture %q is named twice", filepath.Base(f), fx.Name)
			}
			names[fx.Name] = true
			out = append(out, fx)
		}
	}
	return out, nil
}

func (f Fixture) check() error {
	start, err := time.Parse(time.DateOnly, f.WeekStart)
	if err != nil {
		return fmt.Errorf("weekStart %q is not a date", f.WeekStart)
	}
	if start.Weekday() != f.First() {
		return fmt.Errorf("weekStart %s is a %s, not the first day (%s)", f.WeekStart, start.Weekday(), f.First())
	}
	if f.Today > start.AddDate(0, 0, 6).Format(time.DateOnly) {
		return fmt.Errorf("today %s is after the week", f.Today)
	}
	if f.Language != "he" && f.Language != "en" {
		return fmt.Errorf("language %q is not he or en", f.Language)
	}
	if f.Minutes < 20 || len(f.Days) == 0 || len(f.Equipment) == 0 {
		return fmt.Errorf("minutes, days and equipment are required")
	}
	for _, inj := range f.Injuries {
		if _, ok := areaWords[inj.Area]; !ok || inj.Severity < 1 || inj.Severity > 5 {
			return fmt.Errorf("injury %q: area %q or severity %d is not one the checker knows", inj.ID, inj.Area, inj.Severity)
		}
	}
	for _, c := range f.Conditions {
		if _, ok := conditionRules[c]; !ok || c == "senior" {
			return fmt.Errorf("condition %q is not one the checker knows", c)
		}
	}
	if _, ok := levels[f.Experience]; !ok {
		return fmt.Errorf("experience %q is not beginner, intermediate or advanced", f.Experience)
	}
	for _, b := range f.Booked {
		if _, err := time.Parse("15:04", b.Time); err != nil || b.Weekday < 1 || b.Weekday > 7 || b.ID == "" {
			return fmt.Errorf("booked %q: an id, an ISO weekday and a time HH:MM are required", b.ID)
		}
		switch b.Status {
		case "", "booked", "attended", "waitlisted", "cancelled":
		default:
			return fmt.Errorf("booked %q: status %q is not booked, attended, waitlisted or cancelled", b.ID, b.Status)
		}
	}
	for _, m := range f.Logs {
		if m.Weekday < 1 || m.Weekday > 7 {
			return fmt.Errorf("log of %s: day %d is not an ISO weekday", m.Exercise, m.Weekday)
		}
		if _, ok := lookup(m.Exercise); !ok {
			return fmt.Errorf("log of %q: the checker does not know this exercise", m.Exercise)
		}
		n := len(m.weeks())
		for _, l := range []int{len(m.Kg), len(m.Minutes), len(m.Km)} {
			if l > 1 && l != n {
				return fmt.Errorf("log of %s: %d values for %d weeks", m.Exercise, l, n)
			}
		}
	}
	return nil
}

// First is the first day of her studio's week.
func (f Fixture) First() time.Weekday {
	if f.FirstDay == "sunday" {
		return time.Sunday
	}
	return time.Monday
}

// date is the planned week's day of ISO weekday d.
func (f Fixture) date(d int) string {
	return f.dayOf(0, d)
}

// dayOf is ISO weekday d of the week weeksAgo before the planned one.
func (f Fixture) dayOf(weeksAgo, d int) string {
	start, _ := time.Parse(time.DateOnly, f.WeekStart)
	off := (d%7 - int(f.First()) + 7) % 7
	return start.AddDate(0, 0, off-7*weeksAgo).Format(time.DateOnly)
}

// PlannedDate is the date of a planned session.
func (f Fixture) PlannedDate(p Planned) string { return f.date(p.Weekday) }

// Senior is the age from which the senior rules apply.
func (f Fixture) Senior() int {
	if f.SeniorAge > 0 {
		return f.SeniorAge
	}
	return 60
}

func (m Log) weeks() []int {
	if len(m.WeeksAgo) == 0 {
		return []int{4, 3, 2, 1}
	}
	return m.WeeksAgo
}

func pick[T any](vs []T, i int) (T, bool) {
	var zero T
	switch {
	case len(vs) == 0:
		return zero, false
	case len(vs) == 1:
		return vs[0], true
	}
	return vs[i], true
}

// History is her logged days, oldest first.
func (f Fixture) History() []LoggedSession {
	byDate := map[string]*LoggedSession{}
	add := func(date string, e LoggedExercise, minutes int) {
		s := byDate[date]
		if s == nil {
			s = &LoggedSession{Date: date, Sport: "strength"}
			byDate[date] = s
		}
		if mv, _ := lookup(e.Exercise); mv.sport != "" {
			s.Sport = mv.sport
		}
		s.Minutes += minutes
		s.Exercises = append(s.Exercises, e)
	}
	for _, m := range f.Logs {
		for i, ago := range m.weeks() {
			date := f.dayOf(ago, m.Weekday)
			if date > f.Today {
				continue
			}
			e := LoggedExercise{Exercise: m.Exercise}
			kg, _ := pick(m.Kg, i)
			mins, hasMin := pick(m.Minutes, i)
			km, hasKm := pick(m.Km, i)
			sets := max(m.Sets, 1)
			if ago == f.LightWeek && kg > 0 {
				sets = max(int(float64(sets)*0.6+0.5), 1)
			}
			for range sets {
				set := LoggedSet{Reps: m.Reps, Kg: kg, RIR: m.RIR, RPE: m.RPE, Seconds: m.Seconds}
				if hasMin {
					set.Seconds = mins * 60 / sets
				}
				if hasKm {
					set.Metres = km * 1000 / float64(sets)
				}
				e.Sets = append(e.Sets, set)
			}
			minutes := 0
			if hasMin {
				minutes = mins
			}
			add(date, e, minutes)
		}
	}
	for _, x := range f.Extra {
		e := LoggedExercise{Exercise: x.Exercise}
		for range max(x.Sets, 1) {
			e.Sets = append(e.Sets, LoggedSet{Reps: x.Reps, Kg: x.Kg, RIR: x.RIR})
		}
		add(x.Date, e, 0)
	}
	var out []LoggedSession
	for _, s := range byDate {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b LoggedSession) int { return strings.Compare(a.Date, b.Date) })
	return out
}

package training

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// OverviewDays is the overview's window of sessions: today and the 13 days before.
const OverviewDays = 14

// Bounds of the overview, whatever the history holds.
const (
	overviewSessions = 42 // three a day for 14 days
	overviewCheckIns = 3
	overviewInjuries = 10
	overviewGoals    = 10
)

// ProgramNow is where a trainee is in a program today.
type ProgramNow struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	StartsOn string `json:"startsOn"`
	// Week is the studio's calendar week since StartsOn's, 1
	// the first (0 before it starts), as the program's layout counts them.
	Week int `json:"week"`
	// TotalWeeks counts the structure's weeks (nil without a structure).
	TotalWeeks *int `json:"totalWeeks"`
	// Phase and PhaseWeek name the structure's phase this week falls in.
	Phase     *string `json:"phase"`
	PhaseWeek *int    `json:"phaseWeek"`
	// Finished is true once Week is past TotalWeeks.
	Finished bool `json:"finished"`
}

// ProgramAt places today in program p laid out by structure s (nil for a
// template that is only a name).
func ProgramAt(p domain.Program, s *domain.ProgramStructure, today string, first time.Weekday) ProgramNow {
	pos := ProgramNow{ID: p.ID, Name: p.Name, StartsOn: p.StartsOn}
	if today >= p.StartsOn {
		pos.Week = DayDiff(WeekStartOn(p.StartsOn, first), WeekStartOn(today, first))/7 + 1
	}
	if s == nil {
		return pos
	}
	total := 0
	for _, ph := range s.Phases {
		if pos.Week > total && pos.Week <= total+len(ph.Weeks) {
			name, w := ph.Name, pos.Week-total
			pos.Phase, pos.PhaseWeek = &name, &w
		}
		total += len(ph.Weeks)
	}
	pos.TotalWeeks = &total
	pos.Finished = pos.Week > total
	return pos
}

// SessionLine is a session's metadata: no exercises, no sets.
type SessionLine struct {
	ID          string  `json:"id"`
	Date        string  `json:"date"`
	Title       string  `json:"title"`
	Sport       string  `json:"sport"`
	Status      string  `json:"status"`
	VolumeKg    float64 `json:"volumeKg"`
	DurationMin *int    `json:"durationMin"`
	RPE         *int    `json:"rpe"`
}

func lineOf(s domain.Session) SessionLine {
	return SessionLine{ID: s.ID, Date: s.Date, Title: s.Title, Sport: s.Sport, Status: s.Status,
		VolumeKg: tenths(s.Totals.VolumeKg), DurationMin: s.DurationMin, RPE: s.RPE}
}

// Completion is completed sessions against the sessions due: every session
// dated in the window up to today, whatever its status (a planned one still
// open past its day counts as due and not done). Rate is Completed/Due.
type Completion struct {
	Completed int      `json:"completed"`
	Due       int      `json:"due"`
	Rate      *float64 `json:"rate"`
}

func completionOf(sessions []domain.Session, from, to string) Completion {
	var c Completion
	for _, s := range sessions {
		if s.Date < from || s.Date > to {
			continue
		}
		c.Due++
		if s.Status == domain.SessionCompleted {
			c.Completed++
		}
	}
	c.Rate = ratio(c.Completed, c.Due)
	return c
}

// GoalLine is an active goal with its progress, as the caller computed it
// (nil when the goal's kind has none).
type GoalLine struct {
	Goal     domain.Goal `json:"goal"`
	Progress any         `json:"progress"`
}

// OverviewInput is what the overview reads.
type OverviewInput struct {
	Today string
	// FirstDay is the first day of the studio's week (the program's weeks).
	FirstDay time.Weekday
	// Program is the active program (nil for none); Structure its template's.
	Program   *domain.Program
	Structure *domain.ProgramStructure
	// Sessions are the trainee's sessions of the window (others are
	// ignored); summary rows are enough.
	Sessions []domain.Session
	CheckIns []domain.CheckIn // any order; the latest are kept
	Injuries []domain.Injury  // the active ones are kept
	Goals    []GoalLine       // the active ones are kept
}

// Overview is a trainee's training at a glance, summary first.
type Overview struct {
	Summary        string           `json:"summary"`
	Program        *ProgramNow      `json:"program"`
	From           string           `json:"from"`
	To             string           `json:"to"`
	Completion     Completion       `json:"completion"`
	Sessions       []SessionLine    `json:"sessions"` // newest first
	LatestCheckIns []domain.CheckIn `json:"latestCheckIns"`
	ActiveInjuries []domain.Injury  `json:"activeInjuries"`
	ActiveGoals    []GoalLine       `json:"activeGoals"`
	// More are lines other parts of the studio add about the trainee.
	More []string `json:"more,omitempty"`
}

// BuildOverview computes the overview. Its size is bounded: at most
// overviewSessions sessions, 3 check-ins, 10 injuries and 10 goals.
func BuildOverview(in OverviewInput) Overview {
	from := dayAdd(in.Today, -(OverviewDays - 1))
	o := Overview{From: from, To: in.Today, Sessions: []SessionLine{}, LatestCheckIns: []domain.CheckIn{},
		ActiveInjuries: []domain.Injury{}, ActiveGoals: []GoalLine{}}
	if in.Program != nil {
		pos := ProgramAt(*in.Program, in.Structure, in.Today, in.FirstDay)
		o.Program = &pos
	}
	var window []domain.Session
	for _, s := range in.Sessions {
		if s.Date >= from && s.Date <= in.Today {
			window = append(window, s)
		}
	}
	slices.SortStableFunc(window, func(a, b domain.Session) int {
		return -strings.Compare(a.Date+startOf(a), b.Date+startOf(b))
	})
	o.Completion = completionOf(window, from, in.Today)
	for _, s := range window[:min(len(window), overviewSessions)] {
		o.Sessions = append(o.Sessions, lineOf(s))
	}
	checkIns := slices.Clone(in.CheckIns)
	slices.SortFunc(checkIns, func(a, b domain.CheckIn) int { return -strings.Compare(a.Day, b.Day) })
	o.LatestCheckIns = append(o.LatestCheckIns, checkIns[:min(len(checkIns), overviewCheckIns)]...)
	for _, i := range in.Injuries {
		if i.Status == domain.InjuryActive && len(o.ActiveInjuries) < overviewInjuries {
			o.ActiveInjuries = append(o.ActiveInjuries, i)
		}
	}
	for _, g := range in.Goals {
		if g.Goal.Status == domain.GoalActive && len(o.ActiveGoals) < overviewGoals {
			o.ActiveGoals = append(o.ActiveGoals, g)
		}
	}
	o.Summary = o.summary()
	return o
}

func startOf(s domain.Session) string {
	if s.StartTime != nil {
		return *s.StartTime
	}
	return ""
}

func (o Overview) summary() string {
	var parts []string
	switch p := o.Program; {
	case p == nil:
		parts = append(parts, "No active program.")
	case p.Week == 0:
		parts = append(parts, fmt.Sprintf("Program %s starts on %s.", p.Name, p.StartsOn))
	case p.Finished:
		parts = append(parts, fmt.Sprintf("Program %s ended after %d weeks (week %d since its start).", p.Name, *p.TotalWeeks, p.Week))
	case p.TotalWeeks != nil && p.Phase != nil:
		parts = append(parts, fmt.Sprintf("Program %s: week %d of %d, phase %s (its week %d).", p.Name, p.Week, *p.TotalWeeks, *p.Phase, *p.PhaseWeek))
	default:
		parts = append(parts, fmt.Sprintf("Program %s: week %d.", p.Name, p.Week))
	}
	c := o.Completion
	if c.Due == 0 {
		parts = append(parts, fmt.Sprintf("No sessions in the last %d days.", OverviewDays))
	} else {
		parts = append(parts, fmt.Sprintf("Last %d days: %d of %d sessions completed (%.0f%%).", OverviewDays, c.Completed, c.Due, *c.Rate*100))
	}
	if len(o.LatestCheckIns) > 0 {
		ci := o.LatestCheckIns[0]
		if ci.Readiness != nil {
			parts = append(parts, fmt.Sprintf("Latest check-in %s: readiness %d/10.", ci.Day, *ci.Readiness))
		} else {
			parts = append(parts, fmt.Sprintf("Latest check-in %s.", ci.Day))
		}
	}
	if n := len(o.ActiveInjuries); n > 0 {
		var areas []string
		for _, i := range o.ActiveInjuries {
			areas = append(areas, fmt.Sprintf("%s (%s, severity %d)", i.Area, i.Side, i.Severity))
		}
		parts = append(parts, fmt.Sprintf("%d active %s: %s.", n, plural(n, "injury", "injuries"), strings.Join(areas, ", ")))
	}
	if n := len(o.ActiveGoals); n > 0 {
		parts = append(parts, fmt.Sprintf("%d active %s.", n, plural(n, "goal", "goals")))
	}
	return strings.Join(parts, " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

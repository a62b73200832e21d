package training

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// DebriefInput is what the weekly debrief reads.
type DebriefInput struct {
	// WeekStart is the first day of the week (the studio's week, see
	// StartOfWeek); Today is today's local day.
	WeekStart string
	Today     string
	// Sessions are the trainee's sessions from the week before WeekStart's
	// to the week after it (three weeks; others are ignored).
	Sessions []domain.Session
	// CheckIns are the week's check-ins (others are ignored).
	CheckIns []domain.CheckIn
	// Injuries: the active ones are flagged.
	Injuries []domain.Injury
	// Benchmarks with their entries: entries of source session whose
	// session is dated in the week are the week's PRs.
	Benchmarks []domain.Benchmark
}

// WeekFigure is one figure of the week against the week before.
type WeekFigure struct {
	Week         float64  `json:"week"`
	PreviousWeek float64  `json:"previousWeek"`
	ChangePct    *float64 `json:"changePct"` // nil when the week before is 0
}

// PR is a benchmark entry a session of the week recorded.
type PR struct {
	BenchmarkID  string   `json:"benchmarkId"`
	Name         string   `json:"name"`
	Unit         string   `json:"unit"`
	Value        float64  `json:"value"`
	PreviousBest *float64 `json:"previousBest"` // the best before it, nil for the first
	SessionID    string   `json:"sessionId"`
	Date         string   `json:"date"`
}

// CheckInAverages are the averages of the week's check-ins, each over the
// check-ins that gave that figure (nil when none did).
type CheckInAverages struct {
	Count        int      `json:"count"`
	Readiness    *float64 `json:"readiness"`
	Soreness     *float64 `json:"soreness"`
	SleepHours   *float64 `json:"sleepHours"`
	SleepQuality *float64 `json:"sleepQuality"`
	Mood         *float64 `json:"mood"`
	Stress       *float64 `json:"stress"`
}

// Flag kinds.
const (
	FlagMissed       = "missed_sessions"
	FlagLowReadiness = "low_readiness"
	FlagInjury       = "active_injury"
)

// Flag is something of the week a coach should look at.
type Flag struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Debrief is one ISO week of a trainee, summary first.
//
// Planned counts every session dated in the week, whatever its status;
// Completed those completed; Missed those missed or still planned on a
// day before today; Skipped those skipped; Remaining those still planned
// today or later. Volume (kg) and minutes add up completed sessions.
type Debrief struct {
	Summary   string          `json:"summary"`
	Week      string          `json:"week"`
	From      string          `json:"from"`
	To        string          `json:"to"`
	Planned   int             `json:"planned"`
	Completed int             `json:"completed"`
	Missed    int             `json:"missed"`
	Skipped   int             `json:"skipped"`
	Remaining int             `json:"remaining"`
	VolumeKg  WeekFigure      `json:"volumeKg"`
	Minutes   WeekFigure      `json:"minutes"`
	PRs       []PR            `json:"prs"`
	CheckIns  CheckInAverages `json:"checkIns"`
	Flags     []Flag          `json:"flags"`
	Sessions  []SessionLine   `json:"sessions"` // the week's, oldest first
	NextWeek  []SessionLine   `json:"nextWeek"` // next week's planned sessions
}

// lowReadiness is the readiness at or under which a day counts as low, and
// lowRun how many days running make a flag.
const (
	lowReadiness = 4
	lowRun       = 3
)

// debriefPRs bounds the PRs listed.
const debriefPRs = 20

// BuildDebrief computes the debrief of the week starting in.WeekStart.
func BuildDebrief(in DebriefInput) Debrief {
	from, to := in.WeekStart, dayAdd(in.WeekStart, 6)
	prevFrom, nextFrom, nextTo := dayAdd(from, -7), dayAdd(from, 7), dayAdd(from, 13)
	d := Debrief{Week: from, From: from, To: to, PRs: []PR{}, Flags: []Flag{}, Sessions: []SessionLine{}, NextWeek: []SessionLine{}}
	sessions := slices.Clone(in.Sessions)
	slices.SortStableFunc(sessions, func(a, b domain.Session) int { return strings.Compare(a.Date+startOf(a), b.Date+startOf(b)) })
	weekSessions := map[string]string{} // id → date
	var missed []string
	var vol, prevVol, mins, prevMins float64
	for _, s := range sessions {
		done := s.Status == domain.SessionCompleted
		switch {
		case s.Date >= prevFrom && s.Date < from:
			if done {
				prevVol += s.Totals.VolumeKg
				prevMins += float64(deref(s.DurationMin))
			}
		case s.Date >= from && s.Date <= to:
			weekSessions[s.ID] = s.Date
			d.Sessions = append(d.Sessions, lineOf(s))
			d.Planned++
			switch {
			case done:
				d.Completed++
				vol += s.Totals.VolumeKg
				mins += float64(deref(s.DurationMin))
			case s.Status == domain.SessionSkipped:
				d.Skipped++
			case s.Status == domain.SessionMissed || (s.Status == domain.SessionPlanned && s.Date < in.Today):
				d.Missed++
				missed = append(missed, fmt.Sprintf("%s %s", s.Date, s.Title))
			default:
				d.Remaining++
			}
		case s.Date >= nextFrom && s.Date <= nextTo && s.Status == domain.SessionPlanned:
			d.NextWeek = append(d.NextWeek, lineOf(s))
		}
	}
	d.VolumeKg = WeekFigure{Week: tenths(vol), PreviousWeek: tenths(prevVol), ChangePct: changePct(vol, prevVol)}
	d.Minutes = WeekFigure{Week: mins, PreviousWeek: prevMins, ChangePct: changePct(mins, prevMins)}
	d.PRs = weekPRs(in.Benchmarks, weekSessions)
	d.CheckIns = averages(in.CheckIns, from, to)

	if d.Missed > 0 {
		d.Flags = append(d.Flags, Flag{Kind: FlagMissed, Message: fmt.Sprintf("%d %s missed: %s.", d.Missed, plural(d.Missed, "session", "sessions"), strings.Join(missed, ", "))})
	}
	if run := lowReadinessRun(in.CheckIns, from, to); len(run) >= lowRun {
		var vals []string
		for _, v := range run {
			vals = append(vals, fmt.Sprintf("%s %d", v.Day, int(v.Value)))
		}
		d.Flags = append(d.Flags, Flag{Kind: FlagLowReadiness, Message: fmt.Sprintf("Readiness %d or lower %d days running: %s.", lowReadiness, len(run), strings.Join(vals, ", "))})
	}
	for _, i := range in.Injuries {
		if i.Status == domain.InjuryActive {
			d.Flags = append(d.Flags, Flag{Kind: FlagInjury, Message: fmt.Sprintf("Active injury: %s (%s), severity %d/5, since %s.", i.Area, i.Side, i.Severity, i.OnsetOn)})
		}
	}
	d.Summary = d.summary()
	return d
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// weekPRs lists the entries of source session recorded by one of the
// week's sessions, each with the best value before it.
func weekPRs(benchmarks []domain.Benchmark, weekSessions map[string]string) []PR {
	out := []PR{}
	for _, b := range benchmarks {
		entries := slices.Clone(b.Entries)
		slices.SortStableFunc(entries, func(x, y domain.BenchmarkEntry) int { return x.RecordedAt.Compare(y.RecordedAt) })
		var best *float64
		for _, e := range entries {
			if e.Source == domain.BenchmarkFromSession && e.SessionID != nil {
				if date, ok := weekSessions[*e.SessionID]; ok {
					out = append(out, PR{BenchmarkID: b.ID, Name: b.Name, Unit: b.Unit, Value: e.Value, PreviousBest: copyPtr(best), SessionID: *e.SessionID, Date: date})
				}
			}
			if best == nil || Better(b.Direction, e.Value, *best) {
				v := e.Value
				best = &v
			}
		}
	}
	slices.SortStableFunc(out, func(a, b PR) int { return strings.Compare(a.Date+a.Name, b.Date+b.Name) })
	return out[:min(len(out), debriefPRs)]
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func averages(checkIns []domain.CheckIn, from, to string) CheckInAverages {
	var a CheckInAverages
	var ready, sore, sleep, quality, mood, stress []float64
	add := func(vs *[]float64, p *int) {
		if p != nil {
			*vs = append(*vs, float64(*p))
		}
	}
	for _, c := range checkIns {
		if c.Day < from || c.Day > to {
			continue
		}
		a.Count++
		add(&ready, c.Readiness)
		add(&sore, c.Soreness)
		add(&quality, c.SleepQuality)
		add(&mood, c.Mood)
		add(&stress, c.Stress)
		if c.SleepHours != nil {
			sleep = append(sleep, *c.SleepHours)
		}
	}
	a.Readiness, a.Soreness, a.SleepHours, a.SleepQuality, a.Mood, a.Stress = mean(ready), mean(sore), mean(sleep), mean(quality), mean(mood), mean(stress)
	return a
}

// lowReadinessRun is the longest run of consecutive days from..to whose
// readiness is lowReadiness or under (the first such run when two tie).
func lowReadinessRun(checkIns []domain.CheckIn, from, to string) []domain.DayValue {
	var days []domain.DayValue
	for _, c := range checkIns {
		if c.Day >= from && c.Day <= to && c.Readiness != nil {
			days = append(days, domain.DayValue{Day: c.Day, Value: float64(*c.Readiness)})
		}
	}
	slices.SortFunc(days, func(a, b domain.DayValue) int { return strings.Compare(a.Day, b.Day) })
	var best, cur []domain.DayValue
	for _, d := range days {
		if d.Value > lowReadiness {
			cur = nil
			continue
		}
		if len(cur) > 0 && DayDiff(cur[len(cur)-1].Day, d.Day) != 1 {
			cur = nil
		}
		cur = append(cur, d)
		if len(cur) > len(best) {
			best = slices.Clone(cur)
		}
	}
	return best
}

func (d Debrief) summary() string {
	parts := []string{fmt.Sprintf("Week of %s to %s: %d of %d sessions completed", d.From, d.To, d.Completed, d.Planned)}
	if d.Missed > 0 {
		parts[0] += fmt.Sprintf(", %d missed", d.Missed)
	}
	if d.Remaining > 0 {
		parts[0] += fmt.Sprintf(", %d still to come", d.Remaining)
	}
	parts[0] += "."
	parts = append(parts, fmt.Sprintf("Volume %s kg%s, %s minutes%s.", fmtNum(d.VolumeKg.Week), against(d.VolumeKg), fmtNum(d.Minutes.Week), against(d.Minutes)))
	if n := len(d.PRs); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s.", n, plural(n, "PR", "PRs")))
	}
	if d.CheckIns.Readiness != nil {
		parts = append(parts, fmt.Sprintf("Average readiness %s/10 over %d check-ins.", fmtNum(*d.CheckIns.Readiness), d.CheckIns.Count))
	}
	if n := len(d.Flags); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s.", n, plural(n, "flag", "flags")))
	}
	if n := len(d.NextWeek); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s planned next week.", n, plural(n, "session", "sessions")))
	}
	return strings.Join(parts, " ")
}

func against(f WeekFigure) string {
	if f.ChangePct == nil {
		return ""
	}
	return fmt.Sprintf(" (%+.1f%% on the week before)", *f.ChangePct)
}

// fmtNum writes a figure without trailing zeros.
func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

// localDay is the day instant t falls on in loc.
func localDay(t time.Time, loc *time.Location) string { return t.In(loc).Format(time.DateOnly) }

package training

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// InsightDays is how far back the insights read sessions: 12 weeks.
const InsightDays = 84

// InsightsInput is what the coaching insights read.
type InsightsInput struct {
	Today string
	Zone  *time.Location // the studio's: a benchmark entry's day is local
	// FirstDay is the first day of the studio's week: the week streak
	// counts its weeks.
	FirstDay time.Weekday
	// Sessions are the trainee's full sessions (with sets) of the last
	// InsightDays days up to today (others are ignored).
	Sessions []domain.Session
	// CheckIns are the last 28 days' check-ins (others are ignored).
	CheckIns   []domain.CheckIn
	Benchmarks []domain.Benchmark
}

// Observation is one finding with the numbers behind it.
type Observation struct {
	Area    string `json:"area"` // consistency, fatigue, progress
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Consistency: FourWeeks is completion (as in the overview) over today and
// the 27 days before. WeekStreak counts the ISO weeks before this one,
// back from last week, that met their plan: at least one session, and
// every session dated in the week completed. SessionStreak counts the
// sessions due up to today, back from the latest, completed in a row.
// Both are capped by the InsightDays the insights read.
type Consistency struct {
	FourWeeks     Completion `json:"fourWeeks"`
	WeekStreak    int        `json:"weekStreak"`
	SessionStreak int        `json:"sessionStreak"`
}

// Trend compares the last 7 days (today and the 6 before) with the 21
// before them. Change is Recent − Baseline, nil unless both have values.
type Trend struct {
	Recent        *float64 `json:"recent"`
	RecentCount   int      `json:"recentCount"`
	Baseline      *float64 `json:"baseline"`
	BaselineCount int      `json:"baselineCount"`
	Change        *float64 `json:"change"`
}

// Fatigue is readiness and soreness (check-ins) and session RPE (completed
// sessions), each as a Trend.
type Fatigue struct {
	Readiness  Trend `json:"readiness"`
	Soreness   Trend `json:"soreness"`
	SessionRPE Trend `json:"sessionRpe"`
}

// BenchmarkTrend is one benchmark's latest, best and change over 4 weeks:
// latest minus the latest entry recorded 28 days or more before today.
type BenchmarkTrend struct {
	BenchmarkID string   `json:"benchmarkId"`
	Name        string   `json:"name"`
	Unit        string   `json:"unit"`
	Direction   string   `json:"direction"`
	Latest      float64  `json:"latest"`
	LatestOn    string   `json:"latestOn"`
	Best        float64  `json:"best"`
	Change4w    *float64 `json:"change4w"`
	Entries     int      `json:"entries"`
}

// StalledLift is a lift done in the last 3 weeks (today and the 20 days
// before) whose best estimated 1RM there (Epley: load × (1 + reps/30), over
// done sets with reps and load) is no better than its best before them.
type StalledLift struct {
	ExerciseID     string  `json:"exerciseId"`
	Name           string  `json:"name"`
	RecentBestE1RM float64 `json:"recentBestE1rm"`
	RecentSessions int     `json:"recentSessions"`
	PriorBestE1RM  float64 `json:"priorBestE1rm"`
	PriorBestOn    string  `json:"priorBestOn"`
}

// Insights are the coaching insights, summary first.
type Insights struct {
	Summary      string           `json:"summary"`
	Consistency  Consistency      `json:"consistency"`
	Fatigue      Fatigue          `json:"fatigue"`
	Benchmarks   []BenchmarkTrend `json:"benchmarks"`
	StalledLifts []StalledLift    `json:"stalledLifts"`
	Observations []Observation    `json:"observations"`
}

// Thresholds: a trend moves when its change is at least trendStep points;
// stallDays is the 3 weeks a lift has to improve in.
const (
	trendStep         = 1.0
	stallDays         = 21
	insightBenchmarks = 10
	insightLifts      = 20
)

// BuildInsights computes the coaching insights.
func BuildInsights(in InsightsInput) Insights {
	zone := in.Zone
	if zone == nil {
		zone = time.UTC
	}
	from := dayAdd(in.Today, -(InsightDays - 1))
	var sessions []domain.Session
	for _, s := range in.Sessions {
		if s.Date >= from && s.Date <= in.Today {
			sessions = append(sessions, s)
		}
	}
	slices.SortStableFunc(sessions, func(a, b domain.Session) int { return strings.Compare(a.Date+startOf(a), b.Date+startOf(b)) })
	out := Insights{Benchmarks: []BenchmarkTrend{}, StalledLifts: []StalledLift{}, Observations: []Observation{}}
	out.Consistency = consistencyOf(sessions, in.Today, in.FirstDay)
	out.Fatigue = fatigue(sessions, in.CheckIns, in.Today)
	out.Benchmarks = benchmarkTrends(in.Benchmarks, in.Today, zone)
	out.StalledLifts = stalledLifts(sessions, in.Today)
	out.Observations = observations(out)
	out.Summary = insightSummary(out)
	return out
}

func consistencyOf(sessions []domain.Session, today string, first time.Weekday) Consistency {
	c := Consistency{FourWeeks: completionOf(sessions, dayAdd(today, -27), today)}
	// Weeks back from last week.
	byWeek := map[string][2]int{} // first day → {sessions, completed}
	for _, s := range sessions {
		w := byWeek[WeekStartOn(s.Date, first)]
		w[0]++
		if s.Status == domain.SessionCompleted {
			w[1]++
		}
		byWeek[WeekStartOn(s.Date, first)] = w
	}
	earliest := WeekStartOn(dayAdd(today, -(InsightDays-1)), first)
	for w := dayAdd(WeekStartOn(today, first), -7); w >= earliest; w = dayAdd(w, -7) {
		n := byWeek[w]
		if n[0] == 0 || n[1] < n[0] {
			break
		}
		c.WeekStreak++
	}
	for i := len(sessions) - 1; i >= 0; i-- {
		if sessions[i].Status != domain.SessionCompleted {
			break
		}
		c.SessionStreak++
	}
	return c
}

func trendOf(recent, baseline []float64) Trend {
	t := Trend{Recent: mean(recent), RecentCount: len(recent), Baseline: mean(baseline), BaselineCount: len(baseline)}
	if t.Recent != nil && t.Baseline != nil {
		c := tenths(*t.Recent - *t.Baseline)
		t.Change = &c
	}
	return t
}

func fatigue(sessions []domain.Session, checkIns []domain.CheckIn, today string) Fatigue {
	recentFrom, baseFrom := dayAdd(today, -6), dayAdd(today, -27)
	var rr, rb, sr, sb, er, eb []float64
	split := func(day string, v float64, recent, base *[]float64) {
		switch {
		case day >= recentFrom && day <= today:
			*recent = append(*recent, v)
		case day >= baseFrom && day < recentFrom:
			*base = append(*base, v)
		}
	}
	for _, c := range checkIns {
		if c.Readiness != nil {
			split(c.Day, float64(*c.Readiness), &rr, &rb)
		}
		if c.Soreness != nil {
			split(c.Day, float64(*c.Soreness), &sr, &sb)
		}
	}
	for _, s := range sessions {
		if s.Status == domain.SessionCompleted && s.RPE != nil {
			split(s.Date, float64(*s.RPE), &er, &eb)
		}
	}
	return Fatigue{Readiness: trendOf(rr, rb), Soreness: trendOf(sr, sb), SessionRPE: trendOf(er, eb)}
}

func benchmarkTrends(benchmarks []domain.Benchmark, today string, zone *time.Location) []BenchmarkTrend {
	out := []BenchmarkTrend{}
	cutoff := dayAdd(today, -28)
	for _, b := range benchmarks {
		entries := slices.Clone(b.Entries)
		slices.SortStableFunc(entries, func(x, y domain.BenchmarkEntry) int { return x.RecordedAt.Compare(y.RecordedAt) })
		var t *BenchmarkTrend
		var before *float64
		for _, e := range entries {
			day := localDay(e.RecordedAt, zone)
			if day > today {
				break
			}
			if t == nil {
				t = &BenchmarkTrend{BenchmarkID: b.ID, Name: b.Name, Unit: b.Unit, Direction: b.Direction, Best: e.Value}
			}
			t.Latest, t.LatestOn = e.Value, day
			t.Entries++
			if Better(b.Direction, e.Value, t.Best) {
				t.Best = e.Value
			}
			if day <= cutoff {
				v := e.Value
				before = &v
			}
		}
		if t == nil {
			continue
		}
		if before != nil {
			c := hundredths(t.Latest - *before)
			t.Change4w = &c
		}
		out = append(out, *t)
	}
	// The most recently moved first.
	slices.SortStableFunc(out, func(a, b BenchmarkTrend) int { return -strings.Compare(a.LatestOn, b.LatestOn) })
	return out[:min(len(out), insightBenchmarks)]
}

// topSetE1RM is the best estimated 1RM (E1RM: Epley, sets of 1 to 12 reps) of one exercise's done sets, 0
// when none has reps and load.
func topSetE1RM(e domain.SessionExercise) float64 {
	best := 0.0
	for _, s := range e.Sets {
		if s.Done && s.Reps != nil && s.LoadKg != nil {
			best = max(best, E1RM(*s.LoadKg, *s.Reps))
		}
	}
	return best
}

func stalledLifts(sessions []domain.Session, today string) []StalledLift {
	recentFrom := dayAdd(today, -(stallDays - 1))
	type lift struct {
		name           string
		recent, prior  float64
		priorOn        string
		recentSessions int
		order          int
	}
	lifts := map[string]*lift{}
	for _, s := range sessions {
		if s.Status != domain.SessionCompleted {
			continue
		}
		for _, e := range s.Exercises {
			v := topSetE1RM(e)
			if v == 0 || e.ExerciseID == "" {
				continue
			}
			l := lifts[e.ExerciseID]
			if l == nil {
				l = &lift{name: e.Name, order: len(lifts)}
				lifts[e.ExerciseID] = l
			}
			if s.Date >= recentFrom {
				l.recent = max(l.recent, v)
				l.recentSessions++
			} else if v > l.prior {
				l.prior, l.priorOn = v, s.Date
			}
		}
	}
	out := []StalledLift{}
	for id, l := range lifts {
		if l.recentSessions > 0 && l.prior > 0 && l.recent <= l.prior {
			out = append(out, StalledLift{ExerciseID: id, Name: l.name, RecentBestE1RM: tenths(l.recent), RecentSessions: l.recentSessions, PriorBestE1RM: tenths(l.prior), PriorBestOn: l.priorOn})
		}
	}
	slices.SortFunc(out, func(a, b StalledLift) int { return strings.Compare(a.ExerciseID, b.ExerciseID) })
	return out[:min(len(out), insightLifts)]
}

func observations(in Insights) []Observation {
	out := []Observation{}
	add := func(area, kind, format string, args ...any) {
		out = append(out, Observation{Area: area, Kind: kind, Message: fmt.Sprintf(format, args...)})
	}
	c := in.Consistency
	if c.FourWeeks.Due > 0 {
		add("consistency", "completion", "Completed %d of %d sessions due in the last 4 weeks (%.0f%%).", c.FourWeeks.Completed, c.FourWeeks.Due, *c.FourWeeks.Rate*100)
	} else {
		add("consistency", "completion", "No sessions were due in the last 4 weeks.")
	}
	if c.WeekStreak > 0 {
		add("consistency", "week_streak", "%d %s in a row with every session completed, up to last week.", c.WeekStreak, plural(c.WeekStreak, "week", "weeks"))
	}
	if c.SessionStreak > 0 {
		add("consistency", "session_streak", "The last %d %s due were all completed.", c.SessionStreak, plural(c.SessionStreak, "session", "sessions"))
	}
	f := in.Fatigue
	trend := func(kind, name string, t Trend, worseUp bool) {
		if t.Change == nil {
			return
		}
		ch := *t.Change
		worse := (worseUp && ch >= trendStep) || (!worseUp && ch <= -trendStep)
		better := (worseUp && ch <= -trendStep) || (!worseUp && ch >= trendStep)
		word := "steady"
		switch {
		case worse:
			word = "worse"
		case better:
			word = "better"
		}
		add("fatigue", kind, "%s averaged %s over the last 7 days (%d) against %s over the 21 before (%d): %+.1f, %s.", name, fmtNum(*t.Recent), t.RecentCount, fmtNum(*t.Baseline), t.BaselineCount, ch, word)
	}
	trend("readiness", "Readiness", f.Readiness, false)
	trend("soreness", "Soreness", f.Soreness, true)
	trend("session_rpe", "Session RPE", f.SessionRPE, true)
	for _, b := range in.Benchmarks {
		if b.Change4w == nil {
			continue
		}
		word := "unchanged"
		switch {
		case *b.Change4w != 0 && Better(b.Direction, *b.Change4w, 0):
			word = "improving"
		case *b.Change4w != 0:
			word = "declining"
		}
		add("progress", "benchmark", "%s: %s %s on %s, %+g %s over 4 weeks (%s); best %s.", b.Name, fmtNum(b.Latest), b.Unit, b.LatestOn, *b.Change4w, b.Unit, word, fmtNum(b.Best))
	}
	for _, l := range in.StalledLifts {
		add("progress", "stalled_lift", "%s has not improved for 3 weeks: best e1RM %s kg over %d %s, against %s kg on %s.", l.Name, fmtNum(l.RecentBestE1RM), l.RecentSessions, plural(l.RecentSessions, "session", "sessions"), fmtNum(l.PriorBestE1RM), l.PriorBestOn)
	}
	return out
}

func insightSummary(in Insights) string {
	var parts []string
	for _, o := range in.Observations {
		if o.Kind == "completion" || o.Kind == "readiness" || o.Kind == "stalled_lift" {
			parts = append(parts, o.Message)
		}
	}
	if len(parts) == 0 {
		return "Not enough data yet."
	}
	return strings.Join(parts, " ")
}

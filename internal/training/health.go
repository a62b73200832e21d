package training

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// The health side's read models: body analysis, goal progress, onboarding
// status and injury guidance. Pure functions of the data they are given,
// deterministic, no clock of their own.

// BodyMetric is one number the body analysis follows, in its stored unit.
type BodyMetric struct {
	Name string
	Unit string
}

// BodyMetrics are weightKg (from the weigh-ins) and every measurement
// field, in the order the analysis lists them.
var BodyMetrics = []BodyMetric{
	{"weightKg", "kg"}, {"bodyFatPct", "%"}, {"waistCm", "cm"}, {"hipsCm", "cm"},
	{"chestCm", "cm"}, {"armCm", "cm"}, {"thighCm", "cm"}, {"restingHr", "bpm"},
}

// IsBodyMetric reports whether name is one of BodyMetrics.
func IsBodyMetric(name string) bool {
	return slices.ContainsFunc(BodyMetrics, func(m BodyMetric) bool { return m.Name == name })
}

// measurementValue is m's value of metric, if measured.
func measurementValue(m domain.Measurement, metric string) (float64, bool) {
	var f *float64
	switch metric {
	case "bodyFatPct":
		f = m.BodyFatPct
	case "waistCm":
		f = m.WaistCm
	case "hipsCm":
		f = m.HipsCm
	case "chestCm":
		f = m.ChestCm
	case "armCm":
		f = m.ArmCm
	case "thighCm":
		f = m.ThighCm
	case "restingHr":
		if m.RestingHR != nil {
			return float64(*m.RestingHR), true
		}
	}
	if f == nil {
		return 0, false
	}
	return *f, true
}

// Point is one value of a metric at an instant.
type Point struct {
	Value float64   `json:"value"`
	At    time.Time `json:"at"`
}

// Series is metric's values, oldest first: weightKg from the weigh-ins,
// the rest from the measurements that carry it.
func Series(metric string, weights []domain.Weight, measurements []domain.Measurement) []Point {
	var out []Point
	if metric == "weightKg" {
		for _, w := range weights {
			out = append(out, Point{w.WeightKg, w.RecordedAt})
		}
	} else {
		for _, m := range measurements {
			if v, ok := measurementValue(m, metric); ok {
				out = append(out, Point{v, m.RecordedAt})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// MetricChange is one metric over a range: its first and latest values,
// the change between them (latest − first) and its trend.
type MetricChange struct {
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`
	Count  int     `json:"count" jsonschema:"How many values the range holds."`
	First  Point   `json:"first"`
	Latest Point   `json:"latest"`
	Change float64 `json:"change" jsonschema:"latest − first, in the metric's unit."`
	// TrendBy is week, or month when the values span more weeks than
	// maxTrendWeeks.
	TrendBy string       `json:"trendBy" jsonschema:"week or month: the period of each trend value."`
	Trend   []TrendPoint `json:"trend" jsonschema:"The mean of each week (month over 26 weeks) with values, oldest first."`
}

// TrendPoint is the mean of a metric's values over one period.
type TrendPoint struct {
	From  string  `json:"from" jsonschema:"The period's first day: the first day of the studio's week, or a month's 1st."`
	Value float64 `json:"value"`
}

// maxTrendWeeks is the most weeks a trend is drawn by; a longer span is
// drawn by month, so the trend has at most 26 values over a range.
const maxTrendWeeks = 26

// BodyAnalysis lists every metric with at least one value in the range.
type BodyAnalysis struct {
	Metrics []MetricChange `json:"metrics"`
}

// AnalyseBody is the body analysis of the weigh-ins and measurements
// given, its trends by the weeks (starting on first) or months of zone.
func AnalyseBody(weights []domain.Weight, measurements []domain.Measurement, zone *time.Location, firstDay time.Weekday) BodyAnalysis {
	if zone == nil {
		zone = time.UTC
	}
	out := BodyAnalysis{Metrics: []MetricChange{}}
	for _, m := range BodyMetrics {
		s := Series(m.Name, weights, measurements)
		if len(s) == 0 {
			continue
		}
		first, latest := s[0], s[len(s)-1]
		by, trend := "week", meansBy(s, zone, func(d time.Time) time.Time { return StartOfWeek(d, firstDay) })
		if len(trend) > maxTrendWeeks {
			by, trend = "month", meansBy(s, zone, monthOf)
		}
		out.Metrics = append(out.Metrics, MetricChange{Metric: m.Name, Unit: m.Unit, Count: len(s), First: first, Latest: latest,
			Change: round(latest.Value-first.Value, 2), TrendBy: by, Trend: trend})
	}
	return out
}

func monthOf(d time.Time) time.Time { return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC) }

// meansBy is the mean of s (oldest first) in each period period names,
// by the local day of each value in zone, oldest first.
func meansBy(s []Point, zone *time.Location, period func(time.Time) time.Time) []TrendPoint {
	var out []TrendPoint
	var sum float64
	n := 0
	flush := func() {
		if n > 0 {
			out[len(out)-1].Value = round(sum/float64(n), 1)
		}
	}
	for _, p := range s {
		l := p.At.In(zone)
		from := period(time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)).Format(time.DateOnly)
		if len(out) == 0 || out[len(out)-1].From != from {
			flush()
			out = append(out, TrendPoint{From: from})
			sum, n = 0, 0
		}
		sum += p.Value
		n++
	}
	flush()
	return out
}

// round rounds v to n decimals, so 79.1 − 80 reads −0.9.
func round(v float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(v*p) / p
}

// GoalProgress is how far a goal has come, computed from the data.
type GoalProgress struct {
	Start   *float64 `json:"start" jsonschema:"The value when the goal was set (the last one at or before, else the first after); null for consistency goals."`
	Current *float64 `json:"current" jsonschema:"The latest value; for a consistency goal the completed sessions per week over the last 4 weeks. Null when there is no value yet."`
	Target  float64  `json:"target"`
	Percent float64  `json:"percent" jsonschema:"How much of the way from start to target is done, 0 to 100."`
	Reached bool     `json:"reached"`
	// Weeks are a consistency goal's completed sessions in each of the last
	// 4 weeks (7-day windows ending today), oldest first.
	Weeks []int `json:"weeks,omitempty" jsonschema:"Consistency goals: completed sessions in each of the last 4 weeks (7-day windows ending today), oldest first."`
}

// GoalData is what goal progress reads. Benchmark is the goal's benchmark
// (benchmark goals); Weights and Measurements cover the goal's life
// (measurement goals); Sessions cover the 28 days ending Today, a local day
// (consistency goals).
type GoalData struct {
	Benchmark    *domain.Benchmark
	Weights      []domain.Weight
	Measurements []domain.Measurement
	Sessions     []domain.Session
	Today        string
}

// ConsistencyWeeks is how many weeks a consistency goal looks back.
const ConsistencyWeeks = 4

// Progress is g's progress, nil where the kind allows none (free text, no
// target, a benchmark goal without its benchmark).
func Progress(g domain.Goal, d GoalData) *GoalProgress {
	if g.TargetValue == nil {
		return nil
	}
	target := *g.TargetValue
	switch g.Kind {
	case domain.GoalBenchmark:
		if d.Benchmark == nil {
			return nil
		}
		var s []Point
		for _, e := range d.Benchmark.Entries {
			s = append(s, Point{e.Value, e.RecordedAt})
		}
		sort.SliceStable(s, func(i, j int) bool { return s[i].At.Before(s[j].At) })
		return towards(s, g.CreatedAt, target, d.Benchmark.Direction)
	case domain.GoalMeasurement:
		if g.Measure == nil || !IsBodyMetric(*g.Measure) {
			return nil
		}
		return towards(Series(*g.Measure, d.Weights, d.Measurements), g.CreatedAt, target, "")
	case domain.GoalConsistency:
		return consistency(d.Sessions, d.Today, target)
	}
	return nil
}

// towards is the progress of series from its value at since to target.
// direction is HigherIsBetter or LowerIsBetter; "" reads it from the start
// and the target (a target below the start is a goal to go down).
func towards(series []Point, since time.Time, target float64, direction string) *GoalProgress {
	p := &GoalProgress{Target: target}
	if len(series) == 0 {
		return p
	}
	start := series[0].Value
	for _, pt := range series {
		if pt.At.After(since) {
			break
		}
		start = pt.Value
	}
	cur := series[len(series)-1].Value
	p.Start, p.Current = &start, &cur
	if direction == "" {
		direction = domain.HigherIsBetter
		if target < start {
			direction = domain.LowerIsBetter
		}
	}
	gained, needed := cur-start, target-start
	p.Reached = cur >= target
	if direction == domain.LowerIsBetter {
		gained, needed = start-cur, start-target
		p.Reached = cur <= target
	}
	switch {
	case p.Reached:
		p.Percent = 100
	case needed > 0:
		p.Percent = round(math.Max(0, 100*gained/needed), 1)
	}
	return p
}

// consistency counts the completed sessions of the last 4 weeks ending today.
func consistency(sessions []domain.Session, today string, target float64) *GoalProgress {
	end, err := time.Parse(time.DateOnly, today)
	p := &GoalProgress{Target: target, Weeks: make([]int, ConsistencyWeeks)}
	if err != nil {
		return p
	}
	total := 0
	for _, s := range sessions {
		day, err := time.Parse(time.DateOnly, s.Date)
		if err != nil || s.Status != domain.SessionCompleted {
			continue
		}
		back := int(end.Sub(day).Hours() / 24) // 0 today … 27
		if back < 0 || back >= 7*ConsistencyWeeks {
			continue
		}
		p.Weeks[ConsistencyWeeks-1-back/7]++
		total++
	}
	perWeek := round(float64(total)/ConsistencyWeeks, 2)
	p.Current = &perWeek
	p.Reached = perWeek >= target
	switch {
	case p.Reached:
		p.Percent = 100
	case target > 0:
		p.Percent = round(100*perWeek/target, 1)
	}
	return p
}

// The parts of a trainee's intake.
const (
	IntakeProfile      = "profile"
	IntakeAvailability = "availability"
	IntakeEquipment    = "equipment"
	IntakeBenchmarks   = "benchmarks"
	IntakeGoals        = "goals"
)

// IntakeParts are the intake's parts in order.
var IntakeParts = []string{IntakeProfile, IntakeAvailability, IntakeEquipment, IntakeBenchmarks, IntakeGoals}

// IntakeFacts are what the onboarding status reads: the training profile
// (nil when none was put), and how many benchmarks and goals (of any
// status but abandoned) the trainee has.
type IntakeFacts struct {
	Profile    *domain.TrainingProfile
	Benchmarks int
	Goals      int
}

// OnboardingStatus says which parts of the intake are done.
type OnboardingStatus struct {
	Complete bool          `json:"complete"`
	Done     []string      `json:"done" jsonschema:"The intake parts done, of profile, availability, equipment, benchmarks, goals."`
	Missing  []MissingPart `json:"missing" jsonschema:"The parts still to do, each with what it needs."`
}

// MissingPart is one intake part not done and what would do it.
type MissingPart struct {
	Part  string `json:"part"`
	Needs string `json:"needs"`
}

// Onboarding is the onboarding status of the facts.
func Onboarding(f IntakeFacts) OnboardingStatus {
	p := f.Profile
	if p == nil {
		p = &domain.TrainingProfile{}
	}
	checks := []struct {
		part  string
		done  bool
		needs string
	}{
		{IntakeProfile, p.Experience != nil && p.SessionMinutes != nil, "the training profile's experience level and preferred session length (PUT /trainees/{id}/training-profile)"},
		{IntakeAvailability, len(p.Availability) > 0, "at least one weekday of availability in the training profile"},
		{IntakeEquipment, len(p.Equipment) > 0, "the equipment available, in the training profile"},
		{IntakeBenchmarks, f.Benchmarks > 0, "at least one benchmark (a lift's 1RM, a timed run, a max test)"},
		{IntakeGoals, f.Goals > 0, "at least one goal (POST /trainees/{id}/goals)"},
	}
	out := OnboardingStatus{Done: []string{}, Missing: []MissingPart{}}
	for _, c := range checks {
		if c.done {
			out.Done = append(out.Done, c.part)
		} else {
			out.Missing = append(out.Missing, MissingPart{c.part, c.needs})
		}
	}
	out.Complete = len(out.Missing) == 0
	return out
}

// GuidanceDays is how far ahead injury guidance reads planned sessions.
const GuidanceDays = 14

// ExerciseRef names an exercise.
type ExerciseRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// AtRisk is one planned exercise an injury concerns, with the swaps that
// spare the area.
type AtRisk struct {
	SessionID    string        `json:"sessionId"`
	Date         string        `json:"date"`
	Session      string        `json:"session" jsonschema:"The session's title."`
	ExerciseID   string        `json:"exerciseId"`
	Name         string        `json:"name"`
	Reason       string        `json:"reason" jsonschema:"loads_area: the catalogue says the exercise loads the injured area; affected: the injury names it."`
	Alternatives []ExerciseRef `json:"alternatives" jsonschema:"The catalogue's swaps for the exercise that do not load the area; empty when it has none."`
}

// Guidance is what an injury means for the trainee's plan.
type Guidance struct {
	Area            string   `json:"area"`
	From            string   `json:"from"`
	To              string   `json:"to"`
	PlannedSessions int      `json:"plannedSessions" jsonschema:"How many planned sessions fall from..to."`
	AtRisk          []AtRisk `json:"atRisk" jsonschema:"The planned exercises that load the area or that the injury names, by date."`
}

// Reasons a planned exercise is at risk.
const (
	RiskLoadsArea = "loads_area"
	RiskAffected  = "affected"
)

// Find looks an exercise up by id: Perform's catalogue or a studio's own.
type Find func(id string) (domain.Exercise, bool)

// InjuryGuidance lists the planned exercises from..to (inclusive local
// days) that load area, or that the injury names in affected, each with
// the alternatives find knows that do not load area. Only planned
// sessions count; an exercise find does not know is at risk only when
// named in affected (and then has no alternatives).
func InjuryGuidance(area string, affected []string, sessions []domain.Session, from, to string, find Find) Guidance {
	out := Guidance{Area: area, From: from, To: to, AtRisk: []AtRisk{}}
	planned := slices.Clone(sessions)
	planned = slices.DeleteFunc(planned, func(s domain.Session) bool {
		return s.Status != domain.SessionPlanned || s.Date < from || s.Date > to
	})
	slices.SortStableFunc(planned, func(a, b domain.Session) int {
		if a.Date != b.Date {
			return cmp.Compare(a.Date, b.Date)
		}
		return cmp.Compare(ptrOr(a.StartTime), ptrOr(b.StartTime))
	})
	out.PlannedSessions = len(planned)
	for _, s := range planned {
		for _, pe := range s.Exercises {
			ex, known := find(pe.ExerciseID)
			reason := ""
			switch {
			case known && slices.Contains(ex.Loads, area):
				reason = RiskLoadsArea
			case slices.Contains(affected, pe.ExerciseID):
				reason = RiskAffected
			default:
				continue
			}
			name := pe.Name
			if name == "" {
				name = ex.Name
			}
			r := AtRisk{SessionID: s.ID, Date: s.Date, Session: s.Title, ExerciseID: pe.ExerciseID, Name: name, Reason: reason, Alternatives: []ExerciseRef{}}
			for _, id := range ex.Alternatives {
				alt, ok := find(id)
				if ok && !slices.Contains(alt.Loads, area) && !slices.Contains(affected, id) {
					r.Alternatives = append(r.Alternatives, ExerciseRef{alt.ID, alt.Name})
				}
			}
			out.AtRisk = append(out.AtRisk, r)
		}
	}
	return out
}

func ptrOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

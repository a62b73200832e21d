package training

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/text"
)

// Triage reasons and their severity. A trainee's score is the sum of its
// reasons' severities; the most urgent (highest score) come first.
const (
	ReasonLowReadiness    = "low_readiness"     // readiness ≤ 4 three days running, the last today or yesterday
	ReasonActiveInjury    = "active_injury"     // an injury in status active
	ReasonPlanEnded       = "plan_ended"        // the plan's last day has passed with no renewal
	ReasonNoRecentSession = "no_recent_session" // a program is active and no session was completed in 10 days
	ReasonMissedSessions  = "missed_sessions"   // 2 or more sessions missed this week
	ReasonPlanEnding      = "plan_ending"       // the plan's last day is within 7 days
	ReasonWeightOffGoal   = "weight_off_goal"   // 4 weekly averages, each further from the goal weight
	ReasonOverdueTasks    = "overdue_tasks"     // open tasks about the trainee past their due time
	ReasonFormPastDue     = "form_past_due"     // pending forms past their due time
	ReasonFeedback        = "feedback"          // feedback to the studio in the last 7 days
)

// Severities: how urgent each reason is, out of 100. Wellbeing first
// (readiness, injury), then the plan lapsing and training stopping.
var Severities = map[string]int{
	ReasonLowReadiness:    90,
	ReasonActiveInjury:    80,
	ReasonPlanEnded:       75,
	ReasonNoRecentSession: 60,
	ReasonMissedSessions:  55,
	ReasonPlanEnding:      50,
	ReasonWeightOffGoal:   40,
	ReasonOverdueTasks:    35,
	ReasonFormPastDue:     30,
	ReasonFeedback:        25,
}

// Reasons lists the reason codes, most severe first.
var Reasons = []string{ReasonLowReadiness, ReasonActiveInjury, ReasonPlanEnded, ReasonNoRecentSession,
	ReasonMissedSessions, ReasonPlanEnding, ReasonWeightOffGoal, ReasonOverdueTasks, ReasonFormPastDue, ReasonFeedback}

// Rule thresholds.
const (
	planEndingDays  = 7
	noSessionDays   = 10
	missedThreshold = 2
	weightWeeks     = 4 // weekly averages compared: 3 moves away
)

// Reason is one reason a trainee needs a coach, with its numbers.
type Reason struct {
	Code     string         `json:"code"`
	Severity int            `json:"severity"`
	Message  string         `json:"message"`
	Numbers  map[string]any `json:"numbers"`
}

// Attention is one trainee who needs a coach.
type Attention struct {
	TraineeID string   `json:"traineeId"`
	FirstName string   `json:"firstName"`
	LastName  string   `json:"lastName"`
	CoachIDs  []string `json:"coachIds"`
	Score     int      `json:"score"`
	Reasons   []Reason `json:"reasons"` // most severe first
}

// Triage turns roster facts into the trainees who need attention, most
// urgent first (score, then the most severe reason, then name and id).
// today is the local day, zone the studio's (weigh-ins are instants);
// reason, when not "", keeps only trainees with that reason.
func Triage(facts []domain.RosterFacts, today string, zone *time.Location, reason string) []Attention {
	if zone == nil {
		zone = time.UTC
	}
	out := []Attention{}
	for _, f := range facts {
		rs := ReasonsFor(f, today, zone)
		if len(rs) == 0 {
			continue
		}
		if reason != "" && !slices.ContainsFunc(rs, func(r Reason) bool { return r.Code == reason }) {
			continue
		}
		a := Attention{TraineeID: f.TraineeID, FirstName: f.FirstName, LastName: f.LastName, CoachIDs: f.CoachIDs, Reasons: rs}
		if a.CoachIDs == nil {
			a.CoachIDs = []string{}
		}
		for _, r := range rs {
			a.Score += r.Severity
		}
		out = append(out, a)
	}
	// The sort moves small keys built once, each with its trainee's
	// index, not the Attentions; names are compared one by one, with no
	// string built a comparison (the sort makes n·log n of them).
	type key struct{ score, top, i int }
	keys := make([]key, len(out))
	for i, a := range out {
		keys[i] = key{a.Score, a.Reasons[0].Severity, i}
	}
	slices.SortFunc(keys, func(x, y key) int {
		if x.score != y.score {
			return y.score - x.score
		}
		if x.top != y.top {
			return y.top - x.top
		}
		a, b := &out[x.i], &out[y.i]
		return cmp.Or(strings.Compare(a.LastName, b.LastName), strings.Compare(a.FirstName, b.FirstName), strings.Compare(a.TraineeID, b.TraineeID))
	})
	sorted := make([]Attention, len(out))
	for i, k := range keys {
		sorted[i] = out[k.i]
	}
	return sorted
}

// ReasonsFor is one trainee's reasons, most severe first.
func ReasonsFor(f domain.RosterFacts, today string, zone *time.Location) []Reason {
	var rs []Reason
	add := func(code string, numbers map[string]any, format string, args ...any) {
		rs = append(rs, Reason{Code: code, Severity: Severities[code], Message: fmt.Sprintf(format, args...), Numbers: numbers})
	}
	if run := readinessRun(f.Readiness, today); run != nil {
		var vals []string
		for _, v := range run {
			vals = append(vals, fmt.Sprintf("%s %g", v.Day, v.Value))
		}
		add(ReasonLowReadiness, map[string]any{"days": len(run), "readiness": run},
			"Readiness %d or lower %d days running: %s.", lowReadiness, len(run), strings.Join(vals, ", "))
	}
	for _, i := range f.ActiveInjuries {
		add(ReasonActiveInjury, map[string]any{"injuryId": i.ID, "area": i.Area, "severity": i.Severity, "onsetOn": i.OnsetOn, "days": DayDiff(i.OnsetOn, today)},
			"Active injury: %s (%s), severity %d/5, since %s (%d days).", i.Area, i.Side, i.Severity, i.OnsetOn, DayDiff(i.OnsetOn, today))
	}
	if f.PlanEndsOn != nil {
		left := DayDiff(today, *f.PlanEndsOn)
		switch {
		case *f.PlanEndsOn < today:
			add(ReasonPlanEnded, map[string]any{"endsOn": *f.PlanEndsOn, "daysAgo": -left},
				"The plan ended on %s (%d days ago) and was not renewed.", *f.PlanEndsOn, -left)
		case left <= planEndingDays:
			add(ReasonPlanEnding, map[string]any{"endsOn": *f.PlanEndsOn, "daysLeft": left},
				"The plan ends on %s (in %d days) with no renewal yet.", *f.PlanEndsOn, left)
		}
	}
	if f.ActiveProgram {
		switch {
		case f.LastCompletedOn == nil:
			add(ReasonNoRecentSession, map[string]any{"lastCompletedOn": nil},
				"A program is active and no session has been completed yet.")
		case DayDiff(*f.LastCompletedOn, today) >= noSessionDays:
			d := DayDiff(*f.LastCompletedOn, today)
			add(ReasonNoRecentSession, map[string]any{"lastCompletedOn": *f.LastCompletedOn, "days": d},
				"A program is active and the last completed session was on %s, %d days ago.", *f.LastCompletedOn, d)
		}
	}
	if f.MissedThisWeek >= missedThreshold {
		add(ReasonMissedSessions, map[string]any{"missed": f.MissedThisWeek},
			"%d sessions missed this week.", f.MissedThisWeek)
	}
	if avgs, ok := weightAway(f.WeightWeeks, f.WeightGoalKg); ok {
		var vals []string
		for _, v := range avgs {
			vals = append(vals, fmtNum(v))
		}
		add(ReasonWeightOffGoal, map[string]any{"goalKg": *f.WeightGoalKg, "weeklyAveragesKg": avgs},
			"Weight moved away from the goal of %s kg for 3 weeks: weekly averages %s kg.", fmtNum(*f.WeightGoalKg), strings.Join(vals, ", "))
	}
	if f.OverdueTasks > 0 {
		add(ReasonOverdueTasks, map[string]any{"overdue": f.OverdueTasks},
			"%d overdue %s.", f.OverdueTasks, plural(f.OverdueTasks, "task", "tasks"))
	}
	if f.FormsPastDue > 0 {
		add(ReasonFormPastDue, map[string]any{"pastDue": f.FormsPastDue},
			"%d %s past due.", f.FormsPastDue, plural(f.FormsPastDue, "form", "forms"))
	}
	if n := len(f.Feedback); n > 0 {
		latest := f.Feedback[0]
		rating := ""
		if latest.Rating != nil {
			rating = fmt.Sprintf(" (rated %d/5)", *latest.Rating)
		}
		add(ReasonFeedback, map[string]any{"count": n, "latestId": latest.ID, "latestOn": localDay(latest.CreatedAt, zone), "rating": latest.Rating},
			"%d %s to the studio in the last 7 days; the latest on %s%s: %q.", n, plural(n, "feedback", "feedbacks"), localDay(latest.CreatedAt, zone), rating, text.Truncate(latest.Text, feedbackQuote))
	}
	slices.SortStableFunc(rs, func(a, b Reason) int { return b.Severity - a.Severity })
	return rs
}

// feedbackQuote is how much of a feedback's text (bytes) the reason quotes.
const feedbackQuote = 200

// readinessRun is the three latest readiness values, oldest first, when
// they are on consecutive days, each lowReadiness or under, and the last
// is today or yesterday (an old run is not news); nil otherwise.
func readinessRun(newestFirst []domain.DayValue, today string) []domain.DayValue {
	if len(newestFirst) < lowRun {
		return nil
	}
	run := slices.Clone(newestFirst[:lowRun])
	if d := DayDiff(run[0].Day, today); d < 0 || d > 1 {
		return nil
	}
	for i, v := range run {
		if v.Value > lowReadiness || (i > 0 && DayDiff(v.Day, run[i-1].Day) != 1) {
			return nil
		}
	}
	slices.Reverse(run)
	return run
}

// weightAway reads the four weekly sums of the last 28 days (days
// today−27…−21, −20…−14, −13…−7, −6…today; each week needs a weigh-in)
// and reports their averages, oldest first, when each is further from
// goal than the one before.
func weightAway(weeks [weightWeeks]domain.WeekWeight, goal *float64) ([]float64, bool) {
	if goal == nil {
		return nil, false
	}
	avgs := make([]float64, weightWeeks)
	for i, w := range weeks {
		if w.Count == 0 {
			return nil, false
		}
		avgs[i] = hundredths(w.SumKg / float64(w.Count))
		if i > 0 && math.Abs(avgs[i]-*goal) <= math.Abs(avgs[i-1]-*goal) {
			return nil, false
		}
	}
	return avgs, true
}

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
// reason, when set, keeps only trainees with that reason.
func Triage(facts []domain.RosterFacts, today string, zone *time.Location, reason string) []Attention {
	return TriagePage(facts, today, zone, reason, 0, len(facts)).Items
}

// TriageResult is one page of the triage with what is true of all of it:
// how many need attention and how many of them have each reason.
type TriageResult struct {
	Items  []Attention
	Total  int
	Counts map[string]int // reason code → trainees with it
}

// TriagePage is the limit trainees from offset of Triage's list, and the
// list's total and reason counts. Every trainee's reasons are weighed, but
// only the page's are explained (their messages and numbers): at
// thousands of trainees that is most of the work.
func TriagePage(facts []domain.RosterFacts, today string, zone *time.Location, reason string, offset, limit int) TriageResult {
	return TriagePageWith(facts, nil, today, zone, reason, offset, limit)
}

// TriagePageWith is TriagePage with more reasons from beyond the facts
// (what other areas add), by trainee id, explained.
func TriagePageWith(facts []domain.RosterFacts, more map[string][]Reason, today string, zone *time.Location, reason string, offset, limit int) TriageResult {
	if zone == nil {
		zone = time.UTC
	}
	// The sort moves small keys, each with its trainee's index, not the
	// trainees; names are compared one by one, with no string built a
	// comparison (the sort makes n·log n of them).
	type key struct{ score, top, i int }
	var keys []key
	counts := map[string]int{}
	var buf []Reason
	for i := range facts {
		buf = withMore(reasonsFor(facts[i], today, zone, false, buf[:0]), more[facts[i].TraineeID])
		if len(buf) == 0 || reason != "" && !slices.ContainsFunc(buf, func(r Reason) bool { return r.Code == reason }) {
			continue
		}
		k := key{top: buf[0].Severity, i: i}
		for _, r := range buf {
			k.score += r.Severity
			counts[r.Code]++
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y key) int {
		if x.score != y.score {
			return y.score - x.score
		}
		if x.top != y.top {
			return y.top - x.top
		}
		a, b := &facts[x.i], &facts[y.i]
		return cmp.Or(strings.Compare(a.LastName, b.LastName), strings.Compare(a.FirstName, b.FirstName), strings.Compare(a.TraineeID, b.TraineeID))
	})
	start := min(max(offset, 0), len(keys))
	page := keys[start:min(start+max(limit, 0), len(keys))]
	items := make([]Attention, len(page))
	for j, k := range page {
		f := &facts[k.i]
		coaches := f.CoachIDs
		if coaches == nil {
			coaches = []string{}
		}
		items[j] = Attention{TraineeID: f.TraineeID, FirstName: f.FirstName, LastName: f.LastName, CoachIDs: coaches,
			Score: k.score, Reasons: withMore(reasonsFor(*f, today, zone, true, nil), more[f.TraineeID])}
	}
	return TriageResult{Items: items, Total: len(keys), Counts: counts}
}

// withMore is rs with more among them, most severe first.
func withMore(rs, more []Reason) []Reason {
	if len(more) == 0 {
		return rs
	}
	rs = append(rs, more...)
	slices.SortStableFunc(rs, func(a, b Reason) int { return b.Severity - a.Severity })
	return rs
}

// ReasonsFor is one trainee's reasons, most severe first.
func ReasonsFor(f domain.RosterFacts, today string, zone *time.Location) []Reason {
	return reasonsFor(f, today, zone, true, nil)
}

// reasonsFor is ReasonsFor; without explain each reason has its code and
// severity only (no message, no numbers: what ranking and counting need,
// without building what only a page shows), appended to into.
func reasonsFor(f domain.RosterFacts, today string, zone *time.Location, explain bool, into []Reason) []Reason {
	rs := into
	add := func(code string, why func() (map[string]any, string)) {
		r := Reason{Code: code, Severity: Severities[code]}
		if explain {
			r.Numbers, r.Message = why()
		}
		rs = append(rs, r)
	}
	if run := readinessRun(f.Readiness, today); run != nil {
		add(ReasonLowReadiness, func() (map[string]any, string) {
			var vals []string
			for _, v := range run {
				vals = append(vals, fmt.Sprintf("%s %g", v.Day, v.Value))
			}
			return map[string]any{"days": len(run), "readiness": run},
				fmt.Sprintf("Readiness %d or lower %d days running: %s.", lowReadiness, len(run), strings.Join(vals, ", "))
		})
	}
	for _, i := range f.ActiveInjuries {
		add(ReasonActiveInjury, func() (map[string]any, string) {
			days := DayDiff(i.OnsetOn, today)
			return map[string]any{"injuryId": i.ID, "area": i.Area, "side": i.Side, "severity": i.Severity, "onsetOn": i.OnsetOn, "days": days},
				fmt.Sprintf("Active injury: %s (%s), severity %d/5, since %s (%d days).", i.Area, i.Side, i.Severity, i.OnsetOn, days)
		})
	}
	if f.PlanEndsOn != nil {
		ends := *f.PlanEndsOn
		left := DayDiff(today, ends)
		switch {
		case ends < today:
			add(ReasonPlanEnded, func() (map[string]any, string) {
				return map[string]any{"endsOn": ends, "daysAgo": -left},
					fmt.Sprintf("The plan ended on %s (%d days ago) and was not renewed.", ends, -left)
			})
		case left <= planEndingDays:
			add(ReasonPlanEnding, func() (map[string]any, string) {
				return map[string]any{"endsOn": ends, "daysLeft": left},
					fmt.Sprintf("The plan ends on %s (in %d days) with no renewal yet.", ends, left)
			})
		}
	}
	if f.ActiveProgram {
		switch {
		case f.LastCompletedOn == nil:
			add(ReasonNoRecentSession, func() (map[string]any, string) {
				return map[string]any{"lastCompletedOn": nil}, "A program is active and no session has been completed yet."
			})
		case DayDiff(*f.LastCompletedOn, today) >= noSessionDays:
			last := *f.LastCompletedOn
			add(ReasonNoRecentSession, func() (map[string]any, string) {
				d := DayDiff(last, today)
				return map[string]any{"lastCompletedOn": last, "days": d},
					fmt.Sprintf("A program is active and the last completed session was on %s, %d days ago.", last, d)
			})
		}
	}
	if f.MissedThisWeek >= missedThreshold {
		add(ReasonMissedSessions, func() (map[string]any, string) {
			return map[string]any{"missed": f.MissedThisWeek}, fmt.Sprintf("%d sessions missed this week.", f.MissedThisWeek)
		})
	}
	if avgs, ok := weightAway(f.WeightWeeks, f.WeightGoalKg); ok {
		add(ReasonWeightOffGoal, func() (map[string]any, string) {
			var vals []string
			for _, v := range avgs {
				vals = append(vals, fmtNum(v))
			}
			return map[string]any{"goalKg": *f.WeightGoalKg, "weeklyAveragesKg": avgs},
				fmt.Sprintf("Weight moved away from the goal of %s kg for 3 weeks: weekly averages %s kg.", fmtNum(*f.WeightGoalKg), strings.Join(vals, ", "))
		})
	}
	if f.OverdueTasks > 0 {
		add(ReasonOverdueTasks, func() (map[string]any, string) {
			return map[string]any{"overdue": f.OverdueTasks}, fmt.Sprintf("%d overdue %s.", f.OverdueTasks, plural(f.OverdueTasks, "task", "tasks"))
		})
	}
	if f.FormsPastDue > 0 {
		add(ReasonFormPastDue, func() (map[string]any, string) {
			return map[string]any{"pastDue": f.FormsPastDue}, fmt.Sprintf("%d %s past due.", f.FormsPastDue, plural(f.FormsPastDue, "form", "forms"))
		})
	}
	if n := len(f.Feedback); n > 0 {
		add(ReasonFeedback, func() (map[string]any, string) {
			latest := f.Feedback[0]
			rating := ""
			if latest.Rating != nil {
				rating = fmt.Sprintf(" (rated %d/5)", *latest.Rating)
			}
			return map[string]any{"count": n, "latestId": latest.ID, "latestOn": localDay(latest.CreatedAt, zone), "rating": latest.Rating},
				fmt.Sprintf("%d %s to the studio in the last 7 days; the latest on %s%s: %q.", n, plural(n, "feedback", "feedbacks"), localDay(latest.CreatedAt, zone), rating, text.Truncate(latest.Text, feedbackQuote))
		})
	}
	slices.SortStableFunc(rs[len(into):], func(a, b Reason) int { return b.Severity - a.Severity })
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

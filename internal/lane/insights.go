package lane

import (
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// The read models: computed here from the store's rows by internal/training,
// deterministic, no model call.

// insightRoutes: the read models (overview, debrief, insights, roster triage).
func (l *Lane) insightRoutes() {
	add(l, "GET", "/trainees/needs-attention", "The studio's active trainees who need a coach now, most urgent first, each with its reasons and the numbers behind them.", l.needsAttention, tool("needs_attention"))
}

type needsAttentionQuery struct {
	CoachID string `json:"coachId,omitempty" jsonschema:"Only trainees of this coach (an id from list_coaches)." lane:"maxLength=100" ref:"coach"`
	Reason  string `json:"reason,omitempty" jsonschema:"Only trainees with this reason: low_readiness (readiness 4 or lower 3 days running, the last today or yesterday), active_injury, plan_ended (the plan's last day passed with no renewal), no_recent_session (a program is active and no session was completed in 10 days), missed_sessions (2 or more missed this week), plan_ending (the plan ends within 7 days), weight_off_goal (4 weekly weight averages each further from the goal weight), overdue_tasks, form_past_due." lane:"enum=low_readiness|active_injury|plan_ended|no_recent_session|missed_sessions|plan_ending|weight_off_goal|overdue_tasks|form_past_due"`
	pageQuery
}

// attentionList is a page of the triage with a sentence over all of it.
type attentionList struct {
	Summary    string               `json:"summary" jsonschema:"How many need attention, and for which reasons, over the whole list (not only this page)."`
	Items      []training.Attention `json:"items" jsonschema:"Most urgent first: score is the sum of the reasons' severities (low_readiness 90, active_injury 80, plan_ended 75, no_recent_session 60, missed_sessions 55, plan_ending 50, weight_off_goal 40, overdue_tasks 35, form_past_due 30)."`
	Total      int                  `json:"total"`
	NextOffset *int                 `json:"nextOffset" jsonschema:"The offset of the next page; null on the last page."`
}

func (l *Lane) needsAttention(c *call, q *needsAttentionQuery) (attentionList, error) {
	today := c.localToday()
	facts, err := c.studio().RosterFacts(c.ctx, store.RosterQuery{
		Today: today, WeekStart: training.WeekStart(today), Now: c.l.now(), CoachID: q.CoachID,
	})
	if err != nil {
		return attentionList{}, err
	}
	all := training.Triage(facts, today, c.zone(), q.Reason)
	page := pageSlice(all, q.page())
	return attentionList{Summary: triageSummary(all, len(facts)), Items: page.Items, Total: page.Total, NextOffset: page.NextOffset}, nil
}

func triageSummary(all []training.Attention, roster int) string {
	if len(all) == 0 {
		return fmt.Sprintf("None of the %d active trainees asked about needs attention now.", roster)
	}
	counts := map[string]int{}
	for _, a := range all {
		for _, r := range a.Reasons {
			counts[r.Code]++
		}
	}
	var parts []string
	for _, code := range training.Reasons {
		if n := counts[code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", code, n))
		}
	}
	return fmt.Sprintf("%d of %d active trainees need attention (%s).", len(all), roster, strings.Join(parts, ", "))
}

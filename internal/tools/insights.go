package tools

// insightTools are the coach tools of the training memory's insight area:
// the read models, computed from the data (no model call), summary first.
func insightTools() []spec {
	return []spec{
		{name: "get_trainee_overview", title: "Trainee overview", readOnly: true, route: "GET /trainees/{id}/overview", pathArg: "traineeId",
			description: "One trainee at a glance: program week, 14 days of sessions, check-ins, injuries, goals."},
		{name: "get_weekly_debrief", title: "Weekly debrief", readOnly: true, route: "GET /trainees/{id}/debrief", pathArg: "traineeId",
			description: "The studio's week: planned vs done by day, volume and time vs last week, PRs, check-ins, flags, next week.",
			args:        map[string]string{"week": "this, last, next, a day in it, or YYYY-Www; default this week."}},
		{name: "get_coaching_insights", title: "Coaching insights", readOnly: true, route: "GET /trainees/{id}/insights", pathArg: "traineeId",
			description: "Trends with numbers: consistency, fatigue (7 days vs 21 before), progress (benchmarks, stalled lifts)."},
		{name: "needs_attention", title: "Trainees who need attention", readOnly: true, route: "GET /trainees/needs-attention",
			description: "Who needs a coach now, most urgent first, with reasons and numbers.",
			args: map[string]string{
				"coachId": coachScopeArg,
				"reason":  "",
				"tag":     "From list_tags; others under fine.",
			}},
		{name: "roster", title: "Ask about the whole roster", readOnly: true, route: "GET /roster",
			description: "One question about all your trainees, in one call.",
			args: map[string]string{
				"question": "low_readiness ≤ 4; soreness ≥ 6 of 10; injuries: active or recovering.",
				"from":     "Default: this week's first day; today for plans; else 30 days back.",
				"to":       "Default today; 30 days ahead for plans.",
				"coachId":  coachScopeArg,
			}},
	}
}

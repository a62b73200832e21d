package tools

// insightTools are the coach tools of the training memory's insight area:
// the read models, computed from the data (no model call), summary first.
func insightTools() []spec {
	return []spec{
		{name: "get_trainee_overview", title: "Trainee overview", readOnly: true, route: "GET /trainees/{id}/overview", pathArg: "traineeId",
			description: "A trainee's training at a glance, summary first: the active program's week and phase, the last 14 days of sessions (metadata, no sets), completed against due, the latest 3 check-ins, active injuries, active goals with progress. " +
				"Read summary first; drill down with list_trainee_sessions or get_session for sets, get_weekly_debrief for a week, get_coaching_insights for trends."},
		{name: "get_weekly_debrief", title: "Weekly debrief", readOnly: true, route: "GET /trainees/{id}/debrief", pathArg: "traineeId",
			description: "One ISO week of a trainee, summary first: planned against completed and missed, volume and minutes against the week before, PRs, check-in averages, flags (missed sessions, low readiness run, active injury), next week's planned sessions.",
			args:        map[string]string{"week": "YYYY-Www, e.g. 2026-W48; default this week."}},
		{name: "get_coaching_insights", title: "Coaching insights", readOnly: true, route: "GET /trainees/{id}/insights", pathArg: "traineeId",
			description: "Trends with the numbers behind them, summary first: consistency (4-week completion, week and session streaks), fatigue (readiness, soreness, session RPE: last 7 days against the 21 before), progress (benchmark changes over 4 weeks, lifts whose best e1RM has not improved in 3 weeks)."},
		{name: "needs_attention", title: "Trainees who need attention", readOnly: true, route: "GET /trainees/needs-attention",
			description: "Who needs a coach now: active trainees, most urgent first, each with its reasons and their numbers. Read summary first; follow up with get_trainee_overview.",
			args: map[string]string{
				"coachId": "From list_coaches: only that coach's trainees.",
				"reason":  "",
			}},
	}
}

package tools

// insightTools are the coach tools of the training memory's insight area:
// the read models, computed from the data (no model call), summary first.
func insightTools() []spec {
	return []spec{
		{name: "needs_attention", title: "Trainees who need attention", readOnly: true, route: "GET /trainees/needs-attention",
			description: "The roster triage: the studio's active trainees who need a coach now, most urgent first, each with its reasons and the numbers behind them. " +
				"Start here for \"who should I look at?\". Answers {summary, items, total, nextOffset}; read summary first. " +
				"For one trainee's picture follow with get_trainee_overview.",
			args: map[string]string{
				"coachId": "From list_coaches: only that coach's trainees.",
				"reason":  "",
			}},
	}
}

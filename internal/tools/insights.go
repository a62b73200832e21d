package tools

// insightTools are the coach tools of the training memory's insight area:
// the read models, computed from the data (no model call), summary first.
func insightTools() []spec {
	return []spec{
		{name: "needs_attention", title: "Trainees who need attention", readOnly: true, route: "GET /trainees/needs-attention",
			description: "Who needs a coach now: active trainees, most urgent first, each with its reasons and their numbers. Read summary first; follow up with get_trainee_overview.",
			args: map[string]string{
				"coachId": "From list_coaches: only that coach's trainees.",
				"reason":  "",
			}},
	}
}

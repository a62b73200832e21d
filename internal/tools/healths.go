package tools

// healthTools are the coach tools of the training memory's health area.
func healthTools() []spec {
	return []spec{
		{name: "list_trainee_checkins", title: "List a trainee's check-ins", readOnly: true, route: "GET /trainees/{id}/check-ins", pathArg: "traineeId",
			description: "A trainee's daily check-ins, newest day first (one per day in the studio's time zone): readiness and soreness 1–10 with sore areas, sleep hours and quality, mood and stress 1–5, a note. Without from/to: the last 366 days.",
			args: map[string]string{
				"from": "First day, YYYY-MM-DD.",
				"to":   "Last day, YYYY-MM-DD, at most 366 days after from; omit for today.",
			}},
	}
}

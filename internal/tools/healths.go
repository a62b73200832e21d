package tools

// healthTools are the coach tools of the training memory's health area.
func healthTools() []spec {
	return []spec{
		{name: "list_trainee_checkins", title: "List a trainee's check-ins", readOnly: true, route: "GET /trainees/{id}/check-ins", pathArg: "traineeId",
			description: "A trainee's daily check-ins (one per local day), newest first: readiness and soreness 1–10 with sore areas, sleep hours and quality, mood and stress 1–5, a note. Default: the last 366 days.",
			args: map[string]string{
				"from": "",
				"to":   "Default today; at most 366 days after from.",
			}},
	}
}

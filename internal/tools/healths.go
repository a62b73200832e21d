package tools

// healthTools are the coach tools of the training memory's health area.
func healthTools() []spec {
	return []spec{
		{name: "list_trainee_checkins", title: "List a trainee's check-ins", readOnly: true, route: "GET /trainees/{id}/check-ins", pathArg: "traineeId",
			description: "A trainee's daily check-ins, newest first: readiness, soreness and areas, sleep, mood, stress, note. Default: the last 366 days.",
			args: map[string]string{
				"from": "",
				"to":   "Default today; at most 366 days after from.",
			}},
	}
}

package tools

// healthTools are the coach tools of the training memory's health area.
func healthTools() []spec {
	return []spec{
		{name: "list_trainee_checkins", title: "List a trainee's check-ins", readOnly: true, route: "GET /trainees/{id}/check-ins", pathArg: "traineeId",
			description: "List a trainee's daily check-ins, newest day first: readiness 1–10, soreness 1–10 with the sore areas, sleep hours and quality 1–5, mood 1–5, stress 1–5 and a note. " +
				"A trainee has at most one check-in per day (the day in the studio's time zone). " +
				"Without from and to it reads the last 366 days; use them to look at a week or a month. " +
				"Answers {items, total, nextOffset}.",
			args: map[string]string{
				"from": "First day to include, YYYY-MM-DD (the studio's time zone). Omit for 365 days before to.",
				"to":   "Last day to include, YYYY-MM-DD; at most 366 days after from. Omit for today.",
			}},
	}
}

package tools

// sessionTools are the coach tools of the training memory's session area:
// three reads (summary first, then one session's detail, then benchmarks)
// and two soft writes that reach no trainee.
func sessionTools() []spec {
	return []spec{
		{name: "list_trainee_sessions", title: "List a trainee's workouts", readOnly: true, route: "GET /trainees/{id}/sessions", pathArg: "traineeId",
			description: "A trainee's workout sessions, newest first: summary rows (date, sport, title, status, duration, RPE, totals) without sets; " +
				"get_session gives one session set by set. For a first look use get_trainee_overview.",
			args: map[string]string{
				"from":   "",
				"to":     "At most 366 days after from.",
				"status": "",
			}},

		{name: "get_session", title: "Get a workout session", readOnly: true, route: "GET /sessions/{id}", pathArg: "sessionId",
			description: "One workout session in full: each exercise's target and the sets done, and totals. Drill down here after list_trainee_sessions.",
			args: map[string]string{
				"sessionId": "From list_trainee_sessions.",
			}},

		{name: "get_trainee_benchmarks", title: "Get a trainee's benchmarks", readOnly: true, route: "GET /trainees/{id}/benchmarks", pathArg: "traineeId",
			description: "A trainee's benchmarks (a lift's 1RM, a 5 km time, max pull-ups…): unit, direction, best, latest, change over 4 and 12 weeks, recent values. " +
				"Logged sets add lift PRs by themselves."},

		{name: "log_workout", title: "Log a workout", route: "POST /trainees/{id}/workouts", pathArg: "traineeId",
			description: "Record a workout a trainee did with its sets: a new completed session, or a planned one (sessionId) completed. " +
				"The same date, sport and duration is one workout: a second log answers alreadyLogged true. " +
				"A set beating a lift's best estimated 1RM is recorded as a PR (prs). Not notified. Answers {session, alreadyLogged, prs}.",
			args: map[string]string{
				"sessionId":   "A planned session to complete, from list_trainee_sessions.",
				"date":        "Local day, not after today; default the planned date, else today.",
				"sport":       "strength, running, cycling, mobility…; required without sessionId.",
				"durationMin": "Minutes.",
				"exercises":   "In order, each with its sets.",
			}},

		{name: "create_planned_session", title: "Plan a session", route: "POST /trainees/{id}/sessions", pathArg: "traineeId",
			description: "Plan a session with exercise targets outside any program. Not notified; complete it later with log_workout. Answers the session.",
			args: map[string]string{
				"date":      "Local day.",
				"sport":     "strength, running, cycling, mobility…",
				"exercises": "In order, with targets.",
			}},
	}
}

package tools

// sessionTools are the coach tools of the training memory's session area:
// three reads (summary first, then one session's detail, then benchmarks)
// and three soft writes that reach no trainee.
func sessionTools() []spec {
	return []spec{
		{name: "list_trainee_sessions", title: "List a trainee's workouts", readOnly: true, route: "GET /trainees/{id}/sessions", pathArg: "traineeId",
			description: "A trainee's sessions, newest first, as summary rows without sets (get_session has them). For a first look use get_trainee_overview.",
			args: map[string]string{
				"from":   "",
				"to":     "Default today (what was done); at most 366 days after from.",
				"status": "planned lists what is ahead, soonest first.",
			}},

		{name: "get_session", title: "Get a workout session", readOnly: true, route: "GET /sessions/{id}", pathArg: "sessionId",
			description: "One workout session in full: each exercise's target and the sets done, and totals.",
			args: map[string]string{
				"sessionId": "From list_trainee_sessions.",
			}},

		{name: "get_trainee_benchmarks", title: "Get a trainee's benchmarks", readOnly: true, route: "GET /trainees/{id}/benchmarks", pathArg: "traineeId",
			description: "A trainee's benchmarks (1RMs, times, max reps): best, latest, change over 4 and 12 weeks, recent values."},

		{name: "log_workout", title: "Log a workout", route: "POST /trainees/{id}/workouts", pathArg: "traineeId",
			description: "Record a workout with its sets, new or completing a planned one (sessionId); the same date, sport and duration is one workout (alreadyLogged). " +
				"Sets beating an estimated 1RM come back as prs. Not notified.",
			args: map[string]string{
				"sessionId":   "A planned session to complete, from list_trainee_sessions.",
				"date":        "Local day, not after today; default the planned date, else today.",
				"sport":       "strength, running, cycling, mobility…; required without sessionId.",
				"durationMin": "Minutes.",
				"exercises":   "In order, each with its sets.",
				"title":       "Default: the planned title, else the sport.",
				"startTime":   "HH:MM, local.",
				"notes":       "On the workout.",
				"feedback":    "The trainee's words on it.",
			}},

		{name: "create_planned_session", title: "Plan a session", route: "POST /trainees/{id}/sessions", pathArg: "traineeId",
			description: "Plan a session with exercise targets, outside any program; complete it later with log_workout. Not notified.",
			args: map[string]string{
				"date":      "Local day.",
				"sport":     "strength, running, cycling, mobility…",
				"exercises": "In order, with targets.",
				"title":     "Default: the sport.",
				"startTime": "HH:MM, local.",
				"notes":     "For the trainee.",
			}},

		{name: "modify_session", title: "Change a planned session", route: "POST /sessions/{id}/modify", pathArg: "sessionId",
			description: "Change a planned session: reduce_volume (percent), raise_intensity (loadPercent, rpeIncrease), swap_exercise (exerciseId, replacementId) or reschedule (date). Not notified.",
			args: map[string]string{
				"sessionId":     "A planned one, from list_trainee_sessions.",
				"operation":     "",
				"percent":       "reduce_volume: percent off.",
				"loadPercent":   "raise_intensity: load targets up by this percent.",
				"rpeIncrease":   "raise_intensity: RPE targets up by this.",
				"exerciseId":    "swap_exercise: the one to replace, from get_session.",
				"replacementId": "swap_exercise: from search_exercises; default the first alternative.",
				"date":          "reschedule: the new local day.",
				"startTime":     "reschedule: HH:MM; default kept.",
			}},
	}
}

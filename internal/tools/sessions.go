package tools

// sessionTools are the coach tools of the training memory's session area:
// three reads (summary first, then one session's detail, then benchmarks)
// and two soft writes that reach no trainee.
func sessionTools() []spec {
	return []spec{
		{name: "list_trainee_sessions", title: "List a trainee's workouts", readOnly: true, route: "GET /trainees/{id}/sessions", pathArg: "traineeId",
			description: "List a trainee's workout sessions, newest date first: planned, completed, skipped and missed, from programs, the coach or the trainee. " +
				"Each row is a summary (date, start time, sport, title, status, source, duration, session RPE, totals: volumeKg = Σ reps × kg, sets, reps, seconds, metres) with no exercises or sets; " +
				"to see what was done set by set, call get_session with a row's id. Answers {items, total, nextOffset}.",
			args: map[string]string{
				"from":   "Only sessions on or after this date, YYYY-MM-DD (the studio's local day).",
				"to":     "Only sessions on or before this date, YYYY-MM-DD; from and to may be at most 366 days apart.",
				"status": "Only sessions with this status: planned, completed, skipped or missed. Omit for all.",
			}},

		{name: "get_session", title: "Get a workout session", readOnly: true, route: "GET /sessions/{id}", pathArg: "sessionId",
			description: "Read one workout session in full: its exercises in order, each with its target (sets × reps, load kg or %1RM, RPE/RIR, rest, time, distance) and the sets done (reps, loadKg, RIR/RPE, seconds, metres, done), and its totals. " +
				"Use it after list_trainee_sessions to drill into one session.",
			args: map[string]string{
				"sessionId": "The session's id (ses_…), from list_trainee_sessions.",
			}},

		{name: "get_trainee_benchmarks", title: "Get a trainee's benchmarks", readOnly: true, route: "GET /trainees/{id}/benchmarks", pathArg: "traineeId",
			description: "List a trainee's benchmarks (a lift's 1RM, a 5 km time, max pull-ups…), each with unit, direction (higher or lower is better), best, latest, " +
				"change4Weeks and change12Weeks (latest minus the value that was latest that long ago; null when the history is shorter) and its 5 latest values, newest first. " +
				"A lift's 1RM benchmark grows by itself: a logged set that beats it (Epley estimate) adds a value with source session."},

		{name: "log_workout", title: "Log a workout", route: "POST /trainees/{id}/workouts", pathArg: "traineeId",
			description: "Record a workout a trainee did, with its exercises and sets: a new completed session, or, with sessionId (a planned session from list_trainee_sessions), that session completed with these actuals (its targets are kept). " +
				"The same trainee, date, sport and duration is one workout: logging it again answers the session already logged with alreadyLogged true and writes nothing. " +
				"Totals are computed; for each exercise whose best estimated 1RM (Epley, sets of 1 to 12 reps) beats the trainee's benchmark, a value is recorded and listed under prs. " +
				"The trainee is not notified. Answers {session, alreadyLogged, prs}.",
			args: map[string]string{
				"sessionId":   "A planned session of this trainee to complete (ses_…), from list_trainee_sessions. Omit to log a workout that was not planned.",
				"date":        "The day of the workout, YYYY-MM-DD (the studio's local day), not after today. Omit for the planned session's date, else today.",
				"sport":       "What the workout was: strength, running, cycling, swimming, mobility, yoga… Required unless sessionId is given.",
				"durationMin": "How long it took, in minutes. Part of what makes two logs the same workout.",
				"exercises":   "The exercises done, in order: exerciseId (a built-in id such as back-squat, bench-press, running, or a studio exercise exr_…) and its sets (reps, loadKg, rir or rpe, seconds, metres; done false for a set not done).",
			}},

		{name: "create_planned_session", title: "Plan a session", route: "POST /trainees/{id}/sessions", pathArg: "traineeId",
			description: "Put a planned session in a trainee's calendar, with its exercises and their targets, outside any program (source coach). " +
				"The trainee is not notified. Complete it later with log_workout and its id. Answers the new session.",
			args: map[string]string{
				"date":      "The day of the session, YYYY-MM-DD (the studio's local day).",
				"sport":     "What the session is: strength, running, cycling, swimming, mobility, yoga…",
				"exercises": "The planned exercises, in order: exerciseId (a built-in id such as back-squat, or a studio exercise exr_…) and its targets (sets, reps, loadKg or percent1RM, rpe or rir, restSeconds, tempo, seconds, metres).",
			}},
	}
}

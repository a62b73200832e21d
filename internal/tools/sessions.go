package tools

// sessionTools are the coach tools of the training memory's session area:
// three reads (summary first, then one session's detail, then benchmarks)
// and three soft writes that reach no trainee.
func sessionTools() []spec {
	return []spec{
		{name: "list_trainee_sessions", title: "List a trainee's workouts", readOnly: true, route: "GET /trainees/{id}/sessions", pathArg: "traineeId",
			description: "A trainee's sessions, newest first, naming exercises; view=full adds sets (limit=1: latest whole).",
			args: map[string]string{
				"view":   "",
				"from":   "",
				"to":     "Default today; at most 366 days after from.",
				"status": "planned lists what is ahead, soonest first.",
			}},

		{name: "get_session", title: "Get a workout session", readOnly: true, route: "GET /sessions/{id}", pathArg: "sessionId",
			description: "One session in full: each exercise's target, the sets done, totals.",
			args: map[string]string{
				"sessionId": "From list_trainee_sessions.",
			}},

		{name: "get_trainee_benchmarks", title: "Get a trainee's benchmarks", readOnly: true, route: "GET /trainees/{id}/benchmarks", pathArg: "traineeId",
			description: "A trainee's benchmarks (1RMs, times, max reps): best, latest, change."},

		{name: "log_workout", title: "Log a workout", route: "POST /trainees/{id}/workouts", pathArg: "traineeId",
			description: "A workout with its sets, new or completing a planned one (sessionId); one per date, sport and duration. " +
				"PRs come back as prs.",
			args: map[string]string{
				"sessionId":   "A planned one to complete, from list_trainee_sessions.",
				"date":        "Default: the planned date, else today.",
				"sport":       "strength, running…; required without sessionId.",
				"durationMin": "",
				"exercises":   "In order, with sets.",
				"title":       "Default: the planned title, else the sport.",
				"startTime":   "HH:MM, local.",
				"notes":       "On the workout.",
				"feedback":    "The trainee's words on it.",
			}},

		{name: "create_planned_session", title: "Plan a session", route: "POST /trainees/{id}/sessions", pathArg: "traineeId",
			description: "A session with exercise targets, outside any program; log_workout completes it.",
			args: map[string]string{
				"date":        "Local day.",
				"durationMin": "",
				"sport":       "strength, running, cycling, mobility…",
				"exercises":   "In order, with targets.",
				"title":       "Default: the sport.",
				"startTime":   "HH:MM, local.",
				"notes":       "For the trainee.",
			}},

		{name: "modify_session", title: "Change a planned session", route: "POST /sessions/{id}/modify", pathArg: "sessionId",
			description: "Change a planned session by operation (each argument names its own).",
			args: map[string]string{
				"sessionId":     "A planned one, from list_trainee_sessions.",
				"operation":     "",
				"percent":       "reduce_volume: percent off.",
				"loadPercent":   "raise_intensity: load up by this percent.",
				"rpeIncrease":   "raise_intensity: RPE targets up by this.",
				"exerciseId":    "swap_exercise: id or name, from get_session.",
				"replacementId": "swap_exercise: id or name from search_exercises; default an alternative.",
				"date":          "reschedule: the new day.",
				"startTime":     "reschedule: HH:MM; default kept.",
			}},

		{name: "swap_exercise_in_range", title: "Swap an exercise over days", route: "POST /trainees/{id}/sessions/swap", pathArg: "traineeId",
			description: "Swap an exercise in a trainee's planned sessions over days; warns on duplicates.",
			args:        map[string]string{"exerciseId": "Id or name, from search_exercises.", "replacementId": "Id or name, from search_exercises.", "from": "", "to": ""}},

		{name: "draft_weekly_plan", title: "Draft a training week", route: "POST /trainees/{id}/plan-drafts", pathArg: "traineeId", unkeyed: true,
			description: "A trainee's week by progression rules from her logged sets: injuries spared, deloads due, reasons; " +
				"her pending draft unless fresh. apply_weekly_plan plans it.",
			args: map[string]string{
				"week":  "next (default), this, or a day of it.",
				"days":  "Default: her availability.",
				"rule":  "Default: by her level.",
				"fresh": "Draft anew.",
			}},

		{name: "apply_weekly_plan", title: "Apply a drafted week", route: "POST /plan-drafts/{id}/apply", pathArg: "draftId", idempotent: true,
			description: "Plan a draft's sessions; a repeat answers the same.",
			args:        map[string]string{"draftId": "From draft_weekly_plan."}},
	}
}

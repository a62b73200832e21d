package tools

// healthTools are the coach tools of the training memory's health area.
func healthTools() []spec {
	return []spec{
		{name: "list_trainee_checkins", title: "List a trainee's check-ins", readOnly: true, route: "GET /trainees/{id}/check-ins", pathArg: "traineeId",
			description: "A trainee's daily check-ins, newest first: readiness, soreness, sleep, mood, stress, note. Default: last year.",
			args: map[string]string{
				"from": "",
				"to":   "Default today; at most 366 days after from.",
			}},
		{name: "get_body_analysis", title: "Body analysis", readOnly: true, route: "GET /trainees/{id}/body-analysis", pathArg: "traineeId",
			description: "Weight and body measurements over a range: first, latest, change.",
			args: map[string]string{
				"from": "Default: 365 days before to.",
				"to":   "Default today.",
			}},
		{name: "record_injury", title: "Record an injury", route: "POST /trainees/{id}/injuries", pathArg: "traineeId",
			description: "A trainee's injury; answers the next 14 days' planned exercises it loads, with alternatives.",
			args: map[string]string{
				"side":              "Default none (a midline area).",
				"area":              "",
				"onsetOn":           "Default today.",
				"affectedExercises": "Exercise ids it rules out (back-squat, exr_…).",
				"notes":             "What happened and what to avoid.",
				"kind":              "Default pain (no diagnosis).",
			}},
		{name: "update_training_profile", title: "Update a training profile", idempotent: true, route: "PATCH /trainees/{id}/training-profile", pathArg: "traineeId",
			description: "Change given fields of a trainee's training profile (what weekly plans read).",
			args: map[string]string{
				"equipment": "barbell, dumbbell, machine, bands…", "availability": "ISO weekdays.", "sessionMinutes": "", "experience": "",
				"units": "", "sport": "", "goal": "", "conditions": "Health conditions; [] clears.",
			}},
	}
}

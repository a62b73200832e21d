package tools

import (
	"slices"
	"strings"
	"sync"
)

// traineeArgDescriptions are argDescriptions for the trainee set: the same
// mechanism, in the trainee's world (no trainee ids, no coach tools).
// (limit keeps the lane's words: its bounds differ by route.)
var traineeArgDescriptions = map[string]string{
	"offset": "", // the previous answer's nextOffset, as the instructions say
}

// traineeRenames point the lane's descriptions, written for the coach
// tools, at the trainee tools that do the same.
var traineeRenames = strings.NewReplacer(
	"get_session_details", "get_session_details", // before get_session
	"search_exercises", "search_training_resources",
	"list_trainee_sessions", "list_sessions",
	"get_session", "get_session_details",
	"get_trainee_benchmarks", "get_benchmarks",
	"get_trainee_overview", "get_training_overview",
	"list_trainee_programs", "list_programs",
)

// traineeSpecs are the trainee tools: each one lane call on the connected
// trainee's own data. None takes a trainee id: a /trainees/{id}/… route is
// called as /trainees/me/…, which the lane reads as the caller; a record
// route (/sessions/{id}) takes the record's id, which the lane checks is
// the caller's. Reads come summary first, details on request.
func traineeSpecs() []spec {
	return []spec{
		{name: "get_training_overview", title: "Training overview", readOnly: true, route: "GET /trainees/{id}/overview",
			description: "Start here, summary first: program week and phase, the last 14 days of sessions (no sets), completion, latest check-ins, active injuries, goals with progress. " +
				"Drill down with get_session_details, get_weekly_debrief or get_coach_insight."},

		{name: "list_sessions", title: "List workouts", readOnly: true, route: "GET /trainees/{id}/sessions",
			description: "Workout sessions, newest first, as summary rows (date, sport, title, status, duration, RPE, totals) without sets; get_session_details gives one in full.",
			args: map[string]string{
				"from":   "",
				"to":     "Default today (what was done); at most 366 days after from.",
				"status": "planned also lists what is ahead.",
			}},

		{name: "get_session_details", title: "Get a workout", readOnly: true, route: "GET /sessions/{id}", pathArg: "sessionId",
			description: "One session in full: each exercise's targets and the sets done, totals, notes, feedback. Use after list_sessions.",
			args:        map[string]string{"sessionId": "From list_sessions or get_training_overview."}},

		{name: "log_workout", title: "Log a workout", route: "POST /trainees/{id}/workouts",
			description: "Record a workout done, new or completing a planned one (sessionId). The same date, sport and duration is one workout (alreadyLogged true). " +
				"Sets beating an estimated 1RM come back as prs.",
			args: map[string]string{
				"sessionId":   "A planned session to complete, from list_sessions.",
				"date":        "Local day, not after today; default the planned date, else today.",
				"sport":       "strength, running, cycling, mobility…; required without sessionId.",
				"durationMin": "Minutes.",
				"exercises":   "In order, each with its sets.",
				"title":       "Default: the planned title, else the sport.",
				"startTime":   "HH:MM, local.",
				"notes":       "On the workout.",
				"feedback":    "How it felt, in the trainee's words.",
			}},

		{name: "create_planned_session", title: "Plan a session", route: "POST /trainees/{id}/sessions",
			description: "A session with exercise targets, outside any program; log_workout completes it. Answers the session.",
			args: map[string]string{
				"date":      "Local day.",
				"sport":     "strength, running, cycling, mobility…",
				"exercises": "In order, with targets.",
				"title":     "Default: the sport.",
				"startTime": "HH:MM, local.",
				"notes":     "",
			}},

		{name: "modify_training_session", title: "Change a planned session", route: "POST /sessions/{id}/modify", pathArg: "sessionId",
			description: "Change a planned session: reduce_volume (percent), raise_intensity (loadPercent, rpeIncrease), swap_exercise (exerciseId, replacementId) or reschedule (date). " +
				"Answers the session and a summary of the change.",
			args: map[string]string{
				"sessionId":     "A planned session, from list_sessions or get_active_program.",
				"operation":     "",
				"percent":       "reduce_volume: the share off, 1 to 90 percent.",
				"loadPercent":   "raise_intensity: load targets up by this percent.",
				"rpeIncrease":   "raise_intensity: RPE targets up by this.",
				"exerciseId":    "swap_exercise: the exercise to replace, from get_session_details.",
				"replacementId": "swap_exercise: what to put in (back-squat, exr_… or a name); default the first alternative.",
				"date":          "reschedule: the new local day.",
				"startTime":     "reschedule: HH:MM; default kept.",
			}},

		{name: "swap_exercise", title: "Swap an exercise", route: "POST /sessions/{id}/modify", pathArg: "sessionId",
			description: "Replace one exercise of a planned session, targets kept: by replacementId, or the catalogue's first alternative when omitted (search_training_resources finds exercises).",
			forced:      map[string]any{"operation": "swap_exercise"},
			keep:        []string{"exerciseId", "replacementId"},
			require:     []string{"exerciseId"},
			args: map[string]string{
				"sessionId":     "A planned session, from list_sessions or get_active_program.",
				"exerciseId":    "The session's exercise to replace, from get_session_details.",
				"replacementId": "The exercise to put in (back-squat, exr_… or a name); default the first alternative.",
			}},

		{name: "get_active_program", title: "Active program", readOnly: true, route: "GET /trainees/{id}/programs/active",
			description: "The program being followed: where it stands (phase, week), this week's sessions with their status, and all its sessions counted by status."},

		{name: "list_programs", title: "List programs", readOnly: true, route: "GET /trainees/{id}/programs",
			description: "Programs, current and past: start date and status (active or replaced)."},

		{name: "get_benchmarks", title: "Benchmarks", readOnly: true, route: "GET /trainees/{id}/benchmarks",
			description: "Benchmarks (1RMs, a 5 km time, max pull-ups…): best, latest, change over 4 and 12 weeks, recent values."},

		{name: "record_benchmark", title: "Record a benchmark", route: "POST /trainees/{id}/benchmarks",
			description: "Record a benchmark value: an existing benchmark by name or benchmarkId, or a new one (name, unit, direction). Earlier values stay as history.",
			args: map[string]string{
				"benchmarkId": "From get_benchmarks; or give name.",
				"name":        "Back squat 1RM, 5 km run, Max pull-ups…; an existing one by this name gets the value.",
				"unit":        "New benchmark: kg, s, m, reps, min….",
				"direction":   "New benchmark: higher (a lift) or lower (a time) is better.",
				"exerciseId":  "New lift 1RM: its exercise (back-squat, exr_…).",
				"value":       "In the benchmark's unit.",
				"recordedAt":  "Default now.",
				"notes":       "",
			}},

		{name: "get_body_analysis", title: "Body analysis", readOnly: true, route: "GET /trainees/{id}/body-analysis",
			description: "Weight and body measurements over a range (default the last 365 days): first, latest and change of each.",
			args: map[string]string{
				"from": "YYYY-MM-DD; default 365 days before to.",
				"to":   "YYYY-MM-DD; default today; at most 366 days after from.",
			}},

		{name: "log_weight", title: "Log a weight", route: "POST /trainees/{id}/weights",
			description: "Record a weigh-in; the latest one is the profile's weight.",
			args:        map[string]string{"recordedAt": "Default now."}},

		{name: "log_measurement", title: "Log body measurements", route: "POST /trainees/{id}/measurements",
			description: "Record body measurements (at least one): body fat, waist, hips, chest, arm, thigh, resting heart rate; weight goes to log_weight.",
			args: map[string]string{
				"recordedAt": "Default now.",
				"notes":      "",
			}},

		{name: "daily_check_in", title: "Daily check-in", route: "POST /trainees/{id}/check-ins",
			description: "Record today's readiness, soreness, sleep, mood and stress; a second check-in the same local day updates the first.",
			args: map[string]string{
				"at":        "Default now.",
				"soreAreas": "",
				"note":      "In the trainee's words.",
			}},

		{name: "record_injury", title: "Record an injury", route: "POST /trainees/{id}/injuries",
			description: "Report an injury with area, side and severity; the trainee's coaches get a task about it. " +
				"Answers which planned exercises of the next 14 days it concerns, and their alternatives.",
			args: map[string]string{
				"area":              "",
				"onsetOn":           "Default today.",
				"affectedExercises": "Exercise ids it rules out (back-squat, exr_…).",
				"notes":             "",
			}},

		{name: "manage_goals", title: "Manage goals", route: "POST /trainees/{id}/goals/manage",
			description: "Goals: action list (with progress), create, update or complete (goalId)."},

		{name: "get_coach_insight", title: "Coaching insights", readOnly: true, route: "GET /trainees/{id}/insights",
			description: "Trends with their numbers: consistency (4-week completion, streaks), fatigue (readiness, soreness, RPE: 7 days vs the 21 before), progress (benchmarks, lifts stalled 3 weeks)."},

		{name: "get_weekly_debrief", title: "Weekly debrief", readOnly: true, route: "GET /trainees/{id}/debrief",
			description: "One week (from the studio's first day), summary first: planned vs completed, volume and time vs the week before, PRs, check-in averages, flags, next week's plan.",
			args:        map[string]string{"week": "this, last, next, a day in it, or YYYY-Www; default this week."}},

		{name: "search_training_resources", title: "Search training resources", readOnly: true, route: "GET /training-resources",
			description: "Training methodologies and catalogue exercises matching words: principles, phases, typical sessions; exercise ids for a swap."},

		{name: "get_onboarding_status", title: "Onboarding status", readOnly: true, route: "GET /trainees/{id}/training-profile",
			description: "The training profile (sports, experience, equipment, availability, units) and what onboarding still lacks."},

		{name: "update_training_profile", title: "Update the training profile", idempotent: true, route: "PATCH /trainees/{id}/training-profile",
			description: "Change the training profile fields given (equipment, availability, session length, experience, units…); others stay."},

		{name: "log_feedback", title: "Send feedback", route: "POST /trainees/{id}/feedback",
			description: "Pass the trainee's word on this experience (the tools, the answers, the coaching) to the studio; nothing is changed."},

		{name: "get_my_plan", title: "My plan", readOnly: true, route: "GET /trainees/{id}/plan",
			description: "The trainee's plan (subscription) with the studio: what, since when, until when, days and sessions left."},

		{name: "get_my_billing", title: "My sessions and payments", readOnly: true, route: "GET /trainees/{id}/billing",
			description: "Your sessions used and left, when they expire, what you owe and your latest payments."},

		{name: "list_my_forms", title: "Forms to fill in", readOnly: true, route: "GET /trainees/{id}/forms",
			description: "Forms the studio sent that wait for an answer, with their questions and due dates."},

		{name: "answer_form", title: "Answer a form", route: "POST /trainees/{id}/form-responses",
			description: "Answer a form the studio sent (from list_my_forms), each answer fitting its question's type.",
			keep:        []string{"assignmentId", "answers"},
			require:     []string{"assignmentId"},
			args:        map[string]string{"assignmentId": "The form's id from list_my_forms.", "answers": "By field key (choice: one of its options; scale: 1 to 10)."}},

		{name: "list_my_appointments", title: "My appointments", readOnly: true, route: "GET /trainees/{id}/appointments",
			description: "Your appointments from today, soonest first; the first is your next.",
			args:        map[string]string{"from": "YYYY-MM-DD; default today.", "all": "true: cancelled too."}},

		{name: "book_appointment", title: "Book an appointment", route: "POST /trainees/{id}/appointments",
			description: "Book your coach at a day and time (her slot then, or within her hours); full: the waiting list. Uses a credit.",
			keep:        []string{"day", "time", "waitlist"},
			require:     []string{"day", "time"},
			args: map[string]string{
				"day":      "tuesday, next tuesday, tomorrow, YYYY-MM-DD.",
				"time":     "HH:MM.",
				"waitlist": "Default true.",
			}},

		{name: "cancel_appointment", title: "Cancel an appointment", route: "POST /appointments/{id}/cancel", pathArg: "appointmentId",
			description: "Cancel one of your appointments; late (the studio's hours) keeps the credit used.",
			args:        map[string]string{"appointmentId": "From list_my_appointments."}},

		{name: "move_appointment", title: "Move an appointment", route: "POST /appointments/{id}/move", pathArg: "appointmentId",
			description: "Move one of your appointments to another day and time in one step, its credit going with it; not within the studio's hours before it.",
			keep:        []string{"day", "time", "waitlist"},
			require:     []string{"day", "time"},
			args: map[string]string{
				"appointmentId": "From list_my_appointments.",
				"day":           "As book_appointment's.",
				"time":          "HH:MM.",
				"waitlist":      "Default false: a full slot keeps yours.",
			}},

		{name: "generate_weekly_plan", title: "Draft my training week", route: "POST /trainees/{id}/plan-drafts", unkeyed: true,
			description: "Draft your week from your training profile (days, equipment, session length), injuries, program and logged sets: loads by progression rules, a deload when due, each change with its reason. " +
				"Your coach reviews and applies it; nothing is planned before. Answers your pending draft of the week unless fresh.",
			args: map[string]string{
				"week":  "next (default), this, or a day of it.",
				"days":  "Default: your training days.",
				"rule":  "",
				"fresh": "true: draft anew even when one is pending.",
			}},
	}
}

// trainee is built on first use, each tool from its route's contract; the
// hosted server builds it at start-up, so a route that disagrees fails there.
var trainee = sync.OnceValue(func() []Tool {
	contracts := LaneTraineeContracts()
	var set []Tool
	for _, s := range traineeSpecs() {
		set = append(set, defineTrainee(s, contracts))
	}
	return set
})

// Trainee returns the trainee tools in their documented order. The slice
// is fresh; its tools share their schemas, which callers must not modify.
func Trainee() []Tool { return slices.Clone(trainee()) }

// TraineeByName finds a tool of the trainee set.
func TraineeByName(name string) (Tool, bool) {
	for _, t := range trainee() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// TraineeAssistantSubset is what a trainee's turns on the WhatsApp
// assistant may use: the trainee tools less those that change her plan
// (planning, modifying or swapping a session). On WhatsApp a plan change
// is a request to her coach (log_feedback), whom it is for to decide.
func TraineeAssistantSubset() []Tool {
	var set []Tool
	for _, t := range trainee() {
		if !slices.Contains(planChanges, t.Name) {
			set = append(set, t)
		}
	}
	return set
}

// planChanges are the trainee tools that change her planned sessions.
var planChanges = []string{"create_planned_session", "modify_training_session", "swap_exercise"}

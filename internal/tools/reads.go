package tools

// argDescriptions describe, for the model, the arguments that mean the same
// in every tool that has them. A tool's own args override them; an
// argument described by neither keeps the lane's description.
var argDescriptions = map[string]string{
	"traineeId": "From search_trainees or find_trainee_by_phone.",
	"limit":     "Default 50.",
	"offset":    "The previous answer's nextOffset (null: no more pages).",
	"search":    "Part of the name.",
	"email":     "",
	"birthDate": "",
	"gender":    "",
	"heightCm":  "Centimetres.",
	"weightKg":  "Kg, recorded as a weigh-in dated now (log_weight records other dates).",
	"goal":      "The trainee's goal in the coach's words (for example: lose 5 kg before the summer).",
	"stepsGoal": "Daily steps goal.",
	"tags":      "Tag names, from list_tags; a new name creates the tag.",
	"coachIds":  "From list_coaches.",
}

func reads() []spec {
	return []spec{
		{name: "search_trainees", title: "Search trainees", readOnly: true, route: "GET /trainees/search",
			description: "Find trainees of the studio by name, phone or email, and filter by status, coach, tag or date. " +
				"Use it to get a trainee's id (trn_…) before any tool that needs traineeId. " +
				"Answers {items, total, nextOffset}; each item is a compact row (id, firstName, lastName, phone, status, tags, coaches with names, weightKg: the latest weigh-in) of a trainee that matches every word of q. " +
				"When q matches nobody, items is empty and nearMatches lists up to 5 trainees whose names are similar (a typo, another spelling), closest first: " +
				"they are not matches, so tell the coach no one matched and ask whether one of them is meant before using their id. " +
				"For one trainee's whole profile use get_trainee.",
			args: map[string]string{
				"q":            "Words of the name, phone digits or email, any order and case; every word must match part of one (\"Levi Daniel\" finds Daniel Levi, \"Ben David\" finds Ben-David).",
				"status":       "",
				"coachId":      "From list_coaches.",
				"tag":          "A tag name, from list_tags.",
				"createdAfter": "",
				"updatedAfter": "",
				"view":         "Omit for compact rows (recommended); full adds each whole profile, several times larger.",
			}},

		{name: "find_trainee_by_phone", title: "Find a trainee by phone", readOnly: true, route: "GET /trainees/by-phone/{phone}", pathArg: "phone",
			description: "Find the one trainee with a phone number, in any of the forms people type. " +
				"Use it when the coach gives a number rather than a name. Answers the trainee's profile, or an error when no trainee has that number.",
			args: map[string]string{
				"phone": "As the coach gave it: +972 50 123 4567, 972501234567 or local 050-123-4567 (read in the studio's region).",
			}},

		{name: "get_trainee", title: "Get a trainee", readOnly: true, route: "GET /trainees/{id}", pathArg: "traineeId",
			description: "Read one trainee's full profile: contact details, birth date, gender, height, weight (the latest weigh-in), goal, steps goal, status, tags, coaches and start date."},

		{name: "list_trainee_programs", title: "List a trainee's programs", readOnly: true, route: "GET /trainees/{id}/programs", pathArg: "traineeId",
			description: "List the training programs assigned to a trainee, with their start date and status (active, or replaced by a later program)."},

		{name: "list_trainee_form_responses", title: "List a trainee's form responses", readOnly: true, route: "GET /trainees/{id}/form-responses", pathArg: "traineeId",
			description: "List the forms a trainee has filled in (check-ins, questionnaires), newest first, each with its answers."},

		{name: "list_trainee_weights", title: "List a trainee's weights", readOnly: true, route: "GET /trainees/{id}/weights", pathArg: "traineeId",
			description: "List a trainee's weigh-ins in kilograms, newest first. Use it to see progress over time."},

		{name: "list_trainee_subscriptions", title: "List a trainee's plans", readOnly: true, route: "GET /trainees/{id}/subscriptions", pathArg: "traineeId",
			description: "List the plans (subscriptions) a trainee has had, with start and end dates, price and status: " +
				"scheduled (starts later), live, frozen, cancelled or ended. endsOn null means open-ended."},

		{name: "list_plans", title: "List plans", readOnly: true, route: "GET /products",
			description: "List the plans the studio sells (the lane calls them products); use it to get a productId for assign_plan or create_trainee. " +
				"price null means the price is set per trainee when the plan is assigned; durationDays null means the plan is open-ended and runs until cancelled."},

		{name: "list_program_templates", title: "List program templates", readOnly: true, route: "GET /program-templates",
			description: "List the studio's training program templates; use it to get a templateId for assign_program."},

		{name: "list_forms", title: "List forms", readOnly: true, route: "GET /forms",
			description: "List the studio's forms (check-ins, questionnaires) with their fields; use it to get a formTemplateId for send_form."},

		{name: "list_coaches", title: "List coaches", readOnly: true, route: "GET /rpc/coaches",
			description: "List the studio's coaches with their ids (coa_…), for coachId and coachIds in other tools."},

		{name: "list_tags", title: "List tags", readOnly: true, route: "GET /rpc/tags",
			description: "List the tags the studio uses to group trainees; tag names go into search_trainees, create_trainee and update_trainee."},

		{name: "list_tasks", title: "List tasks", readOnly: true, route: "GET /tasks",
			description: "List the coaches' to-do tasks, filtered by status, trainee or coach. Use it to get a taskId for update_task.",
			args: map[string]string{
				"status":   "",
				"clientId": "From search_trainees.",
				"coachId":  "From list_coaches.",
			}},
	}
}

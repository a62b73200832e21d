package tools

// argDescriptions describe, for the model, the arguments that mean the same
// in every tool that has them. A tool's own args override them; an
// argument described by neither keeps the lane's description.
var argDescriptions = map[string]string{
	"traineeId":  "Id or name, from search_trainees.",
	"limit":      "", // 1 to 200, said by the schema; DefaultLimit when left out (the instructions)
	"offset":     "", // the previous answer's nextOffset, as the instructions say
	"search":     "Part of the name.",
	"email":      "",
	"birthDate":  "",
	"gender":     "",
	"heightCm":   "",
	"weightKg":   "Kg; recorded as today's weigh-in.",
	"goal":       "In the coach's words.",
	"stepsGoal":  "Daily steps goal.",
	"tags":       "Tag names from list_tags; new names are created.",
	"coachIds":   "Ids from list_coaches, or names.",
	"traineeIds": "Ids or names; or tag.",
}

// coachScopeArg describes a coachId the lane resolves as "who is asking"
// (ref:"coachScope"): the same words wherever a tool reads one coach's
// trainees or tasks.
const coachScopeArg = "Id or name from list_coaches, me or all; default yours."

func reads() []spec {
	return []spec{
		{name: "search_trainees", title: "Search trainees", readOnly: true, route: "GET /trainees/search",
			description: "Find trainees by name (Hebrew or Latin), phone or email, with filters. " +
				"None as written: soundsLike items, else nearMatches, closest first (not matches: ask).",
			args: map[string]string{
				"q":            "Words of a name, phone or email, any order (\"Ben David\" finds Ben-David).",
				"status":       "",
				"coachId":      "Id or name from list_coaches, or me.",
				"tag":          "A tag name, from list_tags.",
				"createdAfter": "",
				"updatedAfter": "",
				"view":         "full adds whole profiles (much larger).",
			}},

		{name: "find_trainee_by_phone", title: "Find a trainee by phone", readOnly: true, route: "GET /trainees/by-phone/{phone}", pathArg: "phone",
			description: "The trainee with a phone number, in any usual form.",
			args: map[string]string{
				"phone": "As given, international or local (050-123-4567).",
			}},

		{name: "get_trainee", title: "Get a trainee", readOnly: true, route: "GET /trainees/{id}", pathArg: "traineeId",
			description: "One trainee's full profile; weightKg is the latest weigh-in."},

		{name: "list_trainee_programs", title: "List a trainee's programs", readOnly: true, route: "GET /trainees/{id}/programs", pathArg: "traineeId",
			description: "A trainee's programs: start date and status (active or replaced)."},

		{name: "list_trainee_form_responses", title: "List a trainee's form responses", readOnly: true, route: "GET /trainees/{id}/form-responses", pathArg: "traineeId",
			description: "Forms a trainee filled in, newest first, with answers."},

		{name: "list_trainee_weights", title: "List a trainee's weights", readOnly: true, route: "GET /trainees/{id}/weights", pathArg: "traineeId",
			description: "A trainee's weigh-ins in kg, newest first."},

		{name: "list_trainee_subscriptions", title: "List a trainee's plans", readOnly: true, route: "GET /trainees/{id}/subscriptions", pathArg: "traineeId",
			description: "A trainee's plans (subscriptions): dates, price, status; endsOn null: open-ended."},

		{name: "list_plans", title: "List plans", readOnly: true, route: "GET /products",
			description: "Plans the studio sells (productId); price null: per trainee; durationDays null: open-ended; kind package (sessions, validDays) or membership (sessions a week, period)."},

		{name: "get_trainee_billing", title: "A trainee's billing", readOnly: true, route: "GET /trainees/{id}/billing", pathArg: "traineeId",
			description: "Per package or membership: sessions used and left, expiry, payment state; what she owes, open charges (chargeId), latest payments. Who owes: needs_attention."},

		{name: "list_payments", title: "List payments", readOnly: true, route: "GET /payments",
			description: "Payments recorded, newest first, refunds negative; by trainee and days paid (from, to)."},

		{name: "list_program_templates", title: "List program templates", readOnly: true, route: "GET /program-templates",
			description: "Program templates, for assign_program's templateId."},

		{name: "list_forms", title: "List forms", readOnly: true, route: "GET /forms",
			description: "The studio's forms and their fields, for send_form."},

		{name: "list_coaches", title: "List coaches", readOnly: true, route: "GET /rpc/coaches",
			description: "The studio's coaches, for coachId and coachIds (coa_…)."},

		{name: "list_tags", title: "List tags", readOnly: true, route: "GET /rpc/tags",
			description: "The tag names the studio groups trainees by."},

		{name: "list_tasks", title: "List tasks", readOnly: true, route: "GET /tasks",
			description: "The coaches' to-do tasks by status, trainee or coach; gives taskIds.",
			args: map[string]string{
				"status":   "",
				"clientId": "Id from search_trainees, or a name.",
				"coachId":  coachScopeArg,
			}},
	}
}

package tools

import "net/http"

// Paging is shared by every list tool.
type Paging struct {
	Limit  int `json:"limit,omitempty" jsonschema:"How many items to return, 1 to 200. Default 50."`
	Offset int `json:"offset,omitempty" jsonschema:"How many items to skip, from 0. Pass the previous answer's nextOffset to get the next page; nextOffset null means there is no next page."`
}

// TraineeRef names one trainee.
type TraineeRef struct {
	TraineeID string `json:"traineeId" jsonschema:"The trainee's id (trn_…), from search_trainees or find_trainee_by_phone."`
}

// Inputs of the read tools.
type (
	SearchTraineesInput struct {
		Q            string `json:"q,omitempty" jsonschema:"Text to find in the trainee's name (first, last or both), phone digits or email. Case-insensitive; a part of a name is enough."`
		Status       string `json:"status,omitempty" jsonschema:"Only trainees with this status: active, paused or archived. Omit for all."`
		CoachID      string `json:"coachId,omitempty" jsonschema:"Only trainees of this coach (coa_…), from list_coaches."`
		Tag          string `json:"tag,omitempty" jsonschema:"Only trainees carrying this tag name, from list_tags."`
		CreatedAfter string `json:"createdAfter,omitempty" jsonschema:"Only trainees created after this instant, RFC 3339 (2026-03-01T00:00:00Z)."`
		UpdatedAfter string `json:"updatedAfter,omitempty" jsonschema:"Only trainees whose profile changed after this instant, RFC 3339 (2026-03-01T00:00:00Z)."`
		Paging
	}
	FindTraineeByPhoneInput struct {
		Phone string `json:"phone" jsonschema:"The phone number as the coach gave it: international (+972 50 123 4567), with the country code only (972501234567) or local (050-123-4567, read in the studio's region)."`
	}
	TraineePageInput struct {
		TraineeRef
		Paging
	}
	CatalogInput struct {
		Search string `json:"search,omitempty" jsonschema:"Text to find in the name. Omit to list all."`
		Paging
	}
	NoInput        struct{}
	ListTasksInput struct {
		Status   string `json:"status,omitempty" jsonschema:"Only tasks with this status: open, done or snoozed. Omit for all."`
		ClientID string `json:"clientId,omitempty" jsonschema:"Only tasks about this trainee (trn_…), from search_trainees."`
		CoachID  string `json:"coachId,omitempty" jsonschema:"Only tasks of this coach (coa_…), from list_coaches."`
		Paging
	}
)

func reads() []Tool {
	return []Tool{
		define("search_trainees", "Search trainees", true,
			"Find trainees of the studio by name, phone or email, and filter by status, coach, tag or date. "+
				"Use it to get a trainee's id (trn_…) before any tool that needs traineeId. "+
				"Answers {items, total, nextOffset}; items are trainee profiles.",
			func(in SearchTraineesInput) Request {
				return get("/trainees/search", query(
					"q", in.Q, "status", in.Status, "coachId", in.CoachID, "tag", in.Tag,
					"createdAfter", in.CreatedAfter, "updatedAfter", in.UpdatedAfter,
					"limit", itoa(in.Limit), "offset", itoa(in.Offset)))
			}, oneOf("status", "active", "paused", "archived")),

		define("find_trainee_by_phone", "Find a trainee by phone", true,
			"Find the one trainee with a phone number, in any of the forms people type. "+
				"Use it when the coach gives a number rather than a name. Answers the trainee's profile, or an error when no trainee has that number.",
			func(in FindTraineeByPhoneInput) Request {
				return get("/trainees/by-phone/"+segment(in.Phone), nil)
			}),

		define("get_trainee", "Get a trainee", true,
			"Read one trainee's full profile: contact details, birth date, gender, height, weight, goal, steps goal, status, tags, coaches and start date.",
			func(in TraineeRef) Request { return get("/trainees/"+segment(in.TraineeID), nil) }),

		define("list_trainee_programs", "List a trainee's programs", true,
			"List the training programs assigned to a trainee, with their start date and status (active, or replaced by a later program).",
			func(in TraineeRef) Request { return get("/trainees/"+segment(in.TraineeID)+"/programs", nil) }),

		define("list_trainee_form_responses", "List a trainee's form responses", true,
			"List the forms a trainee has filled in (check-ins, questionnaires), newest first, each with its answers.",
			func(in TraineePageInput) Request {
				return get("/trainees/"+segment(in.TraineeID)+"/form-responses", paging(in.Paging))
			}),

		define("list_trainee_weights", "List a trainee's weights", true,
			"List a trainee's weigh-ins in kilograms, newest first. Use it to see progress over time.",
			func(in TraineePageInput) Request {
				return get("/trainees/"+segment(in.TraineeID)+"/weights", paging(in.Paging))
			}),

		define("list_trainee_subscriptions", "List a trainee's plans", true,
			"List the plans (subscriptions) a trainee has had, with start and end dates, price and status: "+
				"scheduled (starts later), live, frozen, cancelled or ended. endsOn null means open-ended.",
			func(in TraineeRef) Request { return get("/trainees/"+segment(in.TraineeID)+"/subscriptions", nil) }),

		define("list_plans", "List plans", true,
			"List the plans the studio sells (the lane calls them products); use it to get a productId for assign_plan or create_trainee. "+
				"price null means the price is set per trainee when the plan is assigned; durationDays null means the plan is open-ended and runs until cancelled.",
			func(in CatalogInput) Request { return get("/products", catalog(in)) }),

		define("list_program_templates", "List program templates", true,
			"List the studio's training program templates; use it to get a templateId for assign_program.",
			func(in CatalogInput) Request { return get("/program-templates", catalog(in)) }),

		define("list_forms", "List forms", true,
			"List the studio's forms (check-ins, questionnaires) with their fields; use it to get a formTemplateId for send_form.",
			func(in CatalogInput) Request { return get("/forms", catalog(in)) }),

		define("list_coaches", "List coaches", true,
			"List the studio's coaches with their ids (coa_…), for coachId and coachIds in other tools.",
			func(in Paging) Request { return get("/rpc/coaches", paging(in)) }),

		define("list_tags", "List tags", true,
			"List the tags the studio uses to group trainees; tag names go into search_trainees, create_trainee and update_trainee.",
			func(in Paging) Request { return get("/rpc/tags", paging(in)) }),

		define("list_tasks", "List tasks", true,
			"List the coaches' to-do tasks, filtered by status, trainee or coach. Use it to get a taskId for update_task.",
			func(in ListTasksInput) Request {
				return get("/tasks", query("status", in.Status, "clientId", in.ClientID, "coachId", in.CoachID,
					"limit", itoa(in.Limit), "offset", itoa(in.Offset)))
			}, oneOf("status", "open", "done", "snoozed")),
	}
}

func get(path string, q map[string][]string) Request {
	return Request{Method: http.MethodGet, Path: path, Query: q}
}

func paging(p Paging) map[string][]string {
	return query("limit", itoa(p.Limit), "offset", itoa(p.Offset))
}

func catalog(in CatalogInput) map[string][]string {
	return query("search", in.Search, "limit", itoa(in.Limit), "offset", itoa(in.Offset))
}

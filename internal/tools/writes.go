package tools

import "net/http"

// TraineeProfile holds the optional profile fields create_trainee and
// update_trainee share.
type TraineeProfile struct {
	Email     string   `json:"email,omitempty" jsonschema:"Email address."`
	BirthDate string   `json:"birthDate,omitempty" jsonschema:"Date of birth, YYYY-MM-DD."`
	Gender    string   `json:"gender,omitempty" jsonschema:"Gender: female, male or other."`
	HeightCm  float64  `json:"heightCm,omitempty" jsonschema:"Height in centimetres, above 0 and at most 300."`
	WeightKg  float64  `json:"weightKg,omitempty" jsonschema:"Current body weight in kilograms, above 0 and at most 500. To record a weigh-in with a date, use log_weight."`
	Goal      string   `json:"goal,omitempty" jsonschema:"The trainee's goal in the coach's words (for example: lose 5 kg before the summer)."`
	StepsGoal int      `json:"stepsGoal,omitempty" jsonschema:"Daily steps goal, 0 to 100000."`
	Tags      []string `json:"tags,omitzero" jsonschema:"Tag names, from list_tags; a new name creates the tag."`
	CoachIDs  []string `json:"coachIds,omitzero" jsonschema:"Ids of the trainee's coaches (coa_…), from list_coaches."`
}

// Inputs of the write tools, and the bodies they send where the two differ.
type (
	CreateTraineeInput struct {
		FirstName string `json:"firstName" jsonschema:"First name."`
		LastName  string `json:"lastName" jsonschema:"Last name."`
		Phone     string `json:"phone" jsonschema:"Mobile number in any usual form (+972 50 123 4567, 050-123-4567); local numbers are read in the studio's region. It must not belong to another trainee."`
		TraineeProfile
		ProductID string `json:"productId,omitempty" jsonschema:"A plan to start for the trainee (prd_…), from list_plans. Omit to add the trainee without a plan."`
		StartedOn string `json:"startedOn,omitempty" jsonschema:"The day the trainee starts, YYYY-MM-DD; with productId also the day the plan starts. Omit for today."`
	}
	createTraineeBody struct {
		CreateTraineeInput
		SendWhatsappInvite bool `json:"sendWhatsappInvite"`
		Notify             bool `json:"notify"`
	}

	UpdateTraineeFields struct {
		FirstName string `json:"firstName,omitempty" jsonschema:"New first name."`
		LastName  string `json:"lastName,omitempty" jsonschema:"New last name."`
		Phone     string `json:"phone,omitempty" jsonschema:"New mobile number in any usual form; it must not belong to another trainee."`
		Status    string `json:"status,omitempty" jsonschema:"New status: active, paused or archived."`
		StartedOn string `json:"startedOn,omitempty" jsonschema:"The day the trainee started, YYYY-MM-DD."`
		TraineeProfile
	}
	UpdateTraineeInput struct {
		TraineeRef
		UpdateTraineeFields
	}

	AssignPlanInput struct {
		TraineeRef
		ProductID    string   `json:"productId" jsonschema:"The plan's id (prd_…), from list_plans."`
		StartedOn    string   `json:"startedOn,omitempty" jsonschema:"First day of the plan, YYYY-MM-DD. When omitted the plan starts the day after the trainee's last live (or scheduled) plan ends, or today if there is none."`
		Price        *float64 `json:"price,omitempty" jsonschema:"Price for this trainee, overriding the plan's list price. Needed to price a plan whose list price is null; without it such a plan stays unpriced."`
		DurationDays *int     `json:"durationDays,omitempty" jsonschema:"Length in days for this trainee, overriding the plan's duration. Omit to keep the plan's duration (null there means open-ended)."`
	}
	assignPlanBody struct {
		ProductID    string   `json:"productId"`
		StartedOn    string   `json:"startedOn,omitempty"`
		Price        *float64 `json:"price,omitempty"`
		DurationDays *int     `json:"durationDays,omitempty"`
		Notify       bool     `json:"notify"`
	}

	AssignProgramInput struct {
		TraineeRef
		TemplateID string `json:"templateId" jsonschema:"The program template's id (ptm_…), from list_program_templates."`
		StartsOn   string `json:"startsOn,omitempty" jsonschema:"First day of the program, YYYY-MM-DD. Omit for today."`
	}
	assignProgramBody struct {
		TemplateID      string `json:"templateId"`
		StartsOn        string `json:"startsOn,omitempty"`
		Notify          bool   `json:"notify"`
		ReplaceExisting bool   `json:"replaceExisting"`
	}

	SendFormInput struct {
		TraineeRef
		FormTemplateID string         `json:"formTemplateId" jsonschema:"The form's id (frm_…), from list_forms."`
		DueAt          string         `json:"dueAt,omitempty" jsonschema:"When the answers are due, an RFC 3339 instant (2026-03-01T09:00:00Z). Omit for no due date."`
		Prompt         string         `json:"prompt,omitempty" jsonschema:"A short note shown to the trainee with the form, at most 500 characters."`
		Notify         *bool          `json:"notify,omitempty" jsonschema:"Omit (recommended) to let the studio announce the form to the trainee once, within the hour; false never announces it; true announces it now."`
		FieldValues    map[string]any `json:"fieldValues,omitempty" jsonschema:"Answers to fill in ahead, keyed by the form field's key (see list_forms)."`
	}
	sendFormBody struct {
		FormTemplateID string         `json:"formTemplateId"`
		DueAt          string         `json:"dueAt,omitempty"`
		Prompt         string         `json:"prompt,omitempty"`
		Notify         *bool          `json:"notify,omitempty"`
		FieldValues    map[string]any `json:"fieldValues,omitempty"`
	}

	CreateTaskInput struct {
		Title    string `json:"title" jsonschema:"What the coach should do, in a short line."`
		ClientID string `json:"clientId,omitempty" jsonschema:"The trainee the task is about (trn_…), from search_trainees."`
		Detail   string `json:"detail,omitempty" jsonschema:"More detail for the coach, at most 2000 characters."`
		DueAt    string `json:"dueAt,omitempty" jsonschema:"When it is due, an RFC 3339 instant (2026-03-01T09:00:00Z). Omit for no due date."`
		Priority *int   `json:"priority,omitempty" jsonschema:"Priority from 0 (none, the default) to 5 (most urgent)."`
		CoachID  string `json:"coachId,omitempty" jsonschema:"The coach who should do it (coa_…), from list_coaches. Omit for the studio as a whole."`
	}

	UpdateTaskInput struct {
		TaskID      string `json:"taskId" jsonschema:"The task's id (tsk_…), from list_tasks or create_task."`
		Status      string `json:"status,omitempty" jsonschema:"New status: open, done or snoozed."`
		SnoozeUntil string `json:"snoozeUntil,omitempty" jsonschema:"Until when the task sleeps, an RFC 3339 instant (2026-03-01T09:00:00Z). Sending it alone snoozes the task; status snoozed needs it."`
		Priority    *int   `json:"priority,omitempty" jsonschema:"New priority from 0 (none) to 5 (most urgent)."`
	}
	updateTaskBody struct {
		Status      string `json:"status,omitempty"`
		SnoozeUntil string `json:"snoozeUntil,omitempty"`
		Priority    *int   `json:"priority,omitempty"`
	}

	LogWeightInput struct {
		TraineeRef
		WeightKg   float64 `json:"weightKg" jsonschema:"The weight in kilograms, above 0 and at most 500."`
		RecordedAt string  `json:"recordedAt,omitempty" jsonschema:"When the trainee weighed in, an RFC 3339 instant (2026-03-01T07:30:00Z). Omit for now."`
	}
	logWeightBody struct {
		WeightKg   float64 `json:"weightKg"`
		RecordedAt string  `json:"recordedAt,omitempty"`
	}
)

func writes() []Tool {
	return []Tool{
		define("create_trainee", "Create a trainee", false,
			"Add a new trainee to the studio, optionally starting a plan (productId from list_plans). "+
				"Check with find_trainee_by_phone first: a phone can belong to one trainee only. "+
				"The trainee is not notified and no WhatsApp invite is sent; the coach decides that in the studio app. "+
				"Answers the new trainee's profile with its id.",
			func(in CreateTraineeInput) Request {
				return send(http.MethodPost, "/trainees", createTraineeBody{CreateTraineeInput: in})
			}, oneOf("gender", "female", "male", "other")),

		define("update_trainee", "Update a trainee", false,
			"Change a trainee's profile: only the fields given change. "+
				"tags and coachIds replace the whole list, so read the trainee with get_trainee first and send the full new list. "+
				"Answers the updated profile.",
			func(in UpdateTraineeInput) Request {
				return send(http.MethodPatch, "/trainees/"+segment(in.TraineeID), in.UpdateTraineeFields)
			}, oneOf("status", "active", "paused", "archived"), oneOf("gender", "female", "male", "other")),

		define("assign_plan", "Assign a plan", false,
			"Start a plan (productId from list_plans) for a trainee. "+
				"When startedOn is omitted the plan starts the day after the trainee's last live (or scheduled) plan ends, or today if there is none; "+
				"check list_trainee_subscriptions to see which. A plan with a null list price needs price to be priced. "+
				"The trainee is not notified. Answers the new subscription.",
			func(in AssignPlanInput) Request {
				return send(http.MethodPost, "/trainees/"+segment(in.TraineeID)+"/subscription", assignPlanBody{
					ProductID: in.ProductID, StartedOn: in.StartedOn, Price: in.Price, DurationDays: in.DurationDays,
				})
			}, atLeast("price", 0), atLeast("durationDays", 1)),

		define("assign_program", "Assign a program", false,
			"Give a trainee a training program from a template (templateId from list_program_templates). "+
				"The trainee's current programs stay; the new one is added beside them. The trainee is not notified. Answers the new program.",
			func(in AssignProgramInput) Request {
				return send(http.MethodPost, "/trainees/"+segment(in.TraineeID)+"/programs/assign", assignProgramBody{
					TemplateID: in.TemplateID, StartsOn: in.StartsOn,
				})
			}),

		define("send_form", "Send a form", false,
			"Ask a trainee to fill in a form (formTemplateId from list_forms), with an optional due date and a short prompt. "+
				"By default the studio announces the form to the trainee once within the hour; set notify false to only attach it silently. "+
				"Answers the form assignment.",
			func(in SendFormInput) Request {
				return send(http.MethodPost, "/trainees/"+segment(in.TraineeID)+"/forms/assign", sendFormBody{
					FormTemplateID: in.FormTemplateID, DueAt: in.DueAt, Prompt: in.Prompt, Notify: in.Notify, FieldValues: in.FieldValues,
				})
			}),

		define("create_task", "Create a task", false,
			"Leave a to-do for a coach, optionally about a trainee (clientId) and for one coach (coachId). "+
				"This is the right way to ask a coach to do something, such as call a trainee; it never reaches the trainee. Answers the new task.",
			func(in CreateTaskInput) Request { return send(http.MethodPost, "/tasks", in) }),

		define("update_task", "Update a task", false,
			"Mark a task done, reopen it, snooze it until a time, or change its priority (taskId from list_tasks). Answers the updated task.",
			func(in UpdateTaskInput) Request {
				return send(http.MethodPatch, "/tasks/"+segment(in.TaskID), updateTaskBody{
					Status: in.Status, SnoozeUntil: in.SnoozeUntil, Priority: in.Priority,
				})
			}, oneOf("status", "open", "done", "snoozed")),

		define("log_weight", "Log a weight", false,
			"Record a trainee's weigh-in in kilograms, at a given time or now. Answers the new weight entry.",
			func(in LogWeightInput) Request {
				return send(http.MethodPost, "/trainees/"+segment(in.TraineeID)+"/weights", logWeightBody{
					WeightKg: in.WeightKg, RecordedAt: in.RecordedAt,
				})
			}),
	}
}

func send(method, path string, body any) Request {
	return Request{Method: method, Path: path, Body: body}
}

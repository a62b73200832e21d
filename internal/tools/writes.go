package tools

func writes() []spec {
	return []spec{
		{name: "create_trainee", title: "Create a trainee", route: "POST /trainees",
			description: "Add a new trainee to the studio, optionally starting a plan (productId from list_plans). " +
				"Check with find_trainee_by_phone first: a phone can belong to one trainee only. " +
				"The trainee is not notified and no WhatsApp invite is sent; the coach decides that in the studio app. " +
				"Answers the new trainee's profile with its id.",
			forced: map[string]any{"sendWhatsappInvite": false, "notify": false},
			args: map[string]string{
				"firstName": "First name.",
				"lastName":  "Last name.",
				"phone":     "Mobile number in any usual form (+972 50 123 4567, 050-123-4567); local numbers are read in the studio's region. It must not belong to another trainee.",
				"status":    "active (the default), paused or archived.",
				"productId": "A plan to start for the trainee (prd_…), from list_plans. Omit to add the trainee without a plan.",
				"startedOn": "The day the trainee starts, YYYY-MM-DD; with productId also the day the plan starts. Omit for today (UTC); the answer shows the day.",
			}},

		{name: "update_trainee", title: "Update a trainee", idempotent: true, route: "PATCH /trainees/{id}", pathArg: "traineeId",
			description: "Change a trainee's profile: only the fields given change. " +
				"tags and coachIds replace the whole list, so read the trainee with get_trainee first and send the full new list. " +
				"Answers the updated profile.",
			args: map[string]string{
				"firstName": "New first name.",
				"lastName":  "New last name.",
				"phone":     "New mobile number in any usual form; it must not belong to another trainee.",
				"status":    "New status: active, paused or archived.",
				"startedOn": "The day the trainee started, YYYY-MM-DD.",
			}},

		{name: "assign_plan", title: "Assign a plan", route: "POST /trainees/{id}/subscription", pathArg: "traineeId",
			description: "Start a plan (productId from list_plans) for a trainee. " +
				"When startedOn is omitted the plan starts the day after the trainee's last live (or scheduled) plan ends, or today if there is none; " +
				"check list_trainee_subscriptions to see which. A plan with a null list price needs price to be priced. " +
				"The trainee is not notified. Answers the new subscription.",
			forced: map[string]any{"notify": false},
			args: map[string]string{
				"productId":    "The plan's id (prd_…), from list_plans.",
				"startedOn":    "First day of the plan, YYYY-MM-DD. When omitted the plan starts the day after the trainee's last live (or scheduled) plan ends, or today if there is none.",
				"price":        "Price for this trainee, overriding the plan's list price. Needed to price a plan whose list price is null; without it such a plan stays unpriced.",
				"durationDays": "Length in days for this trainee, overriding the plan's duration. Omit to keep the plan's duration (null there means open-ended).",
			}},

		{name: "assign_program", title: "Assign a program", route: "POST /trainees/{id}/programs/assign", pathArg: "traineeId",
			description: "Give a trainee a training program from a template (templateId from list_program_templates). " +
				"The trainee's current programs stay; the new one is added beside them. The trainee is not notified. " +
				"A template with a structure lays its sessions out as planned sessions from startsOn; the answer is the new program with sessionsPlanned and the first and last session dates.",
			forced: map[string]any{"notify": false, "replaceExisting": false},
			args: map[string]string{
				"templateId": "The program template's id (ptm_…), from list_program_templates.",
				"startsOn":   "First day of the program, YYYY-MM-DD. Omit for today.",
			}},

		{name: "send_form", title: "Send a form", route: "POST /trainees/{id}/forms/assign", pathArg: "traineeId",
			description: "Ask a trainee to fill in a form (formTemplateId from list_forms), with an optional due date and a short prompt. " +
				"By default the studio announces the form to the trainee once within the hour; set notify false to only attach it silently. " +
				"Answers the form assignment.",
			args: map[string]string{
				"formTemplateId": "The form's id (frm_…), from list_forms.",
				"dueAt":          "When the answers are due, an RFC 3339 instant (2026-03-01T09:00:00Z). Omit for no due date.",
				"prompt":         "A short note shown to the trainee with the form, at most 500 characters.",
				"notify":         "Omit (recommended) to let the studio announce the form to the trainee once, within the hour; false never announces it; true announces it now.",
				"fieldValues":    "Answers to fill in ahead, keyed by the form field's key (see list_forms); each must fit its field's type: text a string, number a number, date YYYY-MM-DD, choice one of the field's options, scale a whole number from 1 to 10.",
			}},

		{name: "create_task", title: "Create a task", route: "POST /tasks",
			description: "Leave a to-do for a coach, optionally about a trainee (clientId) and for one coach (coachId). " +
				"This is the right way to ask a coach to do something, such as call a trainee; it never reaches the trainee. Answers the new task.",
			args: map[string]string{
				"title":    "What the coach should do, in a short line.",
				"clientId": "The trainee the task is about (trn_…), from search_trainees.",
				"detail":   "More detail for the coach, at most 2000 characters.",
				"dueAt":    "When it is due, an RFC 3339 instant (2026-03-01T09:00:00Z). Omit for no due date.",
				"priority": "Priority from 0 (none, the default) to 5 (most urgent).",
				"coachId":  "The coach who should do it (coa_…), from list_coaches. Omit for the studio as a whole.",
			}},

		{name: "update_task", title: "Update a task", idempotent: true, route: "PATCH /tasks/{id}", pathArg: "taskId",
			description: "Mark a task done, reopen it, snooze it until a time, or change its priority (taskId from list_tasks). Answers the updated task.",
			args: map[string]string{
				"taskId":      "The task's id (tsk_…), from list_tasks or create_task.",
				"status":      "New status: open, done or snoozed.",
				"snoozeUntil": "Until when the task sleeps, an RFC 3339 instant (2026-03-01T09:00:00Z). Sending it alone snoozes the task; status snoozed needs it, sent now or already on the task.",
				"priority":    "New priority from 0 (none) to 5 (most urgent).",
			}},

		{name: "log_weight", title: "Log a weight", route: "POST /trainees/{id}/weights", pathArg: "traineeId",
			description: "Record a trainee's weigh-in in kilograms, at a given time or now. The latest weigh-in (by recordedAt) is the weightKg get_trainee shows. Answers the new weight entry.",
			args: map[string]string{
				"weightKg":   "The weight in kilograms, above 0 and at most 500.",
				"recordedAt": "When the trainee weighed in, an RFC 3339 instant (2026-03-01T07:30:00Z). Omit for now.",
			}},
	}
}

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
				"phone":     "Any usual form (+972 50 123 4567, 050-123-4567; local is read in the studio's region); one trainee per phone.",
				"status":    "Default active.",
				"productId": "A plan to start, from list_plans.",
				"startedOn": "Also the plan's first day. Default today.",
			}},

		{name: "update_trainee", title: "Update a trainee", idempotent: true, route: "PATCH /trainees/{id}", pathArg: "traineeId",
			description: "Change a trainee's profile: only the fields given change. " +
				"tags and coachIds replace the whole list, so read the trainee with get_trainee first and send the full new list. " +
				"Answers the updated profile.",
			args: map[string]string{
				"firstName": "New first name.",
				"lastName":  "New last name.",
				"phone":     "Any usual form; one trainee per phone.",
				"status":    "",
				"startedOn": "",
			}},

		{name: "assign_plan", title: "Assign a plan", route: "POST /trainees/{id}/subscription", pathArg: "traineeId",
			description: "Start a plan (productId from list_plans) for a trainee. " +
				"When startedOn is omitted the plan starts the day after the trainee's last live (or scheduled) plan ends, or today if there is none; " +
				"check list_trainee_subscriptions to see which. A plan with a null list price needs price to be priced. " +
				"The trainee is not notified. Answers the new subscription.",
			forced: map[string]any{"notify": false},
			args: map[string]string{
				"productId":    "From list_plans.",
				"startedOn":    "Default: the day after the last live or scheduled plan ends, else today.",
				"price":        "Overrides the list price; needed when the plan's price is null.",
				"durationDays": "Overrides the plan's duration.",
			}},

		{name: "assign_program", title: "Assign a program", route: "POST /trainees/{id}/programs/assign", pathArg: "traineeId",
			description: "Give a trainee a training program from a template (templateId from list_program_templates). " +
				"The trainee's current programs stay; the new one is added beside them. The trainee is not notified. " +
				"A template with a structure lays its sessions out as planned sessions from startsOn; the answer is the new program with sessionsPlanned and the first and last session dates.",
			forced: map[string]any{"notify": false, "replaceExisting": false},
			args: map[string]string{
				"templateId": "From list_program_templates.",
				"startsOn":   "Default today.",
			}},

		{name: "send_form", title: "Send a form", route: "POST /trainees/{id}/forms/assign", pathArg: "traineeId",
			description: "Ask a trainee to fill in a form (formTemplateId from list_forms), with an optional due date and a short prompt. " +
				"By default the studio announces the form to the trainee once within the hour; set notify false to only attach it silently. " +
				"Answers the form assignment.",
			args: map[string]string{
				"formTemplateId": "From list_forms.",
				"dueAt":          "When the answers are due.",
				"prompt":         "A note shown with the form.",
				"notify":         "Omit (recommended): announced once within the hour; false: never; true: now.",
				"fieldValues":    "Answers filled in ahead by field key (list_forms); each fits its type: text string, number, date YYYY-MM-DD, choice an option, scale 1–10.",
			}},

		{name: "create_task", title: "Create a task", route: "POST /tasks",
			description: "Leave a to-do for a coach, optionally about a trainee (clientId) and for one coach (coachId). " +
				"This is the right way to ask a coach to do something, such as call a trainee; it never reaches the trainee. Answers the new task.",
			args: map[string]string{
				"title":    "What to do, in a short line.",
				"clientId": "The trainee it is about, from search_trainees.",
				"detail":   "More detail for the coach.",
				"dueAt":    "",
				"priority": "0 none (default) to 5 most urgent.",
				"coachId":  "From list_coaches; omit for the whole studio.",
			}},

		{name: "update_task", title: "Update a task", idempotent: true, route: "PATCH /tasks/{id}", pathArg: "taskId",
			description: "Mark a task done, reopen it, snooze it until a time, or change its priority (taskId from list_tasks). Answers the updated task.",
			args: map[string]string{
				"taskId":      "From list_tasks or create_task.",
				"status":      "",
				"snoozeUntil": "Sent alone it snoozes the task; status snoozed needs one, sent or already set.",
				"priority":    "0 none to 5 most urgent.",
			}},

		{name: "log_weight", title: "Log a weight", route: "POST /trainees/{id}/weights", pathArg: "traineeId",
			description: "Record a trainee's weigh-in in kilograms, at a given time or now. The latest weigh-in (by recordedAt) is the weightKg get_trainee shows. Answers the new weight entry.",
			args: map[string]string{
				"weightKg":   "Kilograms.",
				"recordedAt": "Default now.",
			}},
	}
}

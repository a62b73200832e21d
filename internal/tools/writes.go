package tools

func writes() []spec {
	return []spec{
		{name: "create_trainee", title: "Create a trainee", route: "POST /trainees",
			description: "Add a trainee, maybe with a plan; one per phone (find_trainee_by_phone first).",
			forced:      map[string]any{"sendWhatsappInvite": false, "notify": false},
			args: map[string]string{
				"firstName": "First name.",
				"lastName":  "Last name.",
				"phone":     "Any usual form (050-123-4567).",
				"status":    "Default active.",
				"productId": "A plan to start: id from list_plans, or its name.",
				"startedOn": "The plan's first day; default today.",
			}},

		{name: "update_trainee", title: "Update a trainee", idempotent: true, route: "PATCH /trainees/{id}", pathArg: "traineeId",
			description: "Change given profile fields; tags and coachIds replace the lists.",
			args: map[string]string{
				"firstName": "New first name.",
				"lastName":  "New last name.",
				"phone":     "Any usual form; one trainee per phone.",
				"status":    "",
				"startedOn": "",
			}},

		{name: "assign_plan", title: "Assign a plan", route: "POST /trainees/{id}/subscription", pathArg: "traineeId",
			description: "Start a plan for a trainee, or renew one (startedOn). Answers the subscription.",
			forced:      map[string]any{"notify": false},
			args: map[string]string{
				"productId":    "Id from list_plans, or the plan's name.",
				"startedOn":    "Default: after the last live or scheduled plan ends, else today.",
				"price":        "Overrides the list price; needed when it is null.",
				"durationDays": "Overrides the plan's duration.",
			}},

		{name: "record_payment", title: "Record a payment", route: "POST /trainees/{id}/payments", pathArg: "traineeId",
			description: "Record money a trainee paid; never edited (a refund in the studio's app corrects it).",
			args: map[string]string{
				"amount":   "In major units (250, 249.90).",
				"chargeId": "From get_trainee_billing; default her charge due soonest.",
			}},

		{name: "assign_program", title: "Assign a program", route: "POST /trainees/{id}/programs/assign", pathArg: "traineeId",
			description: "Give a trainee a program from a template, beside the current ones; " +
				"a structured one plans its sessions from startsOn.",
			forced: map[string]any{"notify": false, "replaceExisting": false},
			args: map[string]string{
				"templateId": "Id from list_program_templates, or its name.",
				"startsOn":   "Default today.",
			}},

		{name: "send_form", title: "Send a form", route: "POST /trainees/{id}/forms/assign", pathArg: "traineeId",
			description: "Ask a trainee to fill in a form, with an optional due date and prompt.",
			args: map[string]string{
				"formTemplateId": "Id from list_forms, or its name.",
				"dueAt":          "When the answers are due.",
				"prompt":         "A note shown with the form.",
				"notify":         "Omit: announced within the hour; false: never; true: now.",
				"fieldValues":    "Answers filled in ahead, by field key.",
			}},

		{name: "create_task", title: "Create a task", route: "POST /tasks",
			description: "A to-do for a coach (coachId), maybe about a trainee (clientId); the trainee never sees it.",
			args: map[string]string{
				"title":    "What to do, in a short line.",
				"clientId": "Id from search_trainees, or a name.",
				"detail":   "More detail for the coach.",
				"dueAt":    "",
				"priority": "0 none (default) to 5 most urgent.",
				"coachId":  "From list_coaches, or a name; default: you if a coach signed in.",
			}},

		{name: "send_form_to_group", title: "Send a form to a group", route: "POST /groups/forms",
			description: "send_form to a tag or a list (≤200); answers per trainee.",
			keep:        []string{"tag", "traineeIds", "formTemplateId"},
			args:        map[string]string{"tag": "From list_tags; or traineeIds.", "formTemplateId": "Id or name, from list_forms."}},

		{name: "assign_plan_to_group", title: "Assign a plan to a group", route: "POST /groups/subscriptions",
			description: "assign_plan to a tag or a list (≤200); answers per trainee.",
			forced:      map[string]any{"notify": false},
			keep:        []string{"tag", "traineeIds", "productId", "startedOn"},
			args:        map[string]string{"tag": "From list_tags; or traineeIds.", "productId": "Id or name, from list_plans.", "startedOn": ""}},

		{name: "create_task_for_group", title: "Create a task per trainee of a group", route: "POST /groups/tasks",
			description: "create_task about each trainee of a tag or a list (≤200); answers per trainee.",
			keep:        []string{"tag", "traineeIds", "title", "dueAt", "coachId"},
			args:        map[string]string{"tag": "From list_tags; or traineeIds.", "coachId": "From list_coaches, or a name; default: you if a coach signed in."}},

		{name: "draft_message", title: "Draft a message", idempotent: true, route: "POST /trainees/{id}/message-drafts", pathArg: "traineeId",
			description: "A WhatsApp message in the studio's language and a wa.me link to send it yourself; nothing is sent.",
			args:        map[string]string{"purpose": "", "text": "For custom."}},

		{name: "update_task", title: "Update a task", idempotent: true, route: "PATCH /tasks/{id}", pathArg: "taskId",
			description: "Mark a task done, reopen, snooze or reprioritise it.",
			args: map[string]string{
				"taskId":      "From list_tasks or create_task.",
				"status":      "",
				"snoozeUntil": "Snoozed until then.",
				"priority":    "0 none to 5 most urgent.",
			}},

		{name: "log_weight", title: "Log a weight", route: "POST /trainees/{id}/weights", pathArg: "traineeId",
			description: "A weigh-in; the latest is the profile's weightKg.",
			args: map[string]string{
				"weightKg":   "Kilograms.",
				"recordedAt": "Default now.",
			}},
	}
}

package tools

// exerciseTools are the coach tools of the training memory's exercise area.
func exerciseTools() []spec {
	return []spec{
		{name: "search_exercises", title: "Search exercises", readOnly: true, route: "GET /exercises",
			description: "Find exercises in English or Hebrew (built-in slugs like back-squat, or exr_…) for exerciseIds; " +
				"for a swap, filter by muscle or area.",
			args: map[string]string{
				"q":         "Name or alias, English or Hebrew (\"סקוואט\", \"rdl\").",
				"view":      "full adds muscles, loaded areas and alternatives.",
				"equipment": "barbell, dumbbell, kettlebell, machine, cable, band, none…",
				"muscle":    "quadriceps, glutes, hamstrings, chest, lats, triceps, core…",
				"area":      "A body area it loads: knee, shoulder, lower_back…",
				"category":  "",
			}},
	}
}

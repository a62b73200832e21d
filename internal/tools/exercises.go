package tools

// exerciseTools are the coach tools of the training memory's exercise area.
func exerciseTools() []spec {
	return []spec{
		{name: "search_exercises", title: "Search exercises", readOnly: true, route: "GET /exercises",
			description: "Find exercises in English or Hebrew for exerciseIds; " +
				"for a swap, filter by muscle or area.",
			args: map[string]string{
				"q":         "Name or alias, English or Hebrew (\"סקוואט\", \"rdl\").",
				"view":      "full adds muscles, areas, alternatives.",
				"equipment": "barbell, dumbbell, band, none…",
				"muscle":    "quadriceps, chest, lats, core…",
				"area":      "An area it loads: knee, lower_back…",
				"category":  "",
			}},
	}
}

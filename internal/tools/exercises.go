package tools

// exerciseTools are the coach tools of the training memory's exercise area.
func exerciseTools() []spec {
	return []spec{
		{name: "search_exercises", title: "Search exercises", readOnly: true, route: "GET /exercises",
			description: "Search the exercise catalogue: Perform's built-in exercises (ids are slugs such as back-squat) and the studio's own (exr_…), in English or Hebrew. " +
				"Use it to get an exerciseId for log_workout, for the exercises of a program's days, or to find a swap: filter by the same muscle or area and other equipment. " +
				"Answers {items, total, nextOffset} of compact rows (id, name, nameHe, category, equipment, measure: how sets are logged), best match first; " +
				"view=full adds muscles, the body areas it loads and its alternatives.",
			args: map[string]string{
				"q":    "Part of the exercise's name in English or Hebrew, or an alias (\"סקוואט\", \"rdl\"). Omit to list by filters.",
				"view": "Omit for compact rows (recommended); full adds aliases, muscles, unilateral, loadsAreas and alternatives (ids of swaps).",
			}},
	}
}

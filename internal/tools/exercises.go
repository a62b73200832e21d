package tools

// exerciseTools are the coach tools of the training memory's exercise area.
func exerciseTools() []spec {
	return []spec{
		{name: "search_exercises", title: "Search exercises", readOnly: true, route: "GET /exercises",
			description: "Search exercises in English or Hebrew: built-in (slug ids such as back-squat) and the studio's own (exr_…). " +
				"Gives exerciseIds for log_workout and create_planned_session; to find a swap, filter by muscle or area. Compact rows, best match first.",
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

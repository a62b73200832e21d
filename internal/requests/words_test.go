package requests_test

import "fmt"

// wordsRequests are asked in the coach's own words: trainees, plans,
// templates, forms, tags and exercises by their names, in Hebrew or in
// Latin letters, groups by a tag, a change over the studio's Sunday week,
// and a message drafted for her to send. Each is one call.
func wordsRequests(w *world) []request {
	nextWeek := addDays(w.weekStart, 7)
	lastWeek := addDays(w.weekStart, -7)
	one := func(ask, tool string, args map[string]any, want ...string) request {
		return request{ask: ask, steps: []step{call(tool, args)}, check: func(_ *world, a []string) error { return contains(a[0], want...) }}
	}
	return []request{
		one("Tamar's last workout", "list_trainee_sessions", map[string]any{"traineeId": "Tamar", "status": "completed", "limit": 1, "view": "full"}, `"items"`, "תמר אברהם"),
		one("How are my rehab trainees doing?", "needs_attention", map[string]any{"tag": "rehab"}, `"activeTrainees"`),
		one("Which of my VIPs hasn't trained this week?", "roster", map[string]any{"question": "not_trained", "tag": "vip"}, `"summary"`, "VIP"),
		one("Find Tamar Avraham", "search_trainees", map[string]any{"q": "Tamar Avraham"}, "תמר", `"soundsLike":true`),
		one("Noa Cohen's weigh-ins", "list_trainee_weights", map[string]any{"traineeId": "Noa Cohen"}, `"total"`, "נועה כהן"),
		one("Who is Itai Dahan?", "get_trainee", map[string]any{"traineeId": "Itai Dahan"}, "איתי"),
		one("מה שלום עומר חדד?", "get_trainee_overview", map[string]any{"traineeId": "עומר חדד"}, `"summary"`),
		one("Yossi's benchmarks", "get_trainee_benchmarks", map[string]any{"traineeId": "Yossi"}, `"items"`, "Yossi Peretz"),
		one("What did Rachel do last week?", "list_trainee_sessions", map[string]any{"traineeId": "Rachel", "from": lastWeek, "to": addDays(lastWeek, 6)}, `"items"`),
		one("מה עשה אבי פרידמן השבוע?", "list_trainee_sessions", map[string]any{"traineeId": "אבי פרידמן", "from": w.weekStart, "to": w.today}, `"items"`, "Avi Friedman"),
		// Writes come last.
		one("Put Daniel on the Quarterly membership", "assign_plan", map[string]any{"traineeId": "Daniel", "productId": "quarterly membership"}, "Quarterly membership"),
		one("Hannah on the strength foundations program", "assign_program", map[string]any{"traineeId": "Hannah", "templateId": "Strength foundations"}, "Strength foundations"),
		one("שלחי לתמר את שאלון ההיכרות", "send_form", map[string]any{"traineeId": "תמר", "formTemplateId": "שאלון היכרות", "notify": false}, `"fas_`),
		one("Send the weekly check-in to my VIPs", "send_form_to_group", map[string]any{"tag": "VIP", "formTemplateId": "weekly check-in"}, `"items"`, `"result":"done"`),
		one("Put the morning group on the monthly membership", "assign_plan_to_group", map[string]any{"tag": "morning group", "productId": "monthly-membership"}, `"items"`),
		one("Message Omer Tal that his payment is due", "draft_message", map[string]any{"traineeId": "Omer Tal", "purpose": "payment_due"}, "https://wa.me/", `"sent":false`),
		one("Log Daniel's bench press, 3×5 at 60", "log_workout", map[string]any{"traineeId": "Daniel", "sport": "strength", "exercises": []map[string]any{
			{"exerciseId": "bench press", "sets": []map[string]any{{"reps": 5, "loadKg": 60}, {"reps": 5, "loadKg": 60}, {"reps": 5, "loadKg": 60}}}}}, "bench-press"),
		one(fmt.Sprintf("Swap Tamar's back squats for leg press next week (%s)", nextWeek), "swap_exercise_in_range", map[string]any{
			"traineeId": "Tamar", "exerciseId": "back squat", "replacementId": "לג פרס", "from": nextWeek, "to": addDays(nextWeek, 6)}, `"changed"`),
	}
}

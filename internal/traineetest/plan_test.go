package traineetest

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traineeTools are the trainee set, every one of which a grant of every
// trainee scope lists and the plan calls.
var traineeTools = []string{
	"get_training_overview", "list_sessions", "get_session_details", "log_workout", "create_planned_session",
	"modify_training_session", "swap_exercise", "get_active_program", "list_programs", "get_benchmarks",
	"record_benchmark", "get_body_analysis", "log_weight", "log_measurement", "daily_check_in", "record_injury", "manage_goals",
	"get_coach_insight", "get_weekly_debrief", "search_training_resources", "get_onboarding_status",
	"update_training_profile", "log_feedback", "get_my_plan", "list_my_forms",
}

// called is one tool call of the plan and what it answered.
type called struct {
	tool   string
	args   map[string]any
	result *mcp.CallToolResult
}

var (
	sessionID        = regexp.MustCompile(`\bses_[0-9a-z]{26}\b`)
	completedSession = regexp.MustCompile(`"id":"(ses_[0-9a-z]{26})"[^{}]*"status":"completed"`)
)

// plan calls every trainee tool once with sensible arguments on the
// caller's own data, reads first and with their defaults (what a model
// calls first), then the writes built on what the reads answered. It
// fails t on a protocol error or an error result and answers every call.
// Arguments come from candidates by the names the tool's input schema
// has, so an optional argument renamed does not break the plan.
func plan(t *testing.T, cs *mcp.ClientSession, today time.Time) []called {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]map[string]any{}
	for _, tool := range res.Tools {
		m, _ := tool.InputSchema.(map[string]any)
		p, _ := m["properties"].(map[string]any)
		props[tool.Name] = p
	}
	for _, name := range traineeTools {
		if _, ok := props[name]; !ok {
			t.Fatalf("tools/list lacks the trainee tool %s", name)
		}
	}
	day := func(offset int) string { return today.AddDate(0, 0, offset).Format(time.DateOnly) }
	var out []called
	do := func(name string, candidates map[string]any) string {
		t.Helper()
		args := map[string]any{}
		for k, v := range candidates {
			if _, ok := props[name][k]; ok {
				args[k] = v
			}
		}
		r := call(t, cs, name, args)
		if r.IsError {
			t.Fatalf("%s(%v) answered an error: %s", name, args, text(r))
		}
		out = append(out, called{tool: name, args: args, result: r})
		return answer(r)
	}

	do("get_training_overview", nil)
	sessions := do("list_sessions", nil)
	// A completed session, with its sets, else any.
	someSession := sessionID.FindString(sessions)
	if m := completedSession.FindStringSubmatch(sessions); m != nil {
		someSession = m[1]
	}
	if someSession == "" {
		t.Fatalf("list_sessions named no session of the trainee: %s", sessions)
	}
	do("get_session_details", map[string]any{"sessionId": someSession})
	do("get_active_program", nil)
	do("list_programs", nil)
	do("get_benchmarks", nil)
	do("get_body_analysis", nil)
	do("get_coach_insight", nil)
	do("get_weekly_debrief", nil)
	do("search_training_resources", map[string]any{"q": "squat", "query": "squat"})
	do("get_onboarding_status", nil)
	do("get_my_plan", nil)
	do("list_my_forms", nil)
	do("manage_goals", map[string]any{"action": "list"})

	planned := do("create_planned_session", map[string]any{"date": day(3), "sport": "strength", "title": "Lower body", "durationMin": 50,
		"exercises": []any{map[string]any{"exerciseId": "back-squat", "sets": 4, "reps": 6}, map[string]any{"exerciseId": "romanian-deadlift", "sets": 3, "reps": 8}}})
	newSession := sessionID.FindString(planned)
	if newSession == "" {
		t.Fatalf("create_planned_session named no session: %s", planned)
	}
	do("modify_training_session", map[string]any{"sessionId": newSession, "operation": "reduce_volume", "percent": 25})
	do("swap_exercise", map[string]any{"sessionId": newSession, "exerciseId": "back-squat"})
	do("log_workout", map[string]any{"date": day(0), "sport": "strength", "title": "Upper body", "durationMin": 45, "rpe": 7,
		"exercises": []any{map[string]any{"exerciseId": "bench-press", "sets": []any{map[string]any{"reps": 8, "loadKg": 50}, map[string]any{"reps": 6, "loadKg": 55}}}},
		"feedback":  "Felt strong today"})
	do("record_benchmark", map[string]any{"name": "Plank hold", "unit": "s", "direction": "higher", "value": 95})
	do("log_weight", map[string]any{"weightKg": 68.4})
	do("log_measurement", map[string]any{"waistCm": 81.5, "restingHr": 58})
	do("daily_check_in", map[string]any{"readiness": 7, "soreness": 3, "sleepHours": 7.5, "mood": 4, "stress": 2})
	do("record_injury", map[string]any{"area": "knee", "side": "left", "severity": 2, "notes": "A twinge on the stairs"})
	do("update_training_profile", map[string]any{"sessionMinutes": 50, "experience": "intermediate", "availability": []int{1, 3, 5}})
	thanks := "The new program is great, thank you."
	do("log_feedback", map[string]any{"text": thanks, "message": thanks, "feedback": thanks, "rating": 5})

	for _, name := range traineeTools {
		if !slices.ContainsFunc(out, func(c called) bool { return c.tool == name }) {
			t.Fatalf("the plan did not call %s", name)
		}
	}
	return out
}

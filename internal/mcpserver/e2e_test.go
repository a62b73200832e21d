package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/tools"
)

func TestToolsListShowsEveryToolWithAnnotations(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	if got := cs.InitializeResult().Instructions; got != mcpserver.Instructions {
		t.Errorf("instructions = %q", got)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		def, ok := tools.ByName(tool.Name)
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != def.ReadOnly || a.OpenWorldHint == nil || *a.OpenWorldHint ||
			a.DestructiveHint == nil || *a.DestructiveHint {
			// Every hint is explicit: nothing is destructive, and no coach tool reaches outside the studio.
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
		if tool.Description != def.Description || tool.Title != def.Title {
			t.Errorf("%s: title or description differ from the definition", tool.Name)
		}
		if a != nil && a.IdempotentHint != def.Idempotent || def.ReadOnly && !def.Idempotent {
			t.Errorf("%s: idempotentHint %v; every read and only the writes that set values are idempotent", tool.Name, a != nil && a.IdempotentHint)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: input schema %s", tool.Name, schema)
		}
		// Strict clients (the MCP Inspector) warn on type arrays such as
		// ["null","string"]: an optional argument is one left out.
		var tree any
		_ = json.Unmarshal(schema, &tree)
		if path := typeArray(tree, "inputSchema"); path != "" {
			t.Errorf("%s: %s is a type array", tool.Name, path)
		}
	}
	var want []string
	for _, def := range tools.All() {
		want = append(want, def.Name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools/list = %v (%d), want the %d tools of tools.All", names, len(names), len(want))
	}
}

// typeArray finds a "type" keyword whose value is a list, or a null in an
// enum, anywhere in a schema.
func typeArray(v any, path string) string {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["type"].([]any); ok {
			return path + ".type"
		}
		if enum, ok := x["enum"].([]any); ok && slices.Contains(enum, nil) {
			return path + ".enum"
		}
		for k, sub := range x {
			if p := typeArray(sub, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, sub := range x {
			if p := typeArray(sub, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestEveryToolSucceeds calls each of the tools with valid arguments over
// the SDK's client and checks each answer carries the lane's data.
func TestEveryToolSucceeds(t *testing.T) {
	t.Parallel()
	for engine, open := range storetest.Engines(t) {
		t.Run(engine, func(t *testing.T) { everyToolSucceeds(t, mcptest.NewOn(t, open(t))) })
	}
}

func everyToolSucceeds(t *testing.T, f *mcptest.Fixture) {
	a := f.A
	calls := []struct {
		tool string
		args map[string]any
		want string // a piece of the answer's JSON
	}{
		{"search_trainees", map[string]any{"q": "Dana"}, a.TraineeID},
		{"search_trainees", map[string]any{"tag": a.Tag, "coachId": a.CoachID, "status": "active"}, a.TraineeID},
		{"find_trainee_by_phone", map[string]any{"phone": "050-100-0001"}, a.TraineeID},
		{"find_trainee_by_phone", map[string]any{"phone": "+972 50-100-0001"}, a.TraineeID},
		{"find_trainee_by_phone", map[string]any{"phone": "972501000001"}, a.TraineeID},
		{"get_trainee", map[string]any{"traineeId": a.TraineeID}, a.TraineeLastName},
		{"list_trainee_programs", map[string]any{"traineeId": a.TraineeID}, `"items"`},
		{"list_trainee_form_responses", map[string]any{"traineeId": a.TraineeID}, a.FormID},
		{"list_trainee_weights", map[string]any{"traineeId": a.TraineeID, "limit": 10}, "81.5"},
		{"list_trainee_subscriptions", map[string]any{"traineeId": a.TraineeID}, `"items"`},
		{"list_plans", map[string]any{"search": "gold"}, a.ProductID},
		{"get_trainee_billing", map[string]any{"traineeId": a.TraineeID}, `"owed"`},
		{"list_payments", map[string]any{"traineeId": a.TraineeID}, `"received"`},
		{"list_program_templates", map[string]any{}, a.TemplateID},
		{"list_forms", map[string]any{}, a.FormID},
		{"list_coaches", map[string]any{}, a.CoachID},
		{"list_tags", nil, `"vip"`},
		{"list_tasks", map[string]any{"status": "open", "clientId": a.TraineeID}, a.TaskID},
		{"create_trainee", map[string]any{"firstName": "Maya", "lastName": "Bar", "phone": "+972 52 555 0101", "gender": "female",
			"tags": []string{"new"}, "productId": a.ProductID}, `"Maya"`},
		{"update_trainee", map[string]any{"traineeId": a.OtherTraineeID, "goal": "Run 10 km", "tags": []string{"runner"}}, "Run 10 km"},
		{"assign_plan", map[string]any{"traineeId": a.OtherTraineeID, "productId": a.OpenProductID, "price": 250}, a.OpenProductID},
		{"record_payment", map[string]any{"traineeId": a.TraineeID, "amount": 249.9, "method": "bit", "note": "March"}, "249.9"},
		{"assign_program", map[string]any{"traineeId": a.TraineeID, "templateId": a.TemplateID, "startsOn": "2026-12-01"}, a.TemplateID},
		{"send_form", map[string]any{"traineeId": a.TraineeID, "formTemplateId": a.FormID, "prompt": "How was your week?", "notify": false}, a.FormID},
		{"create_task", map[string]any{"title": "Check Yoav's plan", "clientId": a.OtherTraineeID, "priority": 3}, "Check Yoav's plan"},
		{"draft_message", map[string]any{"traineeId": a.TraineeID, "purpose": "payment_due"}, "https://wa.me/"},
		{"send_form_to_group", map[string]any{"traineeIds": []string{a.TraineeID, a.OtherTraineeID}, "formTemplateId": a.FormID}, `"result":"done"`},
		{"assign_plan_to_group", map[string]any{"traineeIds": []string{a.OtherTraineeID}, "productId": a.ProductID}, `"result":"done"`},
		{"create_task_for_group", map[string]any{"traineeIds": []string{a.TraineeID, a.OtherTraineeID}, "title": "Call about the new block"}, `"result":"done"`},
		{"update_task", map[string]any{"taskId": a.TaskID, "status": "done"}, `"done"`},
		{"log_weight", map[string]any{"traineeId": a.TraineeID, "weightKg": 80.2, "recordedAt": "2026-11-01T07:30:00Z"}, "80.2"},
		{"needs_attention", map[string]any{"limit": 10}, `"summary"`},
		{"roster", map[string]any{"question": "trained", "from": "2026-01-01", "to": "2026-12-31"}, `"summary"`},
		{"get_trainee_overview", map[string]any{"traineeId": a.TraineeID}, `"summary"`},
		{"get_weekly_debrief", map[string]any{"traineeId": a.TraineeID, "week": "2026-W48"}, `"week":"2026-11-22"`}, // the studio's Sunday week holding W48's Monday,
		{"get_coaching_insights", map[string]any{"traineeId": a.TraineeID}, `"consistency"`},
		{"search_exercises", map[string]any{"q": "סקוואט", "equipment": "barbell"}, `"back-squat"`},
		{"list_trainee_checkins", map[string]any{"traineeId": a.TraineeID, "from": "2026-01-01", "to": "2026-12-31"}, `"items"`},
	}
	cs := mcptest.Connect(t, f.URL+"/mcp", a.Key)
	called := map[string]bool{}
	run := func(tool string, args map[string]any, want string) string {
		res := mcptest.Call(t, cs, tool, args)
		body := mcptest.Text(res)
		if res.IsError {
			t.Errorf("%s %v: tool error %q", tool, args, body)
			return ""
		}
		called[tool] = true
		if !strings.Contains(body, want) {
			t.Errorf("%s: answer %s does not contain %s", tool, body, want)
		}
		structured, _ := json.Marshal(res.StructuredContent)
		var fromText, fromStructured any
		if json.Unmarshal([]byte(body), &fromText) != nil || json.Unmarshal(structured, &fromStructured) != nil ||
			!jsonEqual(fromText, fromStructured) {
			t.Errorf("%s: text and structuredContent differ:\n%s\n%s", tool, body, structured)
		}
		return body
	}
	for _, c := range calls {
		run(c.tool, c.args, c.want)
	}
	// The training memory: plan a session, read it, complete it, see the PR.
	var planned struct{ ID string }
	_ = json.Unmarshal([]byte(run("create_planned_session", map[string]any{"traineeId": a.TraineeID, "date": "2026-11-02", "sport": "strength",
		"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5, "loadKg": 100}}}, `"planned"`)), &planned)
	run("get_session", map[string]any{"sessionId": planned.ID}, "back-squat")
	run("modify_session", map[string]any{"sessionId": planned.ID, "operation": "reduce_volume", "percent": 20}, `"reduce_volume"`)
	run("swap_exercise_in_range", map[string]any{"traineeId": a.TraineeID, "exerciseId": "leg press", "replacementId": "back squat", "from": "2026-11-01", "to": "2026-11-07"}, `"changed"`)
	run("record_injury", map[string]any{"traineeId": a.OtherTraineeID, "area": "knee", "side": "left", "severity": 2}, `"guidance"`)
	run("get_body_analysis", map[string]any{"traineeId": a.TraineeID}, `"weightKg"`)
	run("log_workout", map[string]any{"traineeId": a.TraineeID, "sessionId": planned.ID, "durationMin": 55,
		"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 100}, {"reps": 3, "loadKg": 110}}}}}, `"e1rmKg":121`)
	run("list_trainee_sessions", map[string]any{"traineeId": a.TraineeID, "status": "completed"}, planned.ID)
	run("get_trainee_benchmarks", map[string]any{"traineeId": a.TraineeID}, `"value":121`)
	// A week drafted by the rules (no model here) and applied: planned sessions.
	run("update_training_profile", map[string]any{"traineeId": a.TraineeID, "equipment": []string{"barbell", "rack", "bench", "dumbbell"},
		"sessionMinutes": 60, "goal": "strength", "conditions": []string{"hypertension"}}, `"hypertension"`)
	var draft struct{ ID string }
	_ = json.Unmarshal([]byte(run("draft_weekly_plan", map[string]any{"traineeId": a.TraineeID, "days": []int{1, 3, 5}, "week": "next"}, `"pending"`)), &draft)
	run("apply_weekly_plan", map[string]any{"draftId": draft.ID}, `"applied"`)
	// Appointments: a group slot, a booking in it and one opened at a time
	// of its own, the day's list, a cancellation, a mark once begun.
	tomorrow := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	var slot, booked struct{ ID string }
	_ = json.Unmarshal([]byte(run("create_appointment_slot", map[string]any{"coachId": a.CoachID, "day": tomorrow, "time": "10:00", "capacity": 3, "place": "Hall"}, `"capacity":3`)), &slot)
	_ = json.Unmarshal([]byte(run("book_appointment", map[string]any{"traineeId": a.TraineeID, "slotId": slot.ID}, `"booked"`)), &booked)
	run("book_appointment", map[string]any{"traineeId": a.OtherTraineeID, "day": tomorrow, "time": "10:00", "coachId": a.CoachID}, slot.ID)
	run("list_appointments", map[string]any{"from": time.Now().AddDate(0, 0, -1).Format(time.DateOnly), "to": time.Now().AddDate(0, 0, 2).Format(time.DateOnly)}, booked.ID)
	var other struct {
		Items []struct{ ID, TraineeID string }
	}
	_ = json.Unmarshal([]byte(run("list_appointments", map[string]any{"traineeId": a.OtherTraineeID, "from": tomorrow, "to": time.Now().AddDate(0, 0, 2).Format(time.DateOnly)}, slot.ID)), &other)
	if len(other.Items) == 1 {
		run("cancel_appointment", map[string]any{"appointmentId": other.Items[0].ID}, `"cancelled"`)
	}
	back := int64(3 * 24 * 3600 * 1000)
	if _, err := f.Store.DB().Exec(f.Store.Rebind(`UPDATE appointments SET starts_at = starts_at - ?, ends_at = ends_at - ? WHERE id = ?`), back, back, booked.ID); err != nil {
		t.Fatal(err)
	}
	run("mark_appointment", map[string]any{"appointmentId": booked.ID, "status": "no_show"}, `"no_show"`)
	for _, def := range tools.All() {
		if !called[def.Name] {
			t.Errorf("%s was not called successfully", def.Name)
		}
	}
	if len(called) != len(tools.All()) {
		t.Errorf("called %d tools successfully: %v", len(called), slices.Sorted(maps.Keys(called)))
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestErrorsAreSentencesWithIsError(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	cases := []struct {
		tool string
		args map[string]any
		want []string
	}{
		// The lane's sentences, passed through.
		{"get_trainee", map[string]any{"traineeId": "trn_00000000000000000000000000"}, []string{"trn_00000000000000000000000000", "search_trainees"}},
		{"get_trainee", map[string]any{"traineeId": f.A.ProductID}, []string{"plan", "search_trainees"}},
		{"update_task", map[string]any{"taskId": "tsk_nope", "status": "done"}, []string{"list_tasks"}},
		{"assign_plan", map[string]any{"traineeId": f.A.TraineeID, "productId": "prd_missing"}, []string{"list_plans"}},
		{"create_trainee", map[string]any{"firstName": "A", "lastName": "B", "phone": "+972501000001"}, []string{"phone"}},
		{"create_trainee", map[string]any{"firstName": "A", "lastName": "B", "phone": "0525550199", "birthDate": "yesterday"}, []string{"birthDate"}},
		{"log_weight", map[string]any{"traineeId": f.A.TraineeID, "weightKg": 70, "recordedAt": "last monday"}, []string{"recordedAt"}},
		// The tool's own refusals, before any lane call.
		{"search_trainees", map[string]any{"limit": 500}, []string{"search_trainees", "limit", "1 to 200"}},
		{"log_weight", map[string]any{"traineeId": f.A.TraineeID, "weightKg": 0}, []string{"weightKg", "from 20 to 350"}},
		{"assign_plan", map[string]any{"traineeId": f.A.TraineeID, "productId": f.A.ProductID, "notify": true}, []string{`no argument "notify"`}},
		{"get_trainee", map[string]any{}, []string{"traineeId is required"}},
	}
	for _, c := range cases {
		res := mcptest.Call(t, cs, c.tool, c.args)
		body := mcptest.Text(res)
		if !res.IsError {
			t.Errorf("%s %v: not an error: %s", c.tool, c.args, body)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s %v: %q does not mention %q", c.tool, c.args, body, w)
			}
		}
		if strings.HasPrefix(body, "{") {
			t.Errorf("%s: error is JSON, not a sentence: %s", c.tool, body)
		}
	}
}

func TestAWellFormedWrongKeyConnectsThenEveryCallFails(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", "pf_live_"+strings.Repeat("x", 43))
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != len(tools.All()) {
		t.Fatalf("tools/list with a wrong key: %v, %d tools", err, len(list.Tools))
	}
	for name, args := range map[string]map[string]any{"list_coaches": {}, "get_trainee": {"traineeId": f.A.TraineeID}} {
		res := mcptest.Call(t, cs, name, args)
		if !res.IsError || !strings.Contains(mcptest.Text(res), "invalid partner api key") {
			t.Errorf("%s: %v %q", name, res.IsError, mcptest.Text(res))
		}
	}
}

// TestForcedSilentWritesLeaveTheOutboxUntouched makes every write that could
// notify a trainee through the tools, then reads the outbox; a send_form with
// notify true afterwards shows the outbox does record what it should.
func TestForcedSilentWritesLeaveTheOutboxUntouched(t *testing.T) {
	t.Parallel()
	for engine, open := range storetest.Engines(t) {
		t.Run(engine, func(t *testing.T) { forcedSilentWritesLeaveTheOutboxUntouched(t, mcptest.NewOn(t, open(t))) })
	}
}

func forcedSilentWritesLeaveTheOutboxUntouched(t *testing.T, f *mcptest.Fixture) {
	a := f.A
	before := len(f.Notifications(t, a.Key))
	cs := mcptest.Connect(t, f.URL+"/mcp", a.Key)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"create_trainee", map[string]any{"firstName": "Silent", "lastName": "One", "phone": "0525550111", "productId": a.ProductID}},
		{"assign_plan", map[string]any{"traineeId": a.OtherTraineeID, "productId": a.ProductID}},
		{"assign_program", map[string]any{"traineeId": a.OtherTraineeID, "templateId": a.TemplateID}},
		{"send_form", map[string]any{"traineeId": a.OtherTraineeID, "formTemplateId": a.FormID, "notify": false}},
		{"update_trainee", map[string]any{"traineeId": a.OtherTraineeID, "status": "paused"}},
		{"create_task", map[string]any{"title": "Silent task", "clientId": a.OtherTraineeID}},
		{"assign_plan_to_group", map[string]any{"traineeIds": []string{a.OtherTraineeID}, "productId": a.ProductID}},
		{"create_task_for_group", map[string]any{"traineeIds": []string{a.OtherTraineeID}, "title": "Silent group task"}},
		{"log_weight", map[string]any{"traineeId": a.OtherTraineeID, "weightKg": 70}},
	} {
		if res := mcptest.Call(t, cs, c.tool, c.args); res.IsError {
			t.Fatalf("%s: %s", c.tool, mcptest.Text(res))
		}
	}
	if after := f.Notifications(t, a.Key); len(after) != before {
		t.Fatalf("outbox grew from %d to %d after forced-silent writes: %+v", before, len(after), after)
	}

	if res := mcptest.Call(t, cs, "send_form", map[string]any{"traineeId": a.TraineeID, "formTemplateId": a.FormID, "notify": true}); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	after := f.Notifications(t, a.Key)
	if len(after) != before+1 || after[0].TraineeID != a.TraineeID || after[0].Source != "mcp" {
		t.Fatalf("send_form notify:true should add one outbox row from source mcp: %+v", after)
	}
}

// TestStudioAKeyNeverReachesStudioB gives every tool that takes an id
// studio B's ids with studio A's key.
func TestStudioAKeyNeverReachesStudioB(t *testing.T) {
	t.Parallel()
	for engine, open := range storetest.Engines(t) {
		t.Run(engine, func(t *testing.T) { studioAKeyNeverReachesStudioB(t, mcptest.NewOn(t, open(t))) })
	}
}

func studioAKeyNeverReachesStudioB(t *testing.T, f *mcptest.Fixture) {
	b := f.B
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"find_trainee_by_phone", map[string]any{"phone": b.Phone}},
		{"get_trainee", map[string]any{"traineeId": b.TraineeID}},
		{"list_trainee_programs", map[string]any{"traineeId": b.TraineeID}},
		{"list_trainee_form_responses", map[string]any{"traineeId": b.TraineeID}},
		{"list_trainee_weights", map[string]any{"traineeId": b.TraineeID}},
		{"list_trainee_subscriptions", map[string]any{"traineeId": b.TraineeID}},
		{"update_trainee", map[string]any{"traineeId": b.TraineeID, "goal": "hijacked"}},
		{"assign_plan", map[string]any{"traineeId": b.TraineeID, "productId": b.ProductID}},
		{"assign_plan", map[string]any{"traineeId": f.A.TraineeID, "productId": b.ProductID}},
		{"assign_program", map[string]any{"traineeId": f.A.TraineeID, "templateId": b.TemplateID}},
		{"send_form", map[string]any{"traineeId": f.A.TraineeID, "formTemplateId": b.FormID}},
		{"send_form", map[string]any{"traineeId": b.TraineeID, "formTemplateId": b.FormID}},
		{"create_task", map[string]any{"title": "x", "clientId": b.TraineeID}},
		{"create_task", map[string]any{"title": "x", "coachId": b.CoachID}},
		{"update_task", map[string]any{"taskId": b.TaskID, "status": "done"}},
		{"log_weight", map[string]any{"traineeId": b.TraineeID, "weightKg": 60}},
	}
	for _, c := range calls {
		res := mcptest.Call(t, cs, c.tool, c.args)
		body := mcptest.Text(res)
		if !res.IsError {
			t.Errorf("%s %v reached studio B: %s", c.tool, c.args, body)
		}
		// The studio's name, not its slug: "bet" can occur inside a random id.
		if strings.Contains(body, b.TraineeLastName) || strings.Contains(body, b.Name) || strings.Contains(body, "forbidden") {
			t.Errorf("%s leaks studio B: %s", c.tool, body)
		}
	}
	// Lists with A's key show none of B's rows.
	for _, tool := range []string{"search_trainees", "list_plans", "list_program_templates", "list_forms", "list_coaches", "list_tags", "list_tasks"} {
		body := mcptest.Text(mcptest.Call(t, cs, tool, map[string]any{}))
		for _, id := range []string{b.TraineeID, b.ProductID, b.TemplateID, b.FormID, b.CoachID, b.TaskID} {
			if strings.Contains(body, id) {
				t.Errorf("%s with A's key lists B's %s", tool, id)
			}
		}
	}
	// And B's data is as it was.
	csB := mcptest.Connect(t, f.URL+"/mcp", b.Key)
	if body := mcptest.Text(mcptest.Call(t, csB, "get_trainee", map[string]any{"traineeId": b.TraineeID})); strings.Contains(body, "hijacked") {
		t.Errorf("B's trainee was changed through A's key: %s", body)
	}
}

// TestInProcessAndTCPLaneAnswerAlike runs the same reads through /mcp (lane
// in process) and /mcp-tcp (lane over loopback).
func TestInProcessAndTCPLaneAnswerAlike(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	inProc := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	overTCP := mcptest.Connect(t, f.URL+"/mcp-tcp", f.A.Key)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_trainee", map[string]any{"traineeId": f.A.TraineeID}},
		{"get_trainee", map[string]any{"traineeId": f.B.TraineeID}},
		{"list_plans", map[string]any{}},
	} {
		x, y := mcptest.Call(t, inProc, c.tool, c.args), mcptest.Call(t, overTCP, c.tool, c.args)
		if x.IsError != y.IsError || mcptest.Text(x) != mcptest.Text(y) {
			t.Errorf("%s: in process %v %s\nover TCP %v %s", c.tool, x.IsError, mcptest.Text(x), y.IsError, mcptest.Text(y))
		}
	}
}

// Tool calls go through the lane's audit with source mcp, like any API call.
func TestToolCallsAreAuditedAsMCP(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.A.TraineeID})
	mcptest.Call(t, cs, "create_task", map[string]any{"title": "Audited", "clientId": f.A.TraineeID})
	f.Audit.Flush()
	ctx := context.Background()
	studio, err := f.Store.StudioBySlug(ctx, f.A.Slug)
	if err != nil {
		t.Fatal(err)
	}
	events, err := f.Store.ListAudit(ctx, studio.ID, store.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, e := range events.Items {
		if e.Source == "mcp" {
			seen[e.Route] = e.ResourceID
		}
	}
	if seen["GET /v1/automation/trainees/{id}"] != f.A.TraineeID {
		t.Errorf("get_trainee not audited as mcp with its trainee: %v", seen)
	}
	if _, ok := seen["POST /v1/automation/tasks"]; !ok {
		t.Errorf("create_task not audited as mcp: %v", seen)
	}
}

// Tool calls count against the lane's limiter; the model reads the lane's
// sentence when the key is over its limit.
func TestToolCallsPassTheLanesLimiter(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	limited := areas.Lane(lane.Options{Store: f.Store, Limiter: ratelimit.NewMemory(3, time.Minute), Logger: mcptest.Quiet()})
	srv := httptest.NewServer(mcpserver.New(mcpserver.Options{
		Client: laneclient.New("http://perform.internal", laneclient.HandlerTransport(limited), "mcp"),
	}))
	defer srv.Close()
	cs := mcptest.Connect(t, srv.URL, f.A.Key)
	for i := range 3 {
		if res := mcptest.Call(t, cs, "list_tags", nil); res.IsError {
			t.Fatalf("call %d: %s", i+1, mcptest.Text(res))
		}
	}
	res := mcptest.Call(t, cs, "list_tags", nil)
	if !res.IsError || !strings.Contains(mcptest.Text(res), "Too many requests") {
		t.Fatalf("fourth call: %v %s", res.IsError, mcptest.Text(res))
	}
	// The structured error says when to try again, in the lane's Retry-After.
	if e := structuredError(t, res); e.Error.Code != "RATE_LIMITED" || e.Error.RetryAfterSeconds < 1 || e.Error.RetryAfterSeconds > 60 || e.Error.Message != mcptest.Text(res) {
		t.Fatalf("fourth call's structured error: %+v", e)
	}
}

// The hosted endpoint counts tool calls by tool and outcome.
// Not parallel: the counter is the process's, and the package's parallel
// tests make the same call (another studio's trainee); they start only
// after the sequential tests are done.
func TestToolCallsAreCountedInMetrics(t *testing.T) {
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	before := toolCalls(t, "get_trainee", "lane_error")
	mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.B.TraineeID})
	mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.B.TraineeID})
	if got := toolCalls(t, "get_trainee", "lane_error"); got != before+2 {
		t.Fatalf("perform_mcp_tool_calls_total{get_trainee,lane_error} went from %v to %v, want +2", before, got)
	}
}

func toolCalls(t *testing.T, tool, outcome string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "perform_mcp_tool_calls_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["tool"] == tool && labels["outcome"] == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

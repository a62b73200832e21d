package tools_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/tools"
)

// traineeTable is the trainee set as issue 12 lists it: name, route, scope.
var traineeTable = []struct{ name, route, scope string }{
	{"get_training_overview", "GET /trainees/{id}/overview", auth.ScopeTrainingRead},
	{"list_sessions", "GET /trainees/{id}/sessions", auth.ScopeTrainingRead},
	{"get_session_details", "GET /sessions/{id}", auth.ScopeTrainingRead},
	{"log_workout", "POST /trainees/{id}/workouts", auth.ScopeTrainingWrite},
	{"create_planned_session", "POST /trainees/{id}/sessions", auth.ScopeTrainingWrite},
	{"modify_training_session", "POST /sessions/{id}/modify", auth.ScopeTrainingWrite},
	{"swap_exercise", "POST /sessions/{id}/modify", auth.ScopeTrainingWrite},
	{"get_active_program", "GET /trainees/{id}/programs/active", auth.ScopeTrainingRead},
	{"list_programs", "GET /trainees/{id}/programs", auth.ScopeTrainingRead},
	{"get_benchmarks", "GET /trainees/{id}/benchmarks", auth.ScopeTrainingRead},
	{"record_benchmark", "POST /trainees/{id}/benchmarks", auth.ScopeTrainingWrite},
	{"get_body_analysis", "GET /trainees/{id}/body-analysis", auth.ScopeHealthRead},
	{"log_weight", "POST /trainees/{id}/weights", auth.ScopeHealthWrite},
	{"log_measurement", "POST /trainees/{id}/measurements", auth.ScopeHealthWrite},
	{"daily_check_in", "POST /trainees/{id}/check-ins", auth.ScopeHealthWrite},
	{"record_injury", "POST /trainees/{id}/injuries", auth.ScopeHealthWrite},
	{"manage_goals", "POST /trainees/{id}/goals/manage", auth.ScopeTrainingWrite},
	{"get_coach_insight", "GET /trainees/{id}/insights", auth.ScopeCoachRead},
	{"get_weekly_debrief", "GET /trainees/{id}/debrief", auth.ScopeCoachRead},
	{"search_training_resources", "GET /training-resources", auth.ScopeCoachRead},
	{"get_onboarding_status", "GET /trainees/{id}/training-profile", auth.ScopeProfileRead},
	{"update_training_profile", "PATCH /trainees/{id}/training-profile", auth.ScopeTrainingWrite},
	{"log_feedback", "POST /trainees/{id}/feedback", auth.ScopeTrainingWrite},
	{"get_my_plan", "GET /trainees/{id}/plan", auth.ScopeProfileRead},
	{"get_my_billing", "GET /trainees/{id}/billing", auth.ScopeProfileRead},
	{"list_my_forms", "GET /trainees/{id}/forms", auth.ScopeProfileRead},
	{"answer_form", "POST /trainees/{id}/form-responses", auth.ScopeTrainingWrite},
	{"list_my_appointments", "GET /trainees/{id}/appointments", auth.ScopeTrainingRead},
	{"book_appointment", "POST /trainees/{id}/appointments", auth.ScopeTrainingWrite},
	{"cancel_appointment", "POST /appointments/{id}/cancel", auth.ScopeTrainingWrite},
	{"move_appointment", "POST /appointments/{id}/move", auth.ScopeTrainingWrite},
	{"generate_weekly_plan", "POST /trainees/{id}/plan-drafts", auth.ScopeTrainingWrite},
}

func TestTheTraineeSetIsTheTable(t *testing.T) {
	set := tools.Trainee()
	if len(set) != len(traineeTable) {
		t.Fatalf("the trainee set has %d tools; want %d", len(set), len(traineeTable))
	}
	for i, want := range traineeTable {
		tl := set[i]
		if tl.Name != want.name || tl.Method+" "+tl.Path != want.route || tl.Scope != want.scope {
			t.Errorf("trainee tool %d is %s (%s %s, %s); want %s (%s, %s)", i, tl.Name, tl.Method, tl.Path, tl.Scope, want.name, want.route, want.scope)
		}
		if tl.ReadOnly != strings.HasSuffix(tl.Scope, ":read") {
			t.Errorf("%s: readOnly %v with the scope %s", tl.Name, tl.ReadOnly, tl.Scope)
		}
		if tl.Description == "" || tl.Title == "" {
			t.Errorf("%s has no description or title", tl.Name)
		}
	}
}

// Every trainee tool derives from its lane route, read from the lane
// itself, and every route that names a trainee tool has it: the same
// method, path and trainee scope, for every shared field the same type and
// bounds, and nothing left out but the fields a tool forces (swap_exercise
// is modify's swap_exercise operation alone).
func TestEveryTraineeToolMatchesItsLaneRoute(t *testing.T) {
	routes := map[string]lane.Contract{}
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		for _, name := range c.TraineeTools {
			if _, dup := routes[name]; dup {
				t.Errorf("two lane routes name the trainee tool %s", name)
			}
			routes[name] = c
		}
	}
	leftOut := map[string][]string{
		"swap_exercise":    {"date", "loadPercent", "operation", "percent", "rpeIncrease", "startTime"},
		"answer_form":      {"formTemplateId", "submittedAt"},           // the assignment names the form; answered now
		"book_appointment": {"coachId", "lengthMin", "place", "slotId"}, // her coach, at a time: the coach's tools name slots
		"move_appointment": {"coachId", "lengthMin", "place", "slotId"}, // as book_appointment: the appointment's coach, at a time
	}
	for _, tool := range tools.Trainee() {
		rt, ok := routes[tool.Name]
		if !ok {
			t.Errorf("%s: no lane route names it", tool.Name)
			continue
		}
		delete(routes, tool.Name)
		if rt.Method != tool.Method || rt.Path != tool.Path || rt.TraineeScope != tool.Scope {
			t.Errorf("%s calls %s %s with %s; the lane serves it at %s %s with the trainee scope %q", tool.Name, tool.Method, tool.Path, tool.Scope, rt.Method, rt.Path, rt.TraineeScope)
		}
		for _, name := range []string{"traineeId", "clientId"} {
			if tool.InputSchema.Properties[name] != nil {
				t.Errorf("%s takes a %s: a trainee tool acts on the caller only", tool.Name, name)
			}
		}
		left := fieldsLeftOut(t, tool, rt.Input)
		if want := leftOut[tool.Name]; !slices.Equal(left, want) {
			t.Errorf("%s leaves out %v of its route's fields; want %v", tool.Name, left, want)
		}
		for _, r := range rt.Input.Required {
			if !slices.Contains(tool.InputSchema.Required, r) && !slices.Contains(leftOut[tool.Name], r) {
				t.Errorf("%s: %s is required by the lane, optional for the tool", tool.Name, r)
			}
		}
	}
	for name := range routes {
		t.Errorf("a lane route names the trainee tool %s, which the trainee set does not have", name)
	}
}

// A /trainees/{id}/… tool calls its route for "me"; a record tool fills
// the record's id; swap_exercise always sends operation swap_exercise.
func TestTraineeToolsCallTheirRoutes(t *testing.T) {
	for _, tl := range tools.Trainee() {
		if !strings.HasPrefix(tl.Path, "/trainees/{id}/") || len(tl.InputSchema.Required) > 0 {
			continue
		}
		r, err := tl.Build(json.RawMessage(`{}`))
		if err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		if want := strings.Replace(tl.Path, "{id}", tools.MePath, 1); r.Path != want || r.Method != tl.Method {
			t.Errorf("%s calls %s %s; want %s %s", tl.Name, r.Method, r.Path, tl.Method, want)
		}
	}
	swap, _ := tools.TraineeByName("swap_exercise")
	session := "ses_01jd0000000000000000000000"
	r, err := swap.Build(json.RawMessage(`{"sessionId":"` + session + `","exerciseId":"back-squat"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(r.Body)
	if r.Path != "/sessions/"+session+"/modify" || !strings.Contains(string(body), `"operation":"swap_exercise"`) || !strings.Contains(string(body), `"exerciseId":"back-squat"`) {
		t.Fatalf("swap_exercise calls %s %s", r.Path, body)
	}
	if _, err := swap.Build(json.RawMessage(`{"sessionId":"` + session + `"}`)); err == nil || !strings.Contains(err.Error(), "exerciseId") {
		t.Fatalf("swap_exercise without exerciseId: %v", err)
	}
	if _, err := swap.Build(json.RawMessage(`{"sessionId":"` + session + `","exerciseId":"back-squat","operation":"reschedule"}`)); err == nil {
		t.Fatal("swap_exercise took an operation")
	}
	details, _ := tools.TraineeByName("get_session_details")
	_, err = details.Build(json.RawMessage(`{"sessionId":"trn_01jd0000000000000000000000"}`))
	if err == nil || !strings.Contains(err.Error(), "list_sessions") || strings.Contains(err.Error(), "list_trainee_sessions") {
		t.Fatalf("a trainee id as sessionId: %v", err)
	}
}

// Names repeat across the sets (log_workout is in both) but each set is
// looked up on its own: the coach log_workout takes a traineeId, the
// trainee's does not.
func TestTheSetsAreSeparate(t *testing.T) {
	coach, ok1 := tools.ByName("log_workout")
	mine, ok2 := tools.TraineeByName("log_workout")
	if !ok1 || !ok2 || coach.InputSchema.Properties["traineeId"] == nil || mine.InputSchema.Properties["traineeId"] != nil || coach.Scope != auth.ScopeStudioWrite || mine.Scope != auth.ScopeTrainingWrite {
		t.Fatalf("coach log_workout %v %s, trainee log_workout %v %s", ok1, coach.Scope, ok2, mine.Scope)
	}
	if _, ok := tools.TraineeByName("search_trainees"); ok {
		t.Fatal("the trainee set has search_trainees")
	}
}

// No trainee tool points the model at a coach tool it does not have: not
// in its description, not in any argument's (nested ones included, which
// come from the lane).
func TestTraineeToolsNameOnlyTraineeTools(t *testing.T) {
	mine := map[string]bool{}
	for _, tl := range tools.Trainee() {
		mine[tl.Name] = true
	}
	var coachOnly []string
	for _, tl := range tools.All() {
		if !mine[tl.Name] {
			coachOnly = append(coachOnly, regexp.QuoteMeta(tl.Name))
		}
	}
	named := regexp.MustCompile(`\b(` + strings.Join(coachOnly, "|") + `)\b`)
	for _, tl := range tools.Trainee() {
		b, _ := json.Marshal(struct {
			D string
			S any
		}{tl.Description, tl.InputSchema})
		if m := named.FindString(string(b)); m != "" {
			t.Errorf("trainee tool %s names the coach tool %s", tl.Name, m)
		}
	}
}

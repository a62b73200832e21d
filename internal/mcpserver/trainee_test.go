package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/views"
)

// traineeWorld is the fixture with a trainee of studio A connected through
// the real authorization code flow, and records of theirs and of another
// trainee (the same studio) to read.
type traineeWorld struct {
	f              *mcptest.Fixture
	token          string // every trainee scope
	sessionID      string // the trainee's logged workout
	otherSessionID string // another trainee's, same studio
}

func newTraineeWorld(t *testing.T) *traineeWorld {
	t.Helper()
	f := mcptest.New(t)
	w := &traineeWorld{f: f, token: f.TraineeToken(t, f.A, f.A.TraineeID, "")}
	w.sessionID = logWorkout(t, f, f.A.Key, f.A.TraineeID)
	w.otherSessionID = logWorkout(t, f, f.A.Key, f.A.OtherTraineeID)
	f.Create(t, f.A.Key, "/trainees/"+f.A.TraineeID+"/benchmarks", map[string]any{"name": "Back squat 1RM", "unit": "kg", "direction": "higher", "value": 120})
	return w
}

func logWorkout(t *testing.T, f *mcptest.Fixture, key, traineeID string) string {
	t.Helper()
	data, err := f.App.Do(context.Background(), key, tools.Request{Method: http.MethodPost, Path: "/trainees/" + traineeID + "/workouts", Body: map[string]any{
		"sport": "strength", "durationMin": 45, "rpe": 7,
		"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 100}}}},
	}})
	if err != nil {
		t.Fatalf("log a workout: %v", err)
	}
	var out struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Session.ID == "" {
		t.Fatalf("log a workout: %s", data)
	}
	return out.Session.ID
}

func (w *traineeWorld) connect(t *testing.T, token string) *mcp.ClientSession {
	return mcptest.Connect(t, w.f.URL+mcptest.GatedPath, token)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// namesOf is the names of a set, sorted as tools/list answers them.
func namesOf(set []tools.Tool) []string {
	var names []string
	for _, t := range set {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

// A trainee's connection lists the trainee set and nothing of the coach
// set; a studio key behind the same gate lists the coach set and nothing of
// the trainee set.
func TestATraineeSeesOnlyTheTraineeSet(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	got := toolNames(t, w.connect(t, w.token))
	if want := namesOf(tools.Trainee()); !slices.Equal(got, want) {
		t.Fatalf("a trainee with every trainee scope lists %v; want the trainee set %v", got, want)
	}
	coach := toolNames(t, w.connect(t, w.f.A.Key))
	if want := namesOf(tools.All()); !slices.Equal(coach, want) {
		t.Fatalf("a studio key lists %v; want the coach set", coach)
	}
	for _, name := range []string{"get_training_overview", "list_my_forms", "get_my_plan", "swap_exercise"} {
		if slices.Contains(coach, name) {
			t.Errorf("a studio key sees the trainee tool %s", name)
		}
	}
	for _, name := range []string{"search_trainees", "create_trainee", "list_coaches", "needs_attention"} {
		if slices.Contains(got, name) {
			t.Errorf("a trainee sees the coach tool %s", name)
		}
	}
	// Resources and prompts are the trainee server's: a studio key lists
	// only the views of its tools (ui://), no document of the trainee's.
	coachSession := w.connect(t, w.f.A.Key)
	if r, err := coachSession.ListResources(context.Background(), nil); err != nil || len(r.Resources) != 4 {
		t.Errorf("a studio key lists resources %v (%v), want its 4 views", r, err)
	} else {
		for _, res := range r.Resources {
			if !strings.HasPrefix(res.URI, "ui://perform/") {
				t.Errorf("a studio key lists the resource %s", res.URI)
			}
		}
	}
	if p, err := coachSession.ListPrompts(context.Background(), nil); err != nil || len(p.Prompts) != 0 {
		t.Errorf("a studio key lists prompts %v (%v)", p, err)
	}
	// A coach tool called by name is not there for a trainee.
	_, err := w.connect(t, w.token).CallTool(context.Background(), &mcp.CallToolParams{Name: "search_trainees", Arguments: map[string]any{"q": "a"}})
	if err == nil || !strings.Contains(err.Error(), "search_trainees") {
		t.Fatalf("a trainee called search_trainees: %v", err)
	}
}

// A grant of training:read alone lists only the tools that scope allows
// (no log_workout), and calling log_workout anyway is refused before the
// SDK with an insufficient_scope challenge naming training:write.
func TestATrainingReadGrantCannotLogAWorkout(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	token := w.f.TraineeToken(t, w.f.A, w.f.A.TraineeID, auth.ScopeTrainingRead)
	got := toolNames(t, w.connect(t, token))
	var want []string
	for _, tl := range tools.Trainee() {
		if tl.Scope == auth.ScopeTrainingRead {
			want = append(want, tl.Name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) == 0 || slices.Contains(got, "log_workout") {
		t.Fatalf("a training:read grant lists %v; want %v", got, want)
	}
	a := post(t, http.MethodPost, w.f.URL+mcptest.GatedPath, token,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log_workout","arguments":{"sport":"running","durationMin":30}}}`, nil)
	challenge := a.header.Get("WWW-Authenticate")
	if a.status != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, `scope="training:write"`) ||
		a.Error == nil || !strings.Contains(a.Error.Message, "training:write") {
		t.Fatalf("log_workout with training:read: %d %q %+v", a.status, challenge, a.Error)
	}
	// The same name in the coach set needs studio:write: the trainee's
	// challenge is the trainee set's scope, never the coach's.
	if strings.Contains(challenge, "studio:") {
		t.Fatalf("the challenge names a coach scope: %q", challenge)
	}
}

// A trainee's call reads their own data; another trainee's session is not
// found, answered with the lane's sentence and the structured error.
func TestATraineeToolCallAndItsStructuredError(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	cs := w.connect(t, w.token)
	res := mcptest.Call(t, cs, "get_session_details", map[string]any{"sessionId": w.sessionID})
	if res.IsError || !strings.Contains(mcptest.Text(res), w.sessionID) || res.StructuredContent == nil {
		t.Fatalf("get_session_details of the trainee's own session: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "get_session_details", map[string]any{"sessionId": w.otherSessionID})
	if !res.IsError {
		t.Fatalf("another trainee's session was answered: %s", mcptest.Text(res))
	}
	e := structuredError(t, res)
	if e.Error.Code != "NOT_FOUND" || e.Error.Message != mcptest.Text(res) || e.Error.Message == "" {
		t.Fatalf("structured error %+v for text %q", e, mcptest.Text(res))
	}
	// A wrong kind of id is refused before any call, naming the trainee
	// tool that gives session ids.
	res = mcptest.Call(t, cs, "get_session_details", map[string]any{"sessionId": w.f.A.TraineeID})
	if e := structuredError(t, res); !res.IsError || e.Error.Code != "INVALID_ARGUMENTS" || !strings.Contains(e.Error.Message, "list_sessions") {
		t.Fatalf("a trainee id as sessionId: %+v", e)
	}
}

// The coach set answers errors the same way.
func TestACoachToolErrorIsStructured(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	res := mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.B.TraineeID})
	e := structuredError(t, res)
	if !res.IsError || e.Error.Code != "NOT_FOUND" || e.Error.Message != mcptest.Text(res) || e.Error.RetryAfterSeconds != 0 {
		t.Fatalf("studio B's trainee with studio A's key: %+v", e)
	}
}

func structuredError(t *testing.T, res *mcp.CallToolResult) toolset.ErrorContent {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var e toolset.ErrorContent
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return e
}

// The trainee server's resources: two documents and two templates, each
// read through the lane with the trainee's own token, and the views of its
// tools (ui://perform/…, from the binary).
func TestTraineeResources(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	cs := w.connect(t, w.token)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if !slices.Equal(uris, []string{toolset.PersonaURI, toolset.MethodologiesURI, views.Benchmarks, views.BodyTrend, views.WeekAdherence}) {
		t.Fatalf("resources %v", uris)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tpls []string
	for _, r := range templates.ResourceTemplates {
		tpls = append(tpls, r.URITemplate)
	}
	slices.Sort(tpls)
	if !slices.Equal(tpls, []string{toolset.ProgramTemplateURI, toolset.SessionTemplateURI}) {
		t.Fatalf("resource templates %v", tpls)
	}
	for _, uri := range []string{toolset.PersonaURI, toolset.MethodologiesURI, "perform://sessions/" + w.sessionID} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || !json.Valid([]byte(res.Contents[0].Text)) || len(res.Contents[0].Text) < 20 {
			t.Fatalf("read %s: %+v", uri, res.Contents)
		}
	}
	// Another trainee's session, and an id that names nothing, are not found.
	for _, uri := range []string{"perform://sessions/" + w.otherSessionID, "perform://sessions/..", "perform://programs/prg_x"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Fatalf("read %s: answered", uri)
		}
	}
}

// The prompts name their arguments and frame the data they pulled.
func TestTraineePrompts(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	cs := w.connect(t, w.token)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string][]string{}
	for _, p := range list.Prompts {
		args[p.Name] = []string{}
		for _, a := range p.Arguments {
			args[p.Name] = append(args[p.Name], a.Name)
		}
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
	}
	want := map[string][]string{"weekly_plan_review": {}, "session_debrief": {"sessionId"}, "benchmark_check_in": {"benchmark"}}
	if len(args) != len(want) {
		t.Fatalf("prompts %v; want %v", args, want)
	}
	for name, a := range want {
		if got, ok := args[name]; !ok || !slices.Equal(got, a) {
			t.Fatalf("prompt %s has arguments %v; want %v", name, got, a)
		}
	}
	text := func(name string, a map[string]string) string {
		t.Helper()
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatalf("get %s: %v", name, err)
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
			t.Fatalf("get %s: %+v", name, res.Messages)
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text
	}
	review := text("weekly_plan_review", nil)
	for _, part := range []string{"This week's schedule", "Last week: completion", "Fatigue", "perform://coach/persona"} {
		if !strings.Contains(review, part) {
			t.Errorf("weekly_plan_review lacks %q:\n%s", part, review)
		}
	}
	// The debrief defaults to the latest completed session: the trainee's own.
	if d := text("session_debrief", nil); !strings.Contains(d, w.sessionID) || strings.Contains(d, w.otherSessionID) {
		t.Errorf("session_debrief without an id:\n%s", d)
	}
	if d := text("session_debrief", map[string]string{"sessionId": w.otherSessionID}); !strings.Contains(d, "not available") {
		t.Errorf("session_debrief of another trainee's session:\n%s", d)
	}
	if b := text("benchmark_check_in", map[string]string{"benchmark": "back squat 1rm"}); !strings.Contains(b, "120") {
		t.Errorf("benchmark_check_in:\n%s", b)
	}
	if b := text("benchmark_check_in", map[string]string{"benchmark": "Deadlift"}); !strings.Contains(b, "Back squat 1RM") {
		t.Errorf("benchmark_check_in of an unknown benchmark names none of the existing ones:\n%s", b)
	}
}

// The trainee catalogue fits its budget, measured as the coach's is.
func TestTraineeToolsListFitsTheBudget(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	res, err := w.connect(t, w.token).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tokens := len(b) / 4
	t.Logf("trainee tools/list: %d tools, %d characters, about %d tokens (budget %d)", len(res.Tools), len(b), tokens, traineeCatalogueBudget)
	if len(res.Tools) != len(tools.Trainee()) {
		t.Errorf("the trainee set has %d tools; want %d", len(res.Tools), len(tools.Trainee()))
	}
	if tokens > traineeCatalogueBudget {
		t.Errorf("the trainee tools/list is about %d tokens, over the budget of %d: shorten descriptions or drop arguments", tokens, traineeCatalogueBudget)
	}
}

// Every trainee read that needs no argument answers the trainee's own
// data (the get_active_program of a trainee without a program is the
// lane's sentence saying so).
func TestEveryArgumentFreeTraineeReadAnswers(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	cs := w.connect(t, w.token)
	for _, tl := range tools.Trainee() {
		if !tl.ReadOnly || len(tl.InputSchema.Required) > 0 {
			continue
		}
		res := mcptest.Call(t, cs, tl.Name, map[string]any{})
		if res.IsError && (tl.Name != "get_active_program" || structuredError(t, res).Error.Code != "NOT_FOUND") {
			t.Errorf("%s: %s", tl.Name, mcptest.Text(res))
		}
		if !res.IsError && res.StructuredContent == nil {
			t.Errorf("%s answered no structuredContent: %s", tl.Name, mcptest.Text(res))
		}
	}
}

// A trainee plans a session, swaps one of its exercises (swap_exercise is
// modify's swap alone) and logs it done: three writes on their own data.
func TestATraineePlansSwapsAndLogs(t *testing.T) {
	t.Parallel()
	w := newTraineeWorld(t)
	cs := w.connect(t, w.token)
	res := mcptest.Call(t, cs, "create_planned_session", map[string]any{"date": time.Now().Format(time.DateOnly), "sport": "strength",
		"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}}})
	if res.IsError {
		t.Fatalf("create_planned_session: %s", mcptest.Text(res))
	}
	var planned struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(mcptest.Text(res)), &planned); err != nil || planned.ID == "" {
		t.Fatalf("create_planned_session answered %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "swap_exercise", map[string]any{"sessionId": planned.ID, "exerciseId": "back-squat", "replacementId": "front-squat"})
	if res.IsError || !strings.Contains(mcptest.Text(res), `"operation":"swap_exercise"`) || !strings.Contains(mcptest.Text(res), "front-squat") {
		t.Fatalf("swap_exercise: %s", mcptest.Text(res))
	}
	res = mcptest.Call(t, cs, "log_workout", map[string]any{"sessionId": planned.ID, "durationMin": 40,
		"exercises": []map[string]any{{"exerciseId": "front-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 80}}}}})
	if res.IsError || !strings.Contains(mcptest.Text(res), planned.ID) {
		t.Fatalf("log_workout: %s", mcptest.Text(res))
	}
	// Another trainee's session cannot be swapped.
	res = mcptest.Call(t, cs, "swap_exercise", map[string]any{"sessionId": w.otherSessionID, "exerciseId": "back-squat"})
	if !res.IsError || structuredError(t, res).Error.Code != "NOT_FOUND" {
		t.Fatalf("swap_exercise on another trainee's session: %s", mcptest.Text(res))
	}
	// The lane's sentence says where session ids come from in the
	// trainee's own tools, never in a coach tool the trainee does not have.
	said := mcptest.Text(res)
	if !strings.Contains(said, "list_sessions") || strings.Contains(said, "list_trainee_sessions") {
		t.Fatalf("the not-found sentence points the trainee at: %s", said)
	}
}

package traineetest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/demo"
	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// demoPhone is נועה כהן's, the demo's first trainee: active, on a
// program, with a coach and months of training.
const demoPhone = "+972503000000"

// demoWorld is a world over the demo studio, and its trainee whose phone
// is demoPhone.
type demoWorld struct {
	*world
	studio domain.Studio
	ss     store.StudioStore
	me     domain.Trainee
	others []domain.Trainee // the studio's other trainees
}

func newDemoWorld(t *testing.T, env map[string]string) *demoWorld {
	t.Helper()
	w := newWorldOn(t, demotest.FileAt(t, demotest.Now()), demotest.Now(), env)
	studio, err := w.st.StudioBySlug(context.Background(), demo.Slug)
	if err != nil {
		t.Fatal(err)
	}
	d := &demoWorld{world: w, studio: studio, ss: w.st.Studio(studio.ID)}
	all, err := d.ss.SearchTrainees(context.Background(), store.TraineeFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range all.Items {
		if tr.Phone == demoPhone {
			d.me = tr
		} else {
			d.others = append(d.others, tr)
		}
	}
	if d.me.ID == "" {
		t.Fatalf("the demo has no trainee with phone %s", demoPhone)
	}
	return d
}

// coachTools are coach tools a trainee must never be shown.
var coachTools = []string{"search_trainees", "find_trainee_by_phone", "get_trainee", "list_coaches", "create_task", "assign_plan", "send_form", "needs_attention"}

func TestEveryTraineeToolAnswersOnTheDemo(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	cs := d.connect(d.token(demoPhone, ""))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if slices.Contains(coachTools, tool.Name) {
			t.Errorf("a trainee is shown the coach tool %s", tool.Name)
		}
		if b, _ := json.Marshal(tool.InputSchema); strings.Contains(string(b), `"traineeId"`) {
			t.Errorf("%s takes a traineeId; a trainee tool acts on the caller", tool.Name)
		}
	}
	calls := plan(t, cs, d.clock.Now())
	// The answers are the caller's: the session read is hers, and the
	// workout logged is in her history with the trainee as its source.
	for _, c := range calls {
		if c.tool == "get_session_details" {
			s, err := d.ss.GetSession(context.Background(), c.args["sessionId"].(string))
			if err != nil || s.TraineeID != d.me.ID {
				t.Errorf("get_session_details read %v of %s (%v), not the caller's", c.args["sessionId"], s.TraineeID, err)
			}
		}
	}
	logged, err := d.ss.ListSessions(context.Background(), store.SessionFilter{TraineeID: d.me.ID, From: d.clock.Now().Format("2006-01-02"), Status: "completed"})
	if err != nil || !slices.ContainsFunc(logged.Items, func(s domain.Session) bool { return s.Title == "Upper body" }) {
		t.Fatalf("the logged workout is not in the trainee's history: %+v %v", logged.Items, err)
	}
	for _, s := range logged.Items {
		if s.Title == "Upper body" && s.Source != "trainee" {
			t.Errorf("a workout the trainee logged has source %q, want trainee", s.Source)
		}
	}
}

// personalData is every phone, email and other person's name of the
// studio as they could appear in an answer to me: coaches' names, phones
// and emails, the other trainees' full names, phones and emails, and my
// own phone and email (identifiers are redacted for everyone).
func (d *demoWorld) personalData(t *testing.T) []string {
	t.Helper()
	coaches, err := d.ss.ListCoaches(context.Background(), store.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	phone := func(p string) {
		if !strings.HasPrefix(p, "+972") || len(p) < 12 {
			out = append(out, p)
			return
		}
		local := "0" + p[4:] // 0501234567
		out = append(out, p, p[1:], local, local[:3]+"-"+local[3:6]+"-"+local[6:], local[:3]+"-"+local[3:])
	}
	for _, c := range coaches.Items {
		out = append(out, c.Name)
		if c.Phone != nil {
			phone(*c.Phone)
		}
		if c.Email != nil {
			out = append(out, *c.Email)
		}
	}
	for _, tr := range append(slices.Clone(d.others), d.me) {
		if tr.ID != d.me.ID {
			out = append(out, tr.FirstName+" "+tr.LastName)
		}
		phone(tr.Phone)
		if tr.Email != nil {
			out = append(out, *tr.Email)
		}
	}
	return out
}

var (
	anyEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+`)
	anyPhone = regexp.MustCompile(`\+972\d{8,9}|\b0[5-9]\d-?\d{3}-?\d{4}\b`)
)

// leaks names what of personal an answer holds.
func leaks(answer string, personal []string) []string {
	var found []string
	for _, p := range personal {
		if p != "" && strings.Contains(answer, p) {
			found = append(found, p)
		}
	}
	found = append(found, anyEmail.FindAllString(answer, -1)...)
	return append(found, anyPhone.FindAllString(answer, -1)...)
}

func TestTraineeAnswersHoldNoPhoneEmailOrOtherPerson(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	cs := d.connect(d.token(demoPhone, ""))
	personal := d.personalData(t)
	if len(personal) < 100 {
		t.Fatalf("only %d personal strings collected from the demo", len(personal))
	}
	check := func(what, answer string) {
		t.Helper()
		if found := leaks(answer, personal); len(found) > 0 {
			t.Errorf("%s answers personal data %q: %.600s", what, found, answer)
		}
	}
	for _, c := range plan(t, cs, d.clock.Now()) {
		check(c.tool, answer(c.result)+text(c.result))
	}
	// Free text is scrubbed too: a coach's note on the trainee's session
	// with an email and a phone in it reaches the trainee redacted.
	key := d.studioKey(d.studio.ID)
	status, body := d.lane(key, "POST", "/trainees/"+d.me.ID+"/sessions", map[string]any{"date": d.clock.Now().AddDate(0, 0, 4).Format("2006-01-02"),
		"sport": "running", "title": "Easy run", "notes": "Questions? Write to dana@perform.example or call 050-123-4567."})
	if status != http.StatusCreated {
		t.Fatalf("the coach's session: %d %s", status, body)
	}
	noted := sessionID.FindString(string(body))
	got := mustOK(t, cs, "get_session_details", map[string]any{"sessionId": noted})
	check("get_session_details of a session with a coach's note", got)
	if !strings.Contains(got, "[REDACTED]") || !strings.Contains(got, "Questions? Write to") {
		t.Errorf("the note's email and phone are not redacted in place: %s", got)
	}
	for uri, body := range readEveryResource(t, cs, d) {
		check(uri, body)
	}
	for name, body := range getEveryPrompt(t, cs) {
		check("prompt "+name, body)
	}
}

func TestAReadOnlyGrantIsToldTheScopeItLacks(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	readOnly := d.token(demoPhone, "training:read")
	cs := d.connect(readOnly)
	if r := call(t, cs, "list_sessions", nil); r.IsError {
		t.Fatalf("a training:read grant cannot list its sessions: %s", text(r))
	}
	before, _ := d.ss.ListSessions(context.Background(), store.SessionFilter{TraineeID: d.me.ID, Page: store.Page{Limit: 1}})
	// The SDK's client sees the refusal as an HTTP error...
	args := map[string]any{"sport": "running", "durationMin": 20}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "log_workout", Arguments: args}); err == nil && !res.IsError {
		t.Fatalf("a training:read grant logged a workout: %s", answer(res))
	}
	// ...which is 403 insufficient_scope naming training:write in the
	// challenge (for the client to ask the person again) and in the body.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log_workout","arguments":{"sport":"running","durationMin":20}}}`
	req, _ := http.NewRequest(http.MethodPost, d.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+readOnly)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	msg, _ := io.ReadAll(res.Body)
	challenge := res.Header.Get("WWW-Authenticate")
	if res.StatusCode != http.StatusForbidden || !strings.Contains(challenge, `error="insufficient_scope"`) || !strings.Contains(challenge, `scope="training:write"`) {
		t.Fatalf("the refusal is %d with WWW-Authenticate %q, want 403 insufficient_scope for training:write", res.StatusCode, challenge)
	}
	if !strings.Contains(string(msg), "training:write") {
		t.Fatalf("the refusal's body does not name training:write: %s", msg)
	}
	after, _ := d.ss.ListSessions(context.Background(), store.SessionFilter{TraineeID: d.me.ID, Page: store.Page{Limit: 1}})
	if after.Total != before.Total {
		t.Fatalf("the refused call wrote a session: %d sessions, were %d", after.Total, before.Total)
	}
	t.Logf("refusal: %s; %s", challenge, msg)
}

var notFound = regexp.MustCompile(`(?i)\bno \w+ with id|not found|does not exist`)

func TestAnotherTraineesIdsAreNotFound(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	ctx := context.Background()
	cs := d.connect(d.token(demoPhone, ""))
	// Another trainee of the same studio with a planned session, a
	// program, a benchmark and a goal.
	var other domain.Trainee
	var planned domain.Session
	var program domain.Program
	var benchmark domain.Benchmark
	var goal domain.Goal
	for _, tr := range d.others {
		ps, _ := d.ss.ListSessions(ctx, store.SessionFilter{TraineeID: tr.ID, Status: "planned", Page: store.Page{Limit: 1}})
		progs, _ := d.ss.ListPrograms(ctx, tr.ID)
		bms, _ := d.ss.ListBenchmarks(ctx, tr.ID)
		goals, _ := d.ss.ListGoals(ctx, tr.ID, "")
		if len(ps.Items) > 0 && len(progs) > 0 && len(bms) > 0 && len(goals) > 0 {
			other, planned, program, benchmark, goal = tr, ps.Items[0], progs[0], bms[0], goals[0]
			break
		}
	}
	if other.ID == "" {
		t.Fatal("the demo has no other trainee with a planned session, a program, a benchmark and a goal")
	}
	planned, err := d.ss.GetSession(ctx, planned.ID) // the list's rows hold no exercises
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		id   string
	}{
		{"get_session_details", map[string]any{"sessionId": planned.ID}, planned.ID},
		{"modify_training_session", map[string]any{"sessionId": planned.ID, "operation": "reschedule", "date": d.clock.Now().AddDate(0, 0, 20).Format("2006-01-02")}, planned.ID},
		{"swap_exercise", map[string]any{"sessionId": planned.ID, "exerciseId": "back-squat"}, planned.ID},
		{"log_workout", map[string]any{"sessionId": planned.ID}, planned.ID},
		{"record_benchmark", map[string]any{"benchmarkId": benchmark.ID, "value": 1}, benchmark.ID},
		{"manage_goals", map[string]any{"action": "complete", "goalId": goal.ID}, goal.ID},
	} {
		r := call(t, cs, c.tool, c.args)
		if !r.IsError || !notFound.MatchString(text(r)) {
			t.Errorf("%s on another trainee's %s: %v %s, want not found", c.tool, c.id, r.IsError, text(r))
		}
		if strings.Contains(text(r), other.FirstName+" "+other.LastName) {
			t.Errorf("%s's refusal names the other trainee: %s", c.tool, text(r))
		}
	}
	for _, uri := range []string{"perform://sessions/" + planned.ID, "perform://programs/" + program.ID} {
		if r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("reading another trainee's %s answered %+v", uri, r.Contents)
		}
	}
	// Nothing of theirs changed.
	after, err := d.ss.GetSession(ctx, planned.ID)
	if err != nil || after.Status != planned.Status || after.Date != planned.Date || !sameExercises(after, planned) {
		t.Errorf("the other trainee's planned session changed: %+v (%v)", after, err)
	}
	if g, _ := d.ss.ListGoals(ctx, other.ID, ""); len(g) == 0 || g[0].Status != goal.Status {
		t.Errorf("the other trainee's goal changed: %+v", g)
	}
	if b, _ := d.ss.GetBenchmark(ctx, benchmark.ID); len(b.Entries) != len(benchmark.Entries) {
		t.Errorf("the other trainee's benchmark got a value: %d entries, were %d", len(b.Entries), len(benchmark.Entries))
	}
}

func sameExercises(a, b domain.Session) bool {
	x, _ := json.Marshal(a.Exercises)
	y, _ := json.Marshal(b.Exercises)
	return string(x) == string(y)
}

func TestAnInjuryReachesTheCoachesAndNoTraineeIsMessaged(t *testing.T) {
	t.Parallel()
	d := newDemoWorld(t, nil)
	ctx := context.Background()
	cs := d.connect(d.token(demoPhone, ""))
	outbox := func() int {
		n, err := d.ss.ListNotifications(ctx, store.Page{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return n.Total
	}
	tasksBefore, err := d.ss.ListTasks(ctx, store.TaskFilter{Page: store.Page{Limit: 500}})
	if err != nil {
		t.Fatal(err)
	}
	sent := outbox()
	plan(t, cs, d.clock.Now()) // every trainee write, record_injury among them
	if n := outbox(); n != sent {
		t.Errorf("the trainee's writes put %d messages in the outbox; a trainee's own tools never message anyone", n-sent)
	}
	tasks, err := d.ss.ListTasks(ctx, store.TaskFilter{Page: store.Page{Limit: 500}})
	if err != nil {
		t.Fatal(err)
	}
	var opened []domain.Task
	for _, tk := range tasks.Items {
		if !slices.ContainsFunc(tasksBefore.Items, func(b domain.Task) bool { return b.ID == tk.ID }) {
			opened = append(opened, tk)
		}
	}
	if len(opened) == 0 {
		t.Fatal("record_injury opened no task for the coach")
	}
	for _, tk := range opened {
		words := tk.Title
		if tk.Detail != nil {
			words += " " + *tk.Detail
		}
		if tk.ClientID == nil || *tk.ClientID != d.me.ID || tk.CoachID == nil || !slices.Contains(d.me.CoachIDs, *tk.CoachID) || !strings.Contains(words, "knee") {
			t.Errorf("the task opened is %+v (%q), want one about the trainee's knee for her coach %v", tk, words, d.me.CoachIDs)
		}
	}
	t.Logf("the coach's task: %s", opened[0].Title)
}

package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

func TestOutcomes(t *testing.T) {
	f := mcptest.New(t)
	ex := executor.New(laneclient.New(f.URL, nil, "mcp"), tools.All())
	ctx := context.Background()
	run := func(key, tool, args, idem string) executor.Result {
		return ex.Run(ctx, executor.Call{Tool: tool, Args: json.RawMessage(args), APIKey: key, IdempotencyKey: idem})
	}

	if r := run(f.A.Key, "list_tags", `{}`, ""); r.Outcome != executor.OK || !strings.Contains(r.Text(), f.A.Tag) || r.Failed() {
		t.Errorf("list_tags: %+v", r)
	}
	if r := run(f.A.Key, "drop_studio", `{}`, ""); r.Outcome != executor.UnknownTool || !strings.Contains(r.Sentence, "search_trainees") {
		t.Errorf("unknown tool: %+v", r)
	}
	if r := run(f.A.Key, "get_trainee", `{}`, ""); r.Outcome != executor.InvalidArguments || !strings.Contains(r.Sentence, "traineeId") {
		t.Errorf("missing id: %+v", r)
	}
	if r := run(f.A.Key, "get_trainee", `{"traineeId":"`+f.B.TraineeID+`"}`, ""); r.Outcome != executor.LaneError || r.Status != 404 || !strings.Contains(r.Sentence, "search_trainees") || !errors.Is(r.Err, laneclient.ErrNotFound) {
		t.Errorf("other studio's trainee: %+v", r)
	}
	wrong := "pf_live_" + strings.Repeat("x", 43)
	if r := run(wrong, "list_tags", `{}`, ""); r.Outcome != executor.Unauthorized || r.Status != 401 || r.Sentence == "" {
		t.Errorf("wrong key: %+v", r)
	}
	down := executor.New(laneclient.New("http://127.0.0.1:1", nil, "mcp"), tools.All())
	if r := down.Run(ctx, executor.Call{Tool: "list_tags", APIKey: f.A.Key}); r.Outcome != executor.Unavailable || !strings.HasSuffix(r.Sentence, ".") {
		t.Errorf("lane down: %+v", r)
	}

	// A write sent twice with the caller's own key is done once.
	args := `{"title":"Call Dana","clientId":"` + f.A.TraineeID + `"}`
	first := run(f.A.Key, "create_task", args, "test:1")
	second := run(f.A.Key, "create_task", args, "test:1")
	if first.Outcome != executor.OK || first.Repeat || second.Outcome != executor.OK || !second.Repeat || string(first.Data) != string(second.Data) {
		t.Errorf("repeated write: first %+v, second %+v", first, second)
	}
}

func TestRepeatConstantsAreTheLanes(t *testing.T) {
	if executor.RepeatPrefix != lane.RepeatKeyPrefix || executor.RepeatWindow != lane.RepeatWindow {
		t.Fatalf("executor %q %v, lane %q %v", executor.RepeatPrefix, executor.RepeatWindow, lane.RepeatKeyPrefix, lane.RepeatWindow)
	}
}

// An identical write (same credential, tool and arguments, however
// formatted) within ten minutes gives back the first answer, marked as a
// repeat, and changes nothing; another key, other arguments or a later
// time write again.
func TestAnIdenticalWriteWithinTenMinutesIsARepeat(t *testing.T) {
	f := mcptest.New(t)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ln := areas.Lane(lane.Options{Store: f.Store, Now: clock})
	ex := executor.New(laneclient.New("http://perform.internal", laneclient.HandlerTransport(ln), "mcp"), tools.All())
	ctx := context.Background()
	run := func(key, args string) executor.Result {
		t.Helper()
		r := ex.Run(ctx, executor.Call{Tool: "create_task", Args: json.RawMessage(args), APIKey: key})
		if r.Outcome != executor.OK {
			t.Fatalf("create_task %s: %+v", args, r)
		}
		return r
	}
	taskID := func(r executor.Result) string {
		var v struct{ ID string }
		_ = json.Unmarshal(r.Data, &v)
		return v.ID
	}
	first := run(f.A.Key, `{"title":"Call Dana","priority":2}`)
	again := run(f.A.Key, `{ "priority": 2, "title": "Call Dana", "detail": null }`)
	if first.Repeat || !again.Repeat || taskID(again) != taskID(first) || !strings.Contains(again.Text(), "nothing was done again") {
		t.Fatalf("first %+v, again %+v; want the second a repeat of the first", first, again)
	}
	otherArgs := run(f.A.Key, `{"title":"Call Dana","priority":3}`)
	otherKey := run(mcptest.NewKeyFor(t, f.Store, f.A.Slug), `{"title":"Call Dana","priority":2}`)
	mu.Lock()
	now = now.Add(executor.RepeatWindow + time.Second)
	mu.Unlock()
	later := run(f.A.Key, `{"title":"Call Dana","priority":2}`)
	for what, r := range map[string]executor.Result{"other arguments": otherArgs, "another key": otherKey, "after ten minutes": later} {
		if r.Repeat || taskID(r) == taskID(first) {
			t.Errorf("%s: %+v; want a new task", what, r)
		}
	}
	// Reads carry no key at all.
	if r := ex.Run(ctx, executor.Call{Tool: "list_tags", Args: json.RawMessage(`{}`), APIKey: f.A.Key}); r.Repeat {
		t.Errorf("a read was a repeat: %+v", r)
	}
}

func TestKeyIgnoresFormatting(t *testing.T) {
	a := executor.Key("s", "create_task", json.RawMessage(`{"title":"x","priority":2}`))
	b := executor.Key("s", "create_task", json.RawMessage("{ \"priority\": 2,\n \"title\": \"x\" }"))
	if a != b || !strings.HasPrefix(a, "s:") {
		t.Errorf("keys %q and %q", a, b)
	}
	if c := executor.Key("s", "log_weight", json.RawMessage(`{"title":"x","priority":2}`)); c == a {
		t.Error("another tool, same key")
	}
}

// An id argument that is not an id of its kind is refused before any
// request reaches the lane (fault: ".." came back as a 307 redirect).
func TestNonIDIsRefusedBeforeAnyRequest(t *testing.T) {
	f := mcptest.New(t)
	var requests atomic.Int64
	lane := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		f.Lane.ServeHTTP(w, r)
	}))
	defer lane.Close()
	ex := executor.New(laneclient.New(lane.URL, nil, "mcp"), tools.All())
	for _, c := range []struct{ tool, args string }{
		{"get_trainee", `{"traineeId":".."}`},
		{"list_trainee_weights", `{"traineeId":"%2e%2e"}`},
		{"update_task", `{"taskId":"` + f.A.TraineeID + `","status":"done"}`},
		{"search_trainees", `{"coachId":"` + f.A.ProductID + `"}`},
		{"update_trainee", `{"traineeId":"` + f.A.TraineeID + `","coachIds":["` + f.A.CoachID + `","../x"]}`},
	} {
		r := ex.Run(context.Background(), executor.Call{Tool: c.tool, Args: json.RawMessage(c.args), APIKey: f.A.Key})
		if r.Outcome != executor.InvalidArguments || !strings.Contains(r.Sentence, "valid id") && !strings.Contains(r.Sentence, "this needs") || strings.Contains(r.Sentence, "307") {
			t.Errorf("%s %s: %+v", c.tool, c.args, r)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests reached the lane; want none", n)
	}
}

// A refused write is not kept under its derived key: the same call after
// the studio changed runs for real.
func TestARefusedWriteIsNotARepeat(t *testing.T) {
	f := mcptest.New(t)
	ex := executor.New(laneclient.New(f.URL, nil, "mcp"), tools.All())
	ctx := context.Background()
	args := json.RawMessage(`{"firstName":"Dana","lastName":"Twice","phone":"` + f.A.Phone + `"}`)
	first := ex.Run(ctx, executor.Call{Tool: "create_trainee", Args: args, APIKey: f.A.Key})
	if first.Outcome != executor.LaneError {
		t.Fatalf("create_trainee with a taken phone: %+v", first)
	}
	// The phone is freed: the trainee who had it gets another.
	if r := ex.Run(ctx, executor.Call{Tool: "update_trainee", Args: json.RawMessage(`{"traineeId":"` + f.A.TraineeID + `","phone":"+972509999999"}`), APIKey: f.A.Key}); r.Outcome != executor.OK {
		t.Fatalf("update_trainee: %+v", r)
	}
	if again := ex.Run(ctx, executor.Call{Tool: "create_trainee", Args: args, APIKey: f.A.Key}); again.Outcome != executor.OK || again.Repeat {
		t.Fatalf("create_trainee after the phone was freed: %+v", again)
	}
}

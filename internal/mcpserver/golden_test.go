package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden MCP transcripts under testdata/")

// The MCP exchanges of each set, as a client sees them on the wire, are
// kept as golden transcripts (testdata/golden/*.json): the SDK's own
// client connects (initialize), lists the tools, and makes one
// representative call of every tool the seed names against the fixture's
// studio (the coach's 21, the agent platform's public ones, a trainee's
// plan), and a few refusals. Ids, times, dates and request ids are
// replaced by placeholders, so any other change to what a client reads (a
// schema, a description, an answer's shape, an error's code or sentence)
// fails here. go test ./internal/mcpserver -run Golden -update rewrites
// the files; review their diff like code.
func TestGoldenTranscripts(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	a := f.A
	type call struct {
		name string
		args map[string]any
	}
	coach := []call{
		{"search_trainees", map[string]any{"q": "Dana"}},
		{"get_trainee", map[string]any{"traineeId": a.TraineeID}},
		{"find_trainee_by_phone", map[string]any{"phone": a.Phone}},
		{"list_trainee_weights", map[string]any{"traineeId": a.TraineeID}},
		{"list_trainee_subscriptions", map[string]any{"traineeId": a.TraineeID}},
		{"list_trainee_programs", map[string]any{"traineeId": a.TraineeID}},
		{"list_trainee_form_responses", map[string]any{"traineeId": a.TraineeID}},
		{"list_plans", map[string]any{}},
		{"list_program_templates", map[string]any{}},
		{"list_forms", map[string]any{}},
		{"list_coaches", map[string]any{}},
		{"list_tags", map[string]any{}},
		{"list_tasks", map[string]any{}},
		{"create_trainee", map[string]any{"firstName": "Maya", "lastName": "Golden", "phone": "+972503000003"}},
		{"update_trainee", map[string]any{"traineeId": a.TraineeID, "email": "dana@example.com"}},
		{"assign_plan", map[string]any{"traineeId": a.TraineeID, "productId": a.ProductID}},
		{"assign_program", map[string]any{"traineeId": a.TraineeID, "templateId": a.TemplateID}},
		{"send_form", map[string]any{"traineeId": a.TraineeID, "formTemplateId": a.FormID}},
		{"create_task", map[string]any{"title": "Review Dana's plan", "clientId": a.TraineeID}},
		{"update_task", map[string]any{"taskId": a.TaskID, "status": "done"}},
		{"log_weight", map[string]any{"traineeId": a.TraineeID, "weightKg": 80.9}},
		// Refusals: an unknown tool, arguments the schema refuses, an id of another studio.
		{"list_plan", map[string]any{}},
		{"get_trainee", map[string]any{}},
		{"get_trainee", map[string]any{"traineeId": f.B.TraineeID}},
	}
	platform := []call{
		{"get_studio_info", map[string]any{}},
		{"start_verification", map[string]any{"phone": strings.Repeat("5", 41)}},
		{"get_my_plan", map[string]any{}},
		{"studio_info", map[string]any{}},
	}
	trainee := []call{
		{"get_my_plan", map[string]any{}},
		{"get_plan", map[string]any{}},
	}
	sets := []struct {
		name, credential string
		calls            []call
	}{
		{"coach", a.Key, coach},
		{"platform", platformKey(t, f, a.Key), platform},
		{"trainee", f.TraineeToken(t, a, a.TraineeID, ""), trainee},
	}
	for _, set := range sets {
		rec := &recorder{next: mcptest.Bearer{Token: set.credential}}
		client := mcp.NewClient(&mcp.Implementation{Name: "perform-golden", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.URL + mcptest.GatedPath, HTTPClient: &http.Client{Transport: rec}}, nil)
		if err != nil {
			t.Fatalf("%s: connect: %v", set.name, err)
		}
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("%s: tools/list: %v", set.name, err)
		}
		for _, c := range set.calls {
			// A protocol error is part of the transcript, like a result.
			_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		}
		cs.Close()
		got := rec.transcript(t)
		path := filepath.Join("testdata", "golden", set.name+".json")
		if d := testkit.Golden(t, path, got, *update, "go test ./internal/mcpserver -run Golden -update"); d != "" {
			t.Errorf("the %s set's MCP exchange differs from %s:\n%s\nIf the change is meant, run go test ./internal/mcpserver -run Golden -update and review the diff.", set.name, path, d)
		}
	}
}

// recorder keeps every JSON-RPC POST and its answer.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	log  []exchange
}

type exchange struct {
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response,omitempty"`
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return r.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	r.mu.Lock()
	r.log = append(r.log, exchange{Request: body, Status: resp.StatusCode, Response: bytes.TrimSpace(answer)})
	r.mu.Unlock()
	return resp, nil
}

var (
	idPattern   = regexp.MustCompile(`\b([a-z]{3})_[0-9a-zA-Z]{26}\b`)
	timePattern = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?`)
	datePattern = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	weekPattern = regexp.MustCompile(`\b\d{4}-W\d{2}\b`)
)

// transcript is the exchanges, normalized: each JSON-RPC id the
// exchange's number, each Perform id a placeholder of its kind numbered
// by first appearance (the same id, the same placeholder), times, dates
// and ISO weeks as <time>, <date>, <week>; JSON text inside strings (the
// tools' answers) normalized too, and everything indented with sorted keys.
func (r *recorder) transcript(t *testing.T) []byte {
	t.Helper()
	seen := map[string]string{}
	count := map[string]int{}
	var str func(s string) any
	var walk func(v any) any
	str = func(s string) any {
		s = idPattern.ReplaceAllStringFunc(s, func(id string) string {
			if p, ok := seen[id]; ok {
				return p
			}
			kind := id[:3]
			count[kind]++
			seen[id] = fmt.Sprintf("<%s:%d>", kind, count[kind])
			return seen[id]
		})
		s = timePattern.ReplaceAllString(s, "<time>")
		s = datePattern.ReplaceAllString(s, "<date>")
		s = weekPattern.ReplaceAllString(s, "<week>")
		if trimmed := strings.TrimSpace(s); strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
			if v, ok := decode([]byte(trimmed)); ok {
				return map[string]any{"<json>": walk(v)}
			}
		}
		return s
	}
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			return str(x)
		}
		return v
	}
	var out []any
	for i, e := range r.log {
		msg := map[string]any{"status": e.Status}
		for name, raw := range map[string]json.RawMessage{"request": e.Request, "response": e.Response} {
			if len(raw) == 0 {
				continue
			}
			v, ok := decode(raw)
			if !ok {
				msg[name] = string(raw)
				continue
			}
			if m, ok := v.(map[string]any); ok {
				if _, has := m["id"]; has {
					m["id"] = i
				}
			}
			msg[name] = walk(v)
		}
		out = append(out, msg)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func decode(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

package requests_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the listing's golden transcripts under testdata/listing/")

// listingDoc is where the example prompts are listed for the directories.
const listingDoc = "../../docs/listing.md"

// example is one of the listing's example prompts: what a person asks,
// the calls a model makes for it, and whether Perform answers it or
// refuses it (a tool it does not have, another person's data).
type example struct {
	file    string // its golden transcript, testdata/listing/FILE.json
	trainee bool   // asked on a trainee's connection, else a coach's
	ask     string
	refused bool
	steps   []step
}

func listingExamples(w *world) []example {
	tr, today := w.trainee, w.today
	// Another of the coach's trainees, and their latest completed session.
	var other domain.Trainee
	var otherSession string
	for _, o := range w.mine {
		if o.ID == tr.ID {
			continue
		}
		l, _ := w.ss.ListSessions(w.ctx, store.SessionFilter{TraineeID: o.ID, Status: domain.SessionCompleted, Page: store.Page{Limit: 1}})
		if len(l.Items) > 0 {
			other, otherSession = o, l.Items[0].ID
			break
		}
	}
	if otherSession == "" {
		w.t.Fatal("the demo coach has no second trainee with a completed session")
	}
	return []example{
		{file: "coach-not-trained", ask: "Who hasn't trained this week?",
			steps: []step{call("roster", map[string]any{"question": "not_trained"})}},
		{file: "coach-needs-attention", ask: "Who needs my attention today?",
			steps: []step{call("needs_attention", map[string]any{})}},
		{file: "coach-plans-ending", ask: "Whose plan ends this month?",
			steps: []step{call("roster", map[string]any{"question": "plans_ending", "from": today, "to": "2026-12-31"})}},
		{file: "coach-overview", ask: "How is " + name(tr) + " doing?",
			steps: []step{find(tr), then("get_trainee_overview", nil)}},
		{file: "coach-task", ask: "Remind me to call " + name(tr) + " on Monday about renewing the plan.",
			steps: []step{find(tr), {tool: "create_task", args: func(_ *world, prev []string) map[string]any {
				return map[string]any{"title": "Call " + tr.FirstName + " about renewing the plan", "clientId": firstID(prev[0]), "dueAt": "2026-12-07T09:00:00+02:00"}
			}}}},
		{file: "trainee-next-workout", trainee: true, ask: "What's my next workout?",
			steps: []step{call("list_sessions", map[string]any{"status": "planned", "from": today, "limit": 3})}},
		{file: "trainee-log-weight", trainee: true, ask: "I weighed 72.4 kg this morning; log it.",
			steps: []step{call("log_weight", map[string]any{"weightKg": 72.4})}},

		{file: "refused-delete", refused: true, ask: "Delete " + name(tr) + "'s profile.",
			steps: []step{find(tr), then("delete_trainee", nil)}},
		{file: "refused-message", refused: true, ask: "Send " + name(tr) + " a WhatsApp message that tomorrow's class is cancelled.",
			steps: []step{find(tr), then("send_message", map[string]any{"text": "Tomorrow's class is cancelled."})}},
		{file: "refused-someone-else", trainee: true, refused: true, ask: "Show me " + name(other) + "'s last workout.",
			steps: []step{call("get_session_details", map[string]any{"sessionId": otherSession})}},
	}
}

// The listing's example prompts, kept as golden transcripts against the
// demo studio: each prompt's calls go through the SDK's MCP client to the
// hosted endpoint (gate and server as /mcp serves them) on the demo data,
// as the coach or the trainee signed in with OAuth; the calls and answers,
// ids and times made placeholders, must equal testdata/listing/*.json.
// Those answered make no failed call; those refused end in one. Every
// prompt is in docs/listing.md.
//
//	go test ./internal/requests -run Listing -update
//
// rewrites the transcripts; review their diff like code.
func TestListingExamplePrompts(t *testing.T) {
	w := newWorld(t)
	quiet := slog.New(slog.DiscardHandler)
	mux := http.NewServeMux()
	gate := mcpserver.Gate{Authenticator: w.authn, Logger: quiet}
	mux.Handle("/mcp", gate.Wrap(mcpserver.New(mcpserver.Options{Client: w.lane, Logger: quiet, OnToolCall: func(string, string) {}})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	sessions := map[bool]*mcp.ClientSession{}
	for trainee, token := range map[bool]string{false: w.coachToken, true: w.traineeToken} {
		client := mcp.NewClient(&mcp.Implementation{Name: "perform-listing", Version: "1"}, nil)
		cs, err := client.Connect(w.ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions[trainee] = cs
	}
	doc, err := os.ReadFile(listingDoc)
	if err != nil {
		t.Fatal(err)
	}

	examples := listingExamples(w)
	answered, refused := 0, 0
	for _, ex := range examples {
		if !strings.Contains(string(doc), ex.ask) {
			t.Errorf("docs/listing.md does not list the prompt %q", ex.ask)
		}
		transcript := transcriptOf(ex)
		var prev []string
		failedAt := -1
		for i, s := range ex.steps {
			args := s.args(w, prev)
			text, c := callTool(w.ctx, sessions[ex.trainee], s.tool, args)
			transcript.Calls = append(transcript.Calls, c)
			prev = append(prev, text)
			if c.Error != nil || c.IsError {
				failedAt = i
				break
			}
		}
		switch {
		case !ex.refused && failedAt >= 0:
			t.Errorf("%q should be answered; call %d failed: %s", ex.ask, failedAt+1, prev[failedAt])
		case ex.refused && failedAt != len(ex.steps)-1:
			t.Errorf("%q should be refused by its last call; the calls: %s", ex.ask, strings.Join(prev, " | "))
		case ex.refused:
			refused++
		default:
			answered++
		}
		got := transcript.normalized(t)
		path := filepath.Join("testdata", "listing", ex.file+".json")
		if d := testkit.Golden(t, path, got, *update, "go test ./internal/requests -run Listing -update"); d != "" {
			t.Errorf("%q: the transcript differs from %s:\n%s\nIf the change is meant, run go test ./internal/requests -run Listing -update and review the diff.", ex.ask, path, d)
		}
	}
	if answered < 5 || refused < 3 {
		t.Errorf("%d prompts answered and %d refused; the listing needs at least 5 and 3", answered, refused)
	}
}

// transcript is one prompt's golden file.
type transcript struct {
	Prompt  string       `json:"prompt"`
	AskedBy string       `json:"askedBy"`
	Expect  string       `json:"expect"`
	Calls   []toolCalled `json:"calls"`
}

type toolCalled struct {
	Tool      string          `json:"tool"`
	Arguments map[string]any  `json:"arguments"`
	IsError   bool            `json:"isError,omitempty"`
	Answer    json.RawMessage `json:"answer,omitempty"`
	Error     *jsonrpc.Error  `json:"error,omitempty"`
}

func transcriptOf(ex example) *transcript {
	tr := &transcript{Prompt: ex.ask, AskedBy: "coach", Expect: "answered"}
	if ex.trainee {
		tr.AskedBy = "trainee"
	}
	if ex.refused {
		tr.Expect = "refused"
	}
	return tr
}

// callTool makes one call as the client does and records it: the result's
// text (JSON kept as JSON), or the protocol error.
func callTool(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, toolCalled) {
	c := toolCalled{Tool: tool, Arguments: args}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		c.Error = &jsonrpc.Error{Code: rpc.Code, Message: rpc.Message}
		return rpc.Message, c
	}
	var text []string
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	answer := strings.Join(text, "\n")
	c.IsError = res.IsError
	if json.Valid([]byte(answer)) {
		c.Answer = json.RawMessage(answer)
	} else {
		c.Answer, _ = json.Marshal(answer)
	}
	return answer, c
}

var (
	listingID   = regexp.MustCompile(`\b([a-z]{3})_[0-9a-zA-Z]{26}\b`)
	listingTime = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
	// A trainee's next appointment is the demo's week around the clock:
	// which one is next depends on the hour the test runs.
	listingNext = regexp.MustCompile(`"Next appointment: [^"]*"`)
)

// normalized is the transcript as its golden file holds it: indented, each
// id a placeholder of its kind numbered by first appearance, each instant
// <time> (the demo's dates are fixed; its ids and clocks are not).
func (tr *transcript) normalized(t *testing.T) []byte {
	t.Helper()
	b, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	seen, count := map[string]string{}, map[string]int{}
	out := listingID.ReplaceAllStringFunc(string(b), func(id string) string {
		if p, ok := seen[id]; ok {
			return p
		}
		count[id[:3]]++
		seen[id] = fmt.Sprintf("<%s:%d>", id[:3], count[id[:3]])
		return seen[id]
	})
	out = listingNext.ReplaceAllString(out, `"Next appointment: <appointment>"`)
	return []byte(listingTime.ReplaceAllString(out, "<time>") + "\n")
}

package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/tools"
)

// provider is a Provider on the fake, with fast backoff unless the test
// sets its own.
func provider(t *testing.T, fake *fakes.Anthropic, model string, set []tools.Tool) *Provider {
	t.Helper()
	p, err := New(Config{APIKey: "test-key", BaseURL: fake.URL, WorkspaceID: "wrkspc_1", Model: model}, set)
	if err != nil {
		t.Fatal(err)
	}
	p.client.backoffBase, p.client.backoffMax = time.Millisecond, 4*time.Millisecond
	return p
}

func userText(s string) llm.Message {
	return llm.Message{Role: "user", Blocks: []llm.Block{{Type: llm.TextBlock, Text: s}}}
}

var lookupTool = llm.ToolSpec{Name: "lookup", Description: "Looks a trainee up.", Strict: true, Schema: map[string]any{
	"type": "object", "required": []any{"q"},
	"properties": map[string]any{"q": map[string]any{"type": "string"}},
}}

// A tool call comes back as a block with its id, name and input, and its
// result goes out as a tool_result naming that id; the request carries the
// API's headers, to the base URL's path.
func TestToolRoundTrip(t *testing.T) {
	fake := fakes.NewAnthropic(func(n int, req fakes.MessagesRequest) fakes.Reply {
		if n == 0 {
			return fakes.CallTool("lookup", map[string]any{"q": "Dana"})
		}
		if res := req.ToolResults(); len(res) == 1 && res[0].ToolUseID == "toolu_0_0" && res[0].ResultText() == `{"found":1}` {
			return fakes.Text("Dana Levi, found.")
		}
		return fakes.Reply{Status: 400, Message: "no tool result"}
	})
	defer fake.Close()
	p, err := New(Config{APIKey: "test-key", BaseURL: fake.URL + "/gateway/", WorkspaceID: "wrkspc_1", Model: "claude-test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := llm.Request{Rules: "rules", Context: "coach Gal", MaxTokens: 256, Tools: []llm.ToolSpec{lookupTool}, Messages: []llm.Message{userText("who is Dana?")}}
	first, err := p.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Blocks) != 1 || first.Blocks[0].Type != llm.ToolUseBlock || first.Blocks[0].ID != "toolu_0_0" ||
		first.Blocks[0].Name != "lookup" || string(first.Blocks[0].Input) != `{"q":"Dana"}` {
		t.Fatalf("first answer %+v", first.Blocks)
	}
	req.Messages = append(req.Messages,
		llm.Message{Role: "assistant", Blocks: first.Blocks},
		llm.Message{Role: "user", Blocks: []llm.Block{{Type: llm.ToolResultBlock, ID: first.Blocks[0].ID, Text: `{"found":1}`}}})
	second, err := p.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Blocks) != 1 || second.Blocks[0].Type != llm.TextBlock || second.Blocks[0].Text != "Dana Levi, found." {
		t.Fatalf("second answer %+v", second.Blocks)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[1]
	if r.Path != "/gateway/v1/messages" || r.Model != "claude-test" || r.MaxTokens != 256 {
		t.Fatalf("path %q model %q max_tokens %d", r.Path, r.Model, r.MaxTokens)
	}
	for h, want := range map[string]string{"X-Api-Key": "test-key", "Anthropic-Version": "2023-06-01",
		"Content-Type": "application/json", "Anthropic-Workspace-Id": "wrkspc_1"} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q; want %q", h, got, want)
		}
	}
	if len(r.Messages) != 3 || r.Messages[1].Role != "assistant" {
		t.Fatalf("messages %+v", r.Messages)
	}
	call := r.Messages[1].Content[0]
	if call.Type != "tool_use" || call.ID != "toolu_0_0" || call.Name != "lookup" || string(call.Input) != `{"q":"Dana"}` {
		t.Fatalf("the call sent back %+v", call)
	}
	if res := r.Messages[2].Content[0]; res.Type != "tool_result" || res.IsError {
		t.Fatalf("the result %+v", res)
	}
}

// A tool's error result is marked so; a call without input is sent with
// {} (the API requires an object); empty text blocks are left out.
func TestMessagesOnTheWire(t *testing.T) {
	msgs := messages([]llm.Message{
		{Role: "user", Blocks: []llm.Block{{Type: llm.TextBlock, Text: ""}, {Type: llm.TextBlock, Text: "hi"}}},
		{Role: "assistant", Blocks: []llm.Block{{Type: llm.ToolUseBlock, ID: "t1", Name: "list_tags"}}},
		{Role: "user", Blocks: []llm.Block{{Type: llm.ToolResultBlock, ID: "t1", Text: "no such studio", IsError: true}}},
	})
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":[{"type":"text","text":"hi"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"list_tags","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"no such studio","is_error":true,"cache_control":{"type":"ephemeral","ttl":"5m"}}]}]`
	if string(b) != want {
		t.Fatalf("wire\n%s\nwant\n%s", b, want)
	}
}

// Strict goes on the tools that ask for it when the model takes it, and
// on none otherwise; a forced tool is a tool_choice naming it.
func TestStrictAndForcedToolOnTheWire(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply {
		return fakes.CallTool("lookup", map[string]any{"q": "x"})
	})
	defer fake.Close()
	loose := llm.ToolSpec{Name: "note", Description: "A note.", Schema: map[string]any{"type": "object", "properties": map[string]any{}}}
	req := llm.Request{Rules: "rules", MaxTokens: 64, Tools: []llm.ToolSpec{lookupTool, loose}, ForceTool: "lookup", Messages: []llm.Message{userText("q")}}
	for _, model := range []string{"claude-sonnet-4-5", "claude-sonnet-4-0"} {
		if _, err := provider(t, fake, model, nil).Step(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	reqs := fake.Requests()
	strict, plain := reqs[0], reqs[1]
	if !strict.Tools[0].Strict || strict.Tools[1].Strict || plain.Tools[0].Strict || plain.Tools[1].Strict {
		t.Fatalf("strict %v %v; plain %v %v", strict.Tools[0].Strict, strict.Tools[1].Strict, plain.Tools[0].Strict, plain.Tools[1].Strict)
	}
	if strings.Count(string(strict.Raw), `"strict":true`) != 1 || strings.Contains(string(plain.Raw), `"strict"`) {
		t.Fatalf("strict on the wire: %s", strict.Raw)
	}
	for _, r := range reqs {
		if r.ToolChoice == nil || r.ToolChoice.Type != "tool" || r.ToolChoice.Name != "lookup" {
			t.Fatalf("tool_choice %+v", r.ToolChoice)
		}
		var schema map[string]any
		if err := json.Unmarshal(r.Tools[0].InputSchema, &schema); err != nil || schema["type"] != "object" || schema["required"] == nil {
			t.Fatalf("input_schema %s", r.Tools[0].InputSchema)
		}
	}
	// Without ForceTool, no tool_choice: the API's default (auto).
	req.ForceTool = ""
	if _, err := provider(t, fake, "claude-sonnet-4-5", nil).Step(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if r := fake.Requests()[2]; r.ToolChoice != nil || strings.Contains(string(r.Raw), "tool_choice") {
		t.Fatalf("tool_choice without a forced tool: %s", r.Raw)
	}
}

// The agent's own tool set goes out strict where chosen, the same bytes
// on every request.
func TestTheToolSetIsTheSameBytesEveryTime(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("ok") })
	defer fake.Close()
	p := provider(t, fake, "claude-sonnet-4-5", tools.AgentSubset())
	for range 2 {
		if _, err := p.Step(context.Background(), llm.Request{Rules: "rules", MaxTokens: 64, Messages: []llm.Message{userText("q")}}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := fake.Requests()
	type wire struct {
		Tools json.RawMessage `json:"tools"`
	}
	var a, b wire
	if json.Unmarshal(reqs[0].Raw, &a) != nil || json.Unmarshal(reqs[1].Raw, &b) != nil || string(a.Tools) != string(b.Tools) {
		t.Fatal("the tool set's bytes differ between requests")
	}
	if !slices.ContainsFunc(reqs[0].Tools, func(tl fakes.Tool) bool { return tl.Strict }) || len(reqs[0].Tools) != len(tools.AgentSubset()) {
		t.Fatalf("%d tools, none strict", len(reqs[0].Tools))
	}
}

// The rules carry the one-hour breakpoint (five minutes when the request
// brings its own tools), the conversation's last block the five-minute
// one, and nothing else is marked.
func TestCacheControlBothLifetimesOnTheWire(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("ok") })
	defer fake.Close()
	p := provider(t, fake, "claude-test", nil)
	conv := []llm.Message{userText("first"), {Role: "assistant", Blocks: []llm.Block{{Type: llm.TextBlock, Text: "reply"}}}, userText("second")}
	ctx := context.Background()
	if _, err := p.Step(ctx, llm.Request{Rules: "rules", Context: "coach Gal", MaxTokens: 64, Messages: conv}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Step(ctx, llm.Request{Rules: "rules", MaxTokens: 64, Tools: []llm.ToolSpec{lookupTool}, Messages: conv}); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	shared, own := reqs[0], reqs[1]
	if len(shared.System) != 2 || shared.System[0].Text != "rules" || shared.System[1].Text != "coach Gal" || shared.System[1].CacheControl != nil {
		t.Fatalf("system %+v", shared.System)
	}
	if cc := shared.System[0].CacheControl; cc == nil || cc.Type != "ephemeral" || cc.TTL != "1h" {
		t.Fatalf("the rules' breakpoint %+v", cc)
	}
	if cc := own.System[0].CacheControl; cc == nil || cc.Type != "ephemeral" || cc.TTL != "5m" {
		t.Fatalf("the rules' breakpoint with the request's own tools %+v", cc)
	}
	for _, r := range reqs {
		last := r.Messages[len(r.Messages)-1].Content
		if cc := last[len(last)-1].CacheControl; cc == nil || cc.Type != "ephemeral" || cc.TTL != "5m" {
			t.Fatalf("the conversation's breakpoint %+v", cc)
		}
		if n := strings.Count(string(r.Raw), `"cache_control"`); n != 2 {
			t.Fatalf("%d breakpoints: %s", n, r.Raw)
		}
	}
	if !strings.Contains(string(shared.Raw), `"cache_control":{"type":"ephemeral","ttl":"1h"}`) {
		t.Fatalf("no one-hour breakpoint on the wire: %s", shared.Raw)
	}
}

// Usage is read counter for counter: uncached input, output, the cache
// write and its one-hour part, the cache read.
func TestUsageCountersRead(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("ok") })
	defer fake.Close()
	fake.MinCacheTokens = 1
	p := provider(t, fake, "claude-test", nil)
	ctx := context.Background()
	req := llm.Request{Rules: strings.Repeat("the rules of the studio. ", 40), MaxTokens: 64, Messages: []llm.Message{userText("q")}}
	var got []llm.Usage
	for _, next := range []string{"", "q2"} {
		if next != "" {
			req.Messages = append(req.Messages, llm.Message{Role: "assistant", Blocks: []llm.Block{{Type: llm.TextBlock, Text: "ok"}}}, userText(next))
		}
		res, err := p.Step(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.Usage)
	}
	for i, r := range fake.Requests() {
		w := r.Usage
		want := llm.Usage{Input: w.InputTokens, Output: w.OutputTokens, CacheWrite: w.CacheCreationInputTokens,
			CacheWrite1h: w.CacheCreation.Ephemeral1h, CacheRead: w.CacheReadInputTokens}
		if got[i] != want {
			t.Fatalf("step %d: usage %+v; the fake billed %+v", i, got[i], want)
		}
	}
	if got[0].CacheWrite1h == 0 || got[0].CacheWrite <= got[0].CacheWrite1h || got[0].CacheRead != 0 || got[0].Output == 0 {
		t.Fatalf("first step %+v; want a one-hour and a five-minute write", got[0])
	}
	if got[1].CacheRead == 0 {
		t.Fatalf("second step %+v; want a cache read", got[1])
	}
}

// 429, 529 and 503 are retried, with the API's x-should-retry or without
// it, until an answer comes; a retry-after in seconds is waited for.
func TestRetriesRetryableStatuses(t *testing.T) {
	for _, c := range []struct {
		status int
		header http.Header
	}{
		{429, http.Header{"Retry-After": {"0"}, "X-Should-Retry": nil}},
		{529, http.Header{"X-Should-Retry": {"true"}}},
		{503, http.Header{"X-Should-Retry": nil}},
	} {
		fake := fakes.NewAnthropic(func(n int, _ fakes.MessagesRequest) fakes.Reply {
			if n < 2 {
				return fakes.Reply{Status: c.status, Header: c.header}
			}
			return fakes.Text("ok")
		})
		res, err := provider(t, fake, "claude-test", nil).Step(context.Background(), llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}})
		fake.Close()
		if err != nil || len(res.Blocks) != 1 || res.Blocks[0].Text != "ok" {
			t.Fatalf("%d: %v %+v", c.status, err, res)
		}
		if n := len(fake.Requests()); n != 3 {
			t.Fatalf("%d: %d requests; want 3", c.status, n)
		}
	}
}

func TestRetryAfterIsWaitedFor(t *testing.T) {
	fake := fakes.NewAnthropic(func(n int, _ fakes.MessagesRequest) fakes.Reply {
		if n == 0 {
			return fakes.Reply{Status: 429, Header: http.Header{"Retry-After": {"1"}, "X-Should-Retry": {"true"}}}
		}
		return fakes.Text("ok")
	})
	defer fake.Close()
	p := provider(t, fake, "claude-test", nil)
	p.client.backoffBase, p.client.backoffMax = time.Hour, time.Hour // only the retry-after can end the wait in time
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := p.Step(ctx, llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("retried after %v; retry-after asked for 1 s", d)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("%d requests", n)
	}
}

// A retry-after longer than the client waits returns the error at once.
func TestALongRetryAfterIsNotWaitedFor(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply {
		return fakes.Reply{Status: 429, Header: http.Header{"Retry-After": {"3600"}, "X-Should-Retry": {"true"}}}
	})
	defer fake.Close()
	start := time.Now()
	_, err := provider(t, fake, "claude-test", nil).Step(context.Background(), llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour || !apiErr.Retryable() || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}

// The retries are bounded: the last failure is returned, typed.
func TestRetriesGiveUpWithTheLastError(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply {
		return fakes.Reply{Status: 529, Message: "Overloaded", Header: http.Header{"X-Should-Retry": nil}}
	})
	defer fake.Close()
	_, err := provider(t, fake, "claude-test", nil).Step(context.Background(), llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%T %v", err, err)
	}
	if apiErr.StatusCode != 529 || apiErr.Type != "overloaded_error" || apiErr.Message != "Overloaded" || apiErr.RequestID != "req_2" || !apiErr.Retryable() {
		t.Fatalf("%+v", apiErr)
	}
	if n := len(fake.Requests()); n != 3 {
		t.Fatalf("%d requests; want the call and 2 retries", n)
	}
	if !strings.Contains(err.Error(), "529 overloaded_error: Overloaded (request req_2)") {
		t.Fatalf("message %q", err)
	}
}

// 400 and 401 are the request's fault: never retried, whatever the
// headers lack; the error names status, type, message and request id.
func TestNoRetryOnClientErrors(t *testing.T) {
	for status, typ := range map[int]string{400: "invalid_request_error", 401: "authentication_error"} {
		fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply {
			return fakes.Reply{Status: status, Message: "bad " + typ, Header: http.Header{"X-Should-Retry": nil}}
		})
		_, err := provider(t, fake, "claude-test", nil).Step(context.Background(), llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}})
		fake.Close()
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != status || apiErr.Type != typ || apiErr.Message != "bad "+typ ||
			apiErr.RequestID != "req_0" || apiErr.Retryable() {
			t.Fatalf("%d: %v", status, err)
		}
		if n := len(fake.Requests()); n != 1 {
			t.Fatalf("%d: %d requests", status, n)
		}
	}
}

// A cancelled context ends the wait for a retry at once.
func TestCancelDuringARetryWait(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply {
		return fakes.Reply{Status: 529, Header: http.Header{"Retry-After": {"30"}, "X-Should-Retry": {"true"}}}
	})
	defer fake.Close()
	p := provider(t, fake, "claude-test", nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Step(ctx, llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 529 {
		t.Fatalf("the last failure is not kept: %v", err)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d requests", n)
	}
}

// A connection dropped before an answer is retried; an answer that is not
// the API's envelope (a proxy's page) is still a typed error.
func TestDroppedConnectionsAndForeignErrors(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case 2:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>502 Bad Gateway</html>"))
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte("<html>denied</html>"))
		}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	c := newClient("k", srv.URL, "")
	c.backoffBase = time.Millisecond
	_, err = c.create(context.Background(), &messagesRequest{Model: "m", MaxTokens: 1})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 403 || apiErr.Type != "" || apiErr.Message != "<html>denied</html>" || apiErr.Retryable() {
		t.Fatalf("%v", err)
	}
	if n.Load() != 3 {
		t.Fatalf("%d attempts; want the dropped one, the 502 and the 403", n.Load())
	}
}

// Without an API key no call is made.
func TestNoKeyNoCall(t *testing.T) {
	p, err := New(Config{Model: "claude-test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Step(context.Background(), llm.Request{}); !errors.Is(err, llm.ErrNotConfigured) {
		t.Fatal(err)
	}
}

func TestBackoffIsBounded(t *testing.T) {
	c := newClient("k", "", "")
	for n := range 70 {
		d := c.backoff(n)
		want := min(c.backoffBase<<min(n, 20), c.backoffMax)
		if d > want || d < want*3/4 {
			t.Fatalf("backoff(%d) = %v; want within [%v, %v]", n, d, want*3/4, want)
		}
	}
	if c.url != "https://api.anthropic.com/v1/messages" {
		t.Fatalf("default endpoint %q", c.url)
	}
}

// An answer cut short (max_tokens, a refusal) is still returned, and
// logged with its stop reason.
func TestAnAnswerCutShortIsLogged(t *testing.T) {
	fake := fakes.NewAnthropic(func(int, fakes.MessagesRequest) fakes.Reply {
		return fakes.Reply{Text: "The plan for Mon", StopReason: "max_tokens"}
	})
	defer fake.Close()
	var logs strings.Builder
	p, err := New(Config{APIKey: "k", BaseURL: fake.URL, Model: "claude-test", Logger: slog.New(slog.NewTextHandler(&logs, nil))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Step(context.Background(), llm.Request{Rules: "r", MaxTokens: 8, Messages: []llm.Message{userText("q")}})
	if err != nil || len(res.Blocks) != 1 || res.Blocks[0].Text != "The plan for Mon" {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.Contains(logs.String(), "stop_reason=max_tokens") {
		t.Fatalf("log %q", logs.String())
	}
}

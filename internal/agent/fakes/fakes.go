// Package fakes holds the two stand-ins the agent's tests are allowed: a
// local Anthropic Messages API and a local SmartSend, both real HTTP servers
// on 127.0.0.1 speaking the real wire formats, with scripted answers and a
// record of every request.
package fakes

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/otherwise/perform/internal/llm"
)

// MessagesRequest is the part of a Messages API request the tests look at.
type MessagesRequest struct {
	Model     string      `json:"model"`
	MaxTokens int         `json:"max_tokens"`
	System    []TextBlock `json:"system"`
	Messages  []Message   `json:"messages"`
	Tools     []Tool      `json:"tools"`
	// ToolChoice is the request's tool_choice, when it has one.
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name,omitempty"`
	} `json:"tool_choice,omitempty"`
	Header http.Header     `json:"-"`
	Path   string          `json:"-"`
	Raw    json.RawMessage `json:"-"` // the body exactly as sent
	// Usage is what the fake answered this request was billed.
	Usage Usage `json:"-"`
}

// Usage is the wire usage the fake answers: the request's tokens (an
// estimate, llm.EstimateTokens) split by the simulated prompt cache.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreation            struct {
		Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

// AllInput is every input token of the request, cached or not.
func (u Usage) AllInput() int64 {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

type TextBlock struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *CacheControl `json:"cache_control,omitempty"`
}

// CacheControl is a prompt-cache breakpoint; TTL is "5m" or "1h" ("" means 5m).
type CacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// Message is one message of the conversation; Content is its blocks.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// Block is any content block: text, tool_use or tool_result.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	// CacheControl marks a breakpoint on the block.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
}

// ResultText is a tool_result's text, whether sent as a string or as blocks.
func (b Block) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var blocks []TextBlock
	_ = json.Unmarshal(b.Content, &blocks)
	var parts []string
	for _, t := range blocks {
		parts = append(parts, t.Text)
	}
	return strings.Join(parts, "")
}

type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	Strict       bool            `json:"strict,omitempty"`
	CacheControl *CacheControl   `json:"cache_control,omitempty"`
}

// APIKey is the credential the request carried (x-api-key or bearer).
func (r MessagesRequest) APIKey() string {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		return k
	}
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// SystemText is the system prompt's text.
func (r MessagesRequest) SystemText() string {
	var parts []string
	for _, b := range r.System {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// LastUserText is the text blocks of the last user message.
func (r MessagesRequest) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		var parts []string
		for _, b := range r.Messages[i].Content {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return ""
}

// ToolResults are the tool_result blocks of the last message.
func (r MessagesRequest) ToolResults() []Block {
	if len(r.Messages) == 0 {
		return nil
	}
	var out []Block
	for _, b := range r.Messages[len(r.Messages)-1].Content {
		if b.Type == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// Reply is a scripted answer: text, tool calls, or an HTTP error.
type Reply struct {
	Text     string
	ToolUses []ToolUse
	Status   int    // non-zero: answer this status with an API error body
	Message  string // the error's message; "" means "scripted failure"
	// Header is added to the answer's headers, replacing the fake's own
	// (an error is sent with x-should-retry: false unless Header says
	// otherwise; a retry-after goes here too); a key with no values
	// removes the header.
	Header http.Header
	// StopReason replaces the one the fake derives (tool_use or end_turn).
	StopReason string
}

type ToolUse struct {
	Name  string
	Input any
}

// Text is a final text answer.
func Text(s string) Reply { return Reply{Text: s} }

// CallTool is an answer that asks for one tool.
func CallTool(name string, input any) Reply {
	return Reply{ToolUses: []ToolUse{{Name: name, Input: input}}}
}

// Anthropic is a fake Messages API. Script decides each answer from the
// request (and how many came before); it may block to hold a turn open.
//
// It keeps a prompt cache as the API does: the prefix up to a block marked
// with cache_control (in the order tools, system, messages) is written
// when it reaches MinCacheTokens, and a later request whose prefix up to a
// block boundary matches byte for byte (cache_control itself aside), at a
// breakpoint or up to 20 blocks before one, reads it. Entries never expire
// unless Expire says so.
type Anthropic struct {
	URL            string
	Script         func(n int, req MessagesRequest) Reply
	MinCacheTokens int // 1024 (Sonnet 4.5) unless set

	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []MessagesRequest
	cache map[[32]byte]string // prefix hash -> ttl
}

// NewAnthropic starts the fake on 127.0.0.1.
func NewAnthropic(script func(n int, req MessagesRequest) Reply) *Anthropic {
	a := &Anthropic{Script: script, MinCacheTokens: 1024, cache: map[[32]byte]string{}}
	a.srv = newLocalServer(http.HandlerFunc(a.serve))
	a.URL = a.srv.URL
	return a
}

func (a *Anthropic) Close() { a.srv.Close() }

// Requests returns every request so far.
func (a *Anthropic) Requests() []MessagesRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]MessagesRequest(nil), a.reqs...)
}

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	// Any prefix before /v1/messages is allowed, so several clients can be
	// told apart by their base URLs.
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		apiError(w, http.StatusNotFound, "not_found_error", "no such endpoint "+r.URL.Path)
		return
	}
	if r.Header.Get("X-Api-Key") == "" && !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		apiError(w, http.StatusUnauthorized, "authentication_error", "an x-api-key header or a bearer token is required")
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req MessagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if tc := req.ToolChoice; tc != nil && tc.Type == "tool" && !slices.ContainsFunc(req.Tools, func(t Tool) bool { return t.Name == tc.Name }) {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "tool_choice names tool "+tc.Name+", which is not in tools")
		return
	}
	req.Header = r.Header.Clone()
	req.Path = r.URL.Path
	req.Raw = body
	a.mu.Lock()
	n := len(a.reqs)
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()

	reply := a.Script(n, req)
	w.Header().Set("Request-Id", fmt.Sprintf("req_%d", n))
	if reply.Status != 0 {
		msg := reply.Message
		if msg == "" {
			msg = "scripted failure"
		}
		apiError(w, reply.Status, errorType(reply.Status), msg, reply.Header)
		return
	}
	usage, err := a.bill(body)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	content := []map[string]any{}
	if reply.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": reply.Text})
	}
	stop := "end_turn"
	for i, tu := range reply.ToolUses {
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", n, i), "name": tu.Name, "input": tu.Input})
		stop = "tool_use"
	}
	if reply.StopReason != "" {
		stop = reply.StopReason
	}
	out, _ := json.Marshal(content)
	usage.OutputTokens = int64(llm.EstimateTokens(string(out)))
	a.mu.Lock()
	a.reqs[n].Usage = usage
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	setHeaders(w, reply.Header)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":            fmt.Sprintf("msg_%d", n),
		"type":          "message",
		"role":          "assistant",
		"model":         req.Model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage":         usage,
	})
}

// apiError answers the API's error envelope; header, when set, is added
// to (and replaces) the fake's own headers.
func apiError(w http.ResponseWriter, status int, typ, msg string, header ...http.Header) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Should-Retry", "false")
	for _, h := range header {
		setHeaders(w, h)
	}
	w.WriteHeader(status)
	body := map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}}
	if id := w.Header().Get("Request-Id"); id != "" {
		body["request_id"] = id
	}
	_ = json.NewEncoder(w).Encode(body)
}

func setHeaders(w http.ResponseWriter, h http.Header) {
	for k, v := range h {
		if len(v) == 0 {
			w.Header().Del(k)
		} else {
			w.Header()[http.CanonicalHeaderKey(k)] = v
		}
	}
}

// errorType is the API's error type for an HTTP status.
func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}

// Sent is one message SmartSend accepted.
type Sent struct {
	Path           string
	Authorization  string
	ConversationID string `json:"conversationId"`
	Text           string `json:"text"`
}

// SmartSend is a fake SmartSend: POST /v1/conversations/{id}/messages with
// a bearer key and {"conversationId","text"}, and templates (template.go). Fail decides, per request, to
// answer an error status instead of accepting (0 accepts).
type SmartSend struct {
	URL  string
	Fail func(n int, s Sent) int

	srv  *httptest.Server
	mu   sync.Mutex
	n    int
	sent []Sent
	// templates are the accepted template messages (template.go).
	templates []TemplateSent
}

// NewSmartSend starts the fake on 127.0.0.1.
func NewSmartSend() *SmartSend {
	s := &SmartSend{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/conversations/{id}/messages", s.serve)
	mux.HandleFunc("POST /v1/templates/send", s.serveTemplate)
	s.srv = newLocalServer(mux)
	s.URL = s.srv.URL
	return s
}

func (s *SmartSend) Close() { s.srv.Close() }

// Sent returns every accepted message, in order.
func (s *SmartSend) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// Texts returns the accepted messages' texts, in order.
func (s *SmartSend) Texts() []string {
	var out []string
	for _, m := range s.Sent() {
		out = append(out, m.Text)
	}
	return out
}

func (s *SmartSend) serve(w http.ResponseWriter, r *http.Request) {
	var m Sent
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Text == "" {
		http.Error(w, `{"error":"body must be {conversationId,text}"}`, http.StatusBadRequest)
		return
	}
	if m.ConversationID != r.PathValue("id") {
		http.Error(w, `{"error":"conversationId differs from the path"}`, http.StatusBadRequest)
		return
	}
	m.Path = r.URL.Path
	m.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	n := s.n
	s.n++
	fail := s.Fail
	s.mu.Unlock()
	if fail != nil {
		if status := fail(n, m); status != 0 {
			http.Error(w, `{"error":"scripted failure"}`, status)
			return
		}
	}
	s.mu.Lock()
	s.sent = append(s.sent, m)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok":true}`)
}

func newLocalServer(h http.Handler) *httptest.Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	return srv
}

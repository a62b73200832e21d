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
	"strings"
	"sync"
)

// MessagesRequest is the part of a Messages API request the tests look at.
type MessagesRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    []TextBlock     `json:"system"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools"`
	Header    http.Header     `json:"-"`
	Path      string          `json:"-"`
	Raw       json.RawMessage `json:"-"`
}

type TextBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
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
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
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
	Status   int // non-zero: answer this status with an API error body
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
type Anthropic struct {
	URL    string
	Script func(n int, req MessagesRequest) Reply

	srv  *httptest.Server
	mu   sync.Mutex
	reqs []MessagesRequest
}

// NewAnthropic starts the fake on 127.0.0.1.
func NewAnthropic(script func(n int, req MessagesRequest) Reply) *Anthropic {
	a := &Anthropic{Script: script}
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
	req.Header = r.Header.Clone()
	req.Path = r.URL.Path
	req.Raw = body
	a.mu.Lock()
	n := len(a.reqs)
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()

	reply := a.Script(n, req)
	if reply.Status != 0 {
		apiError(w, reply.Status, "api_error", "scripted failure")
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
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":            fmt.Sprintf("msg_%d", n),
		"type":          "message",
		"role":          "assistant",
		"model":         req.Model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage":         map[string]any{"input_tokens": 10, "output_tokens": 10},
	})
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Should-Retry", "false")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}

// Sent is one message SmartSend accepted.
type Sent struct {
	Path           string
	Authorization  string
	ConversationID string `json:"conversationId"`
	Text           string `json:"text"`
}

// SmartSend is a fake SmartSend: POST /v1/conversations/{id}/messages with
// a bearer key and {"conversationId","text"}. Fail decides, per request, to
// answer an error status instead of accepting (0 accepts).
type SmartSend struct {
	URL  string
	Fail func(n int, s Sent) int

	srv  *httptest.Server
	mu   sync.Mutex
	n    int
	sent []Sent
}

// NewSmartSend starts the fake on 127.0.0.1.
func NewSmartSend() *SmartSend {
	s := &SmartSend{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/conversations/{id}/messages", s.serve)
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

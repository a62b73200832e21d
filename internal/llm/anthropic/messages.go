package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// This file is a client of the one endpoint the provider calls, POST
// /v1/messages, in the API's own wire format: the request (tools, system
// blocks, messages, tool_choice, cache_control), the response (content
// blocks, stop reason, usage with its cache counters), the error envelope,
// and the retries the API asks for.

const (
	defaultBaseURL = "https://api.anthropic.com"
	apiVersion     = "2023-06-01" // the anthropic-version header
	// maxResponseBytes bounds what is read of one answer: a Messages
	// response is the model's output, far below this.
	maxResponseBytes = 16 << 20
)

// Wire format of a request.

type messagesRequest struct {
	Model      string        `json:"model"`
	MaxTokens  int           `json:"max_tokens"`
	System     []textBlock   `json:"system,omitempty"`
	Messages   []wireMessage `json:"messages"`
	Tools      []wireTool    `json:"tools,omitempty"`
	ToolChoice *toolChoice   `json:"tool_choice,omitempty"`
}

// cacheControl is a prompt-cache breakpoint: everything up to and
// including the block that carries it is cached for TTL.
type cacheControl struct {
	Type string `json:"type"`          // always "ephemeral"
	TTL  string `json:"ttl,omitempty"` // "5m" or "1h"; the API's default is 5m
}

// The lifetimes the API takes.
const (
	ttl5m = "5m"
	ttl1h = "1h"
)

func ephemeral(ttl string) *cacheControl { return &cacheControl{Type: "ephemeral", TTL: ttl} }

type wireTool struct {
	Name         string         `json:"name"`
	Description  string         `json:"description,omitempty"`
	InputSchema  map[string]any `json:"input_schema"`
	Strict       bool           `json:"strict,omitempty"`
	CacheControl *cacheControl  `json:"cache_control,omitempty"`
}

// toolChoice is "auto", "any", "none", or "tool" with the tool's name.
type toolChoice struct {
	Name string `json:"name,omitempty"`
	Type string `json:"type"`
}

type wireMessage struct {
	Role    string `json:"role"` // "user" or "assistant"
	Content []any  `json:"content"`
}

// The content blocks a request sends, each with the fields the API
// requires of its type (a text block's text even when empty, a tool call's
// input even when it is {}).

type textBlock struct {
	Type         string        `json:"type"` // "text"
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type toolUseBlock struct {
	Type         string          `json:"type"` // "tool_use"
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolResultBlock struct {
	Type         string        `json:"type"` // "tool_result"
	ToolUseID    string        `json:"tool_use_id"`
	Content      string        `json:"content,omitempty"`
	IsError      bool          `json:"is_error,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// Wire format of a response.

// message is a Messages API answer.
type message struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"` // "message"
	Role         string          `json:"role"`
	Model        string          `json:"model"`
	Content      []responseBlock `json:"content"`
	StopReason   string          `json:"stop_reason"` // end_turn, tool_use, max_tokens, stop_sequence, pause_turn, refusal, …
	StopSequence *string         `json:"stop_sequence"`
	Usage        usage           `json:"usage"`
}

// responseBlock is any content block of an answer; the provider reads text
// and tool_use and passes over the others (thinking, server tools).
type responseBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// usage is what the call was billed: input_tokens is the uncached input;
// the cache write is broken down by lifetime in cache_creation.
type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreation            struct {
		Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
		Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

// decodeMessage reads a 2xx body: a message whose tool calls each have an
// id, a name and an object for input, and whose counters are not negative.
func decodeMessage(body []byte) (*message, error) {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("anthropic: undecodable answer: %w", err)
	}
	if m.Type != "message" {
		return nil, fmt.Errorf("anthropic: an answer of type %q, not a message", m.Type)
	}
	for i, b := range m.Content {
		if b.Type != "tool_use" {
			continue
		}
		if b.ID == "" || b.Name == "" {
			return nil, fmt.Errorf("anthropic: content[%d]: a tool_use without its id or name", i)
		}
		if !isObject(b.Input) {
			return nil, fmt.Errorf("anthropic: content[%d]: tool_use %s has input %.40q, not an object", i, b.Name, b.Input)
		}
	}
	u := m.Usage
	if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheCreationInputTokens < 0 || u.CacheReadInputTokens < 0 ||
		u.CacheCreation.Ephemeral5m < 0 || u.CacheCreation.Ephemeral1h < 0 {
		return nil, errors.New("anthropic: negative usage in the answer")
	}
	return &m, nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

// APIError is an answer other than 2xx, as the API describes it in its
// error envelope {"type":"error","error":{"type","message"}}.
type APIError struct {
	StatusCode int
	Type       string // invalid_request_error, authentication_error, rate_limit_error, overloaded_error, …
	Message    string
	RequestID  string        // the request-id header, for Anthropic's support
	RetryAfter time.Duration // what retry-after asked for; 0 when absent
	// retry is the API's own verdict (x-should-retry) or, without one,
	// the status's.
	retry bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "anthropic: %d", e.StatusCode)
	if e.Type != "" {
		b.WriteString(" " + e.Type)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// Retryable reports whether the same request may succeed later: a rate
// limit, an overload, a server error, a timeout or a conflict, unless the
// API said otherwise.
func (e *APIError) Retryable() bool { return e.retry }

// apiError builds the error of a non-2xx answer.
func apiError(res *http.Response, body []byte) *APIError {
	e := &APIError{StatusCode: res.StatusCode, RequestID: res.Header.Get("request-id")}
	var env struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error.Type != "" {
		e.Type, e.Message = env.Error.Type, env.Error.Message
		if e.RequestID == "" {
			e.RequestID = env.RequestID
		}
	} else {
		// Not the API's envelope (a proxy's page, say): keep its start.
		e.Message = strings.TrimSpace(string(body[:min(len(body), 200)]))
	}
	e.RetryAfter, _ = retryAfter(res.Header)
	switch strings.ToLower(res.Header.Get("x-should-retry")) {
	case "true":
		e.retry = true
	case "false":
		e.retry = false
	default:
		s := res.StatusCode
		e.retry = s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
	}
	return e
}

// retryAfter is the wait an answer asks for: retry-after-ms, or
// retry-after in seconds or as an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := h.Get("retry-after")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e9 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// client calls POST /v1/messages, retrying what the API says may succeed
// later.
type client struct {
	http      *http.Client
	url       string // the endpoint: the base URL + /v1/messages
	apiKey    string
	workspace string // anthropic-workspace-id, when set

	// maxRetries is how many times a failed call is made again.
	maxRetries int
	// The wait before retry n (from 0) is backoffBase·2ⁿ, at most
	// backoffMax, less up to a quarter of it at random; a retry-after
	// replaces it. A retry-after over maxRetryAfter is not waited for:
	// the error is returned at once.
	backoffBase, backoffMax, maxRetryAfter time.Duration
}

func newClient(apiKey, baseURL, workspace string) *client {
	if baseURL == "" {
		baseURL = defaultBaseURL
	}
	return &client{
		// A Messages call without streaming answers within 10 minutes;
		// the caller's context is the tighter bound.
		http:          &http.Client{Timeout: 10 * time.Minute},
		url:           strings.TrimRight(baseURL, "/") + "/v1/messages",
		apiKey:        apiKey,
		workspace:     workspace,
		maxRetries:    2,
		backoffBase:   500 * time.Millisecond,
		backoffMax:    8 * time.Second,
		maxRetryAfter: time.Minute,
	}
}

// create makes the call, retrying a retryable failure up to maxRetries
// times. A cancelled context ends a wait at once.
func (c *client) create(ctx context.Context, req *messagesRequest) (*message, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("anthropic: request: %w", err)
	}
	for attempt := 0; ; attempt++ {
		msg, wait, err := c.once(ctx, body)
		if err == nil {
			return msg, nil
		}
		if wait < 0 || attempt >= c.maxRetries || ctx.Err() != nil {
			return nil, err
		}
		if wait == 0 {
			wait = c.backoff(attempt)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("anthropic: gave up waiting %v to retry: %w (after %w)", wait, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// once is one attempt. On failure, wait says what may follow: -1 no retry,
// 0 a retry after the backoff, more a retry after that long.
func (c *client) once(ctx context.Context, body []byte) (_ *message, wait time.Duration, _ error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, -1, fmt.Errorf("anthropic: %w", err)
	}
	hreq.Header.Set("x-api-key", c.apiKey)
	hreq.Header.Set("anthropic-version", apiVersion)
	hreq.Header.Set("content-type", "application/json")
	hreq.Header.Set("accept", "application/json")
	if c.workspace != "" {
		hreq.Header.Set("anthropic-workspace-id", c.workspace)
	}
	res, err := c.http.Do(hreq)
	if err != nil {
		// The connection failed or timed out: worth another try unless
		// the caller has gone.
		return nil, 0, fmt.Errorf("anthropic: %w", err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("anthropic: reading the answer: %w", err)
	}
	if len(data) > maxResponseBytes {
		return nil, -1, fmt.Errorf("anthropic: an answer over %d bytes", maxResponseBytes)
	}
	if res.StatusCode/100 != 2 {
		e := apiError(res, data)
		switch {
		case !e.retry:
			return nil, -1, e
		case e.RetryAfter > c.maxRetryAfter:
			return nil, -1, e
		case e.RetryAfter > 0:
			return nil, e.RetryAfter, e
		default:
			// retry-after: 0, or none: the backoff.
			return nil, 0, e
		}
	}
	msg, err := decodeMessage(data)
	if err != nil {
		if id := res.Header.Get("request-id"); id != "" {
			err = fmt.Errorf("%w (request %s)", err, id)
		}
		return nil, -1, err
	}
	return msg, 0, nil
}

// backoff is the wait before retry n (from 0) when the API names none.
func (c *client) backoff(n int) time.Duration {
	d := c.backoffBase << min(n, 20)
	if d <= 0 || d > c.backoffMax {
		d = c.backoffMax
	}
	return d - time.Duration(rand.Int64N(int64(d)/4+1))
}

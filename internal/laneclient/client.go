// Package laneclient calls the automation lane for the tools: bearer auth,
// the {ok,data}|{ok:false,error} envelope unwrapped, lane errors kept as the
// lane's own sentences. It takes an http.RoundTripper: inside the server one
// that runs the lane's handler chain in process (HandlerTransport), in
// perform-mcp the network.
package laneclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	sjson "github.com/segmentio/encoding/json"

	"github.com/otherwise/perform/internal/auth"
)

// Request is one call to the lane, as a tool builds it (internal/tools):
// Method, Path relative to /v1/automation, optional query and JSON body.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   any
	// IdempotencyKey, when set, is sent as the Idempotency-Key header so a
	// repeated write is answered from the first one. Tool definitions never
	// set it; a caller that may repeat a call does.
	IdempotencyKey string
	// DryRun sends the write with Prefer: dry-run: the lane validates and
	// answers what it would do, and keeps nothing.
	DryRun bool
}

// Error is a lane error answer. Message is the lane's sentence, meant for a model.
type Error struct {
	Status    int    `json:"-"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"-"`
	// RetryAfterSeconds is the answer's Retry-After (a rate limit's), 0 when it sent none.
	RetryAfterSeconds int `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// The lane's error codes (lane.Code…), as its envelope's error.code says
// them.
const (
	CodeUnauthorized = "UNAUTHORIZED"
	CodeForbidden    = "FORBIDDEN"
	CodeNotFound     = "NOT_FOUND"
	CodeConflict     = "CONFLICT"
	CodeValidation   = "VALIDATION"
	CodePlanLimit    = "PLAN_LIMIT"
	CodeRateLimited  = "RATE_LIMITED"
	CodeInternal     = "INTERNAL"
	CodeBadRequest   = "BAD_REQUEST"
	// CodeInProgress (lane.CodeIdempotencyInProgress, a 409 with
	// Retry-After): an earlier request with the same Idempotency-Key is
	// still being processed; retry it then, under the same key.
	CodeInProgress = "IDEMPOTENCY_IN_PROGRESS"
)

// Code is an error matching every lane *Error of that code:
// errors.Is(err, laneclient.ErrNotFound) decides by the envelope's
// error.code, never by the sentence.
type Code string

func (c Code) Error() string { return "the lane answered " + string(c) }

// The lane's codes as errors, for errors.Is.
var (
	ErrUnauthorized error = Code(CodeUnauthorized)
	ErrForbidden    error = Code(CodeForbidden)
	ErrNotFound     error = Code(CodeNotFound)
	ErrConflict     error = Code(CodeConflict)
	ErrValidation   error = Code(CodeValidation)
	ErrRateLimited  error = Code(CodeRateLimited)
	// ErrInProgress: the Idempotency-Key is held by an earlier request
	// still running (a process killed inside the call holds it for a
	// minute); the retry, under the same key, gets the first answer.
	ErrInProgress error = Code(CodeInProgress)
)

// Is matches a Code: the error's own, and for a key in progress also
// ErrConflict, which is what it is.
func (e *Error) Is(target error) bool {
	c, ok := target.(Code)
	return ok && (string(c) == e.Code || c == CodeConflict && e.Code == CodeInProgress)
}

// Client calls one lane. It is safe for concurrent use.
type Client struct {
	base   string // root URL + /v1/automation
	rt     http.RoundTripper
	source string
}

// New returns a client for the lane under rootURL (the server's root; the
// client appends /v1/automation). rt nil means http.DefaultTransport.
// source names the calling surface for the lane's audit (mcp, agent).
func New(rootURL string, rt http.RoundTripper, source string) *Client {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &Client{
		base:   strings.TrimRight(rootURL, "/") + "/v1/automation",
		rt:     rt,
		source: source,
	}
}

// WithSource is a client of the same lane that names another calling
// surface (the assistant's trainee turns are "whatsapp").
func (c *Client) WithSource(source string) *Client {
	cp := *c
	cp.source = source
	return &cp
}

// BaseURL is the lane's URL, root + /v1/automation.
func (c *Client) BaseURL() string { return c.base }

type envelope struct {
	OK        bool            `json:"ok"`
	Data      json.RawMessage `json:"data"`
	Error     *Error          `json:"error"`
	RequestID string          `json:"requestId"`
	Matched   []string        `json:"matched"`
}

// ReplayedHeader marks an answer the lane gave from an earlier request
// with the same Idempotency-Key (lane.ReplayedHeader).
const ReplayedHeader = "Idempotent-Replayed"

// Meta is what an answer says besides its data.
type Meta struct {
	Status int
	// Replayed: the answer is an earlier identical write's, and this call
	// changed nothing.
	Replayed bool
	// Matched says what each name given where an id was asked was taken
	// for (the envelope's matched).
	Matched []string
}

// Do makes the call with apiKey as bearer and returns the lane's data.
// A lane error is an *Error; anything else is a transport failure, worded
// for the person or model who has to fix it.
func (c *Client) Do(ctx context.Context, apiKey string, r Request) (json.RawMessage, error) {
	data, _, err := c.DoMeta(ctx, apiKey, r)
	return data, err
}

// DoMeta is Do, also returning the answer's status and whether it was replayed.
func (c *Client) DoMeta(ctx context.Context, apiKey string, r Request) (json.RawMessage, Meta, error) {
	u := c.base + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var body io.Reader
	if r.Body != nil {
		b, err := json.Marshal(r.Body)
		if err != nil {
			return nil, Meta{}, fmt.Errorf("encoding the request body for %s %s: %w", r.Method, r.Path, err)
		}
		body = bytes.NewReader(b)
	}
	// In process the surface is marked in the context directly (what
	// HandlerTransport would make of the header), which saves it copying
	// the request's headers to drop the header again on every call.
	_, inProcess := c.rt.(*handlerTransport)
	if inProcess && c.source != "" {
		ctx = auth.WithSource(ctx, c.source)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("building the lane request %s %s: %w", r.Method, r.Path, err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.source != "" && !inProcess {
		req.Header.Set(auth.SourceHeader, c.source)
	}
	if r.IdempotencyKey != "" {
		req.Header.Set("Idempotency-Key", r.IdempotencyKey)
	}
	if r.DryRun {
		req.Header.Set("Prefer", "dry-run")
	}
	// The round tripper is called directly: the lane never redirects, and
	// http.Client would only add its own allocations.
	resp, err := c.rt.RoundTrip(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Meta{}, fmt.Errorf("the call to %s %s was cancelled: %w", r.Method, r.Path, ctx.Err())
		}
		return nil, Meta{}, fmt.Errorf("the Perform server at %s could not be reached: %w", c.base, err)
	}
	meta := Meta{Status: resp.StatusCode, Replayed: resp.Header.Get(ReplayedHeader) == "true"}
	raw, err := readBody(resp.Body)
	if err != nil {
		return nil, meta, fmt.Errorf("reading the answer to %s %s: %w", r.Method, r.Path, err)
	}
	// The envelope is decoded with the parser the hosted endpoint and the
	// MCP SDK use: on every tool call it is a quarter of the cost of
	// encoding/json's, which scans the answer once to check it and again to
	// decode it.
	var env envelope
	if err := sjson.Unmarshal(raw, &env); err != nil || (!env.OK && env.Error == nil) {
		return nil, meta, fmt.Errorf("the Perform server at %s answered %s to %s %s without the lane's JSON envelope; check that the URL is a Perform server's root",
			c.base, resp.Status, r.Method, r.Path)
	}
	if !env.OK {
		e := env.Error
		e.Status = resp.StatusCode
		e.RequestID = env.RequestID
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n > 0 {
			e.RetryAfterSeconds = n
		}
		return nil, meta, e
	}
	meta.Matched = env.Matched
	return env.Data, meta, nil
}

// readBody reads and closes an answer's body, without a copy when it comes
// from HandlerTransport.
func readBody(body io.ReadCloser) ([]byte, error) {
	defer body.Close()
	if m, ok := body.(*memoryBody); ok {
		return m.Bytes(), nil
	}
	return io.ReadAll(body)
}

// StudioInfo is what GET /validate answers.
type StudioInfo struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// Validate checks apiKey against GET /validate.
func (c *Client) Validate(ctx context.Context, apiKey string) (StudioInfo, error) {
	var s StudioInfo
	data, err := c.Do(ctx, apiKey, Request{Method: http.MethodGet, Path: "/validate"})
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("the Perform server at %s answered GET /validate with data that does not name a studio: %w", c.base, err)
	}
	return s, nil
}

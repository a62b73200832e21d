// Package laneclient calls the automation lane for the tools: bearer auth,
// the {ok,data}|{ok:false,error} envelope unwrapped, lane errors kept as the
// lane's own sentences. It takes an http.RoundTripper: inside the server one
// that runs the lane's handler chain in process, in perform-mcp the network.
package laneclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/tools"
)

// SourceHeader tells the lane which surface made a call (api, mcp, agent),
// for the audit trail.
const SourceHeader = "X-Perform-Source"

// Error is a lane error answer. Message is the lane's sentence, meant for a model.
type Error struct {
	Status    int
	Code      string
	Message   string
	RequestID string
}

func (e *Error) Error() string { return e.Message }

// Client calls one lane.
type Client struct {
	base   string // root URL + /v1/automation
	hc     *http.Client
	source string
}

// New returns a client for the lane under rootURL (the server's root; the
// client appends /v1/automation). rt nil means http.DefaultTransport.
func New(rootURL string, rt http.RoundTripper, source string) *Client {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &Client{
		base:   strings.TrimRight(rootURL, "/") + "/v1/automation",
		hc:     &http.Client{Transport: rt},
		source: source,
	}
}

type envelope struct {
	OK        bool            `json:"ok"`
	Data      json.RawMessage `json:"data"`
	Error     *Error          `json:"error"`
	RequestID string          `json:"requestId"`
}

// Do makes the call with apiKey as bearer and returns the lane's data.
// A lane error is an *Error; anything else is a transport failure.
func (c *Client) Do(ctx context.Context, apiKey string, r tools.Request) (json.RawMessage, error) {
	u := c.base + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var body io.Reader
	if r.Body != nil {
		b, err := json.Marshal(r.Body)
		if err != nil {
			return nil, fmt.Errorf("encoding the request body: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.source != "" {
		req.Header.Set(SourceHeader, c.source)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the Perform server at %s could not be reached: %w", c.base, err)
	}
	defer resp.Body.Close()
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return nil, fmt.Errorf("the Perform server answered %d with something that is not the lane's JSON envelope", resp.StatusCode)
	}
	if !env.OK || env.Error != nil {
		e := env.Error
		if e == nil {
			e = &Error{Code: "INTERNAL", Message: "the lane answered without data or error"}
		}
		e.Status = resp.StatusCode
		e.RequestID = env.RequestID
		return nil, e
	}
	return env.Data, nil
}

// StudioInfo is what GET /validate answers.
type StudioInfo struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// Validate checks apiKey against GET /validate.
func (c *Client) Validate(ctx context.Context, apiKey string) (StudioInfo, error) {
	var s StudioInfo
	data, err := c.Do(ctx, apiKey, tools.Request{Method: http.MethodGet, Path: "/validate"})
	if err != nil {
		return s, err
	}
	err = json.Unmarshal(data, &s)
	return s, err
}

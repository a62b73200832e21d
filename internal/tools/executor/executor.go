// Package executor runs one coach tool call for every AI surface: the
// hosted /mcp, perform-mcp over stdio and the WhatsApp assistant. It takes
// a tool name, the model's raw arguments and the studio credential, and
// answers the lane's data or one sentence the model can act on.
//
// Run is the one choke point between a model and the lane. Its stages, in
// order, are where later policy hooks in:
//
//  1. resolve: the tool by name (an unknown name lists the tools);
//  2. build: the arguments checked against the tool's schema and turned into
//     one lane request (ids checked for their kind, forced-silent fields set);
//  3. prepare: the request's Idempotency-Key (a confirmation step or
//     identity headers would go here, before anything is sent);
//  4. call: the lane, through laneclient; its errors stay its own sentences
//     and a refused credential is its own outcome (Unauthorized);
//  5. answer: the data as the lane gave it (data scrubbing would go here).
//
// It links no store, metrics or server configuration, so perform-mcp stays small.
package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/tools"
)

// Outcome is how a call ended.
type Outcome string

const (
	// OK: the lane answered with data.
	OK Outcome = "ok"
	// UnknownTool: no tool of that name is offered.
	UnknownTool Outcome = "unknown_tool"
	// InvalidArguments: the tool refused the arguments; nothing was sent.
	InvalidArguments Outcome = "invalid_arguments"
	// LaneError: the lane refused the request with a sentence.
	LaneError Outcome = "lane_error"
	// Unauthorized: the lane refused the credential (401). The assistant
	// treats it as its key being revoked and stops.
	Unauthorized Outcome = "unauthorized"
	// Unavailable: the lane could not be reached or answered no envelope.
	Unavailable Outcome = "unavailable"
)

// Call is one tool call.
type Call struct {
	Tool   string
	Args   json.RawMessage
	APIKey string
	// IdempotencyKey, when set, is the key a write is sent with, overriding
	// the executor's own; the assistant passes one per turn and call so a
	// turn re-run after a crash writes nothing twice.
	IdempotencyKey string
}

// Result is a call's answer: Data when Outcome is OK, else Sentence.
type Result struct {
	Outcome  Outcome
	Data     json.RawMessage
	Sentence string
	// Status is the lane's HTTP status when the lane answered.
	Status int
	// Repeat: the lane answered from an earlier identical write.
	Repeat bool
}

// Failed reports whether the result is an error for the model.
func (r Result) Failed() bool { return r.Outcome != OK }

// Text is what the model reads: the data, or the sentence.
func (r Result) Text() string {
	if r.Outcome == OK {
		return string(r.Data)
	}
	return r.Sentence
}

// Executor runs the calls of one tool set against one lane. It is safe for
// concurrent use.
type Executor struct {
	client *laneclient.Client
	tools  map[string]tools.Tool
	names  []string
}

// New returns an executor offering set (tools.All() for MCP,
// tools.AgentSubset() for the assistant) through client.
func New(client *laneclient.Client, set []tools.Tool) *Executor {
	e := &Executor{client: client, tools: make(map[string]tools.Tool, len(set))}
	for _, t := range set {
		e.tools[t.Name] = t
		e.names = append(e.names, t.Name)
	}
	return e
}

// Tools are the tools offered, in their documented order.
func (e *Executor) Tools() []tools.Tool {
	out := make([]tools.Tool, 0, len(e.names))
	for _, n := range e.names {
		out = append(out, e.tools[n])
	}
	return out
}

// Run executes c. A context cancelled during the lane call ends as
// Unavailable; the caller can tell by its own ctx.Err().
func (e *Executor) Run(ctx context.Context, c Call) Result {
	// 1. resolve
	t, ok := e.tools[c.Tool]
	if !ok {
		return Result{Outcome: UnknownTool, Sentence: fmt.Sprintf("There is no tool named %s; the tools are %s.", c.Tool, strings.Join(e.names, ", "))}
	}
	// 2. build
	req, err := t.Build(c.Args)
	if err != nil {
		return Result{Outcome: InvalidArguments, Sentence: err.Error()}
	}
	// 3. prepare
	if !t.ReadOnly {
		req.IdempotencyKey = c.IdempotencyKey
	}
	// 4. call
	data, meta, err := e.client.DoMeta(ctx, c.APIKey, req)
	var laneErr *laneclient.Error
	switch {
	case errors.As(err, &laneErr) && laneErr.Status == http.StatusUnauthorized:
		return Result{Outcome: Unauthorized, Sentence: laneErr.Message, Status: laneErr.Status}
	case errors.As(err, &laneErr):
		return Result{Outcome: LaneError, Sentence: laneErr.Message, Status: laneErr.Status}
	case err != nil:
		return Result{Outcome: Unavailable, Sentence: sentence(err.Error())}
	}
	// 5. answer
	return Result{Outcome: OK, Data: data, Status: meta.Status, Repeat: meta.Replayed}
}

// Key is an Idempotency-Key for one call under scope: scope, then a hash of
// the tool and its canonical arguments (decoded and encoded again: sorted
// keys, no spaces), so the model's formatting does not matter.
func Key(scope, tool string, args json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(tool + "\x00"))
	h.Write(Canonical(args))
	return scope + ":" + hex.EncodeToString(h.Sum(nil))[:32]
}

// Canonical is args decoded and encoded again, or args as given when they
// are not JSON.
func Canonical(args json.RawMessage) []byte {
	var v any
	if json.Unmarshal(args, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return b
		}
	}
	return args
}

// sentence makes an error text one sentence: capitalised, with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

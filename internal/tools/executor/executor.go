// Package executor runs one coach tool call for every AI surface: the
// hosted /mcp, perform-mcp over stdio and the WhatsApp assistant. It takes
// a tool name, the model's raw arguments and the studio credential, and
// answers the lane's data or one sentence the model can act on.
//
// Run is the one choke point between a model and the lane. Its stages, in
// order, are where later policy hooks in:
//
//  1. resolve: the tool by name (an unknown name answers the closest
//     names; a name the set holds back until a step, such as the trainee
//     tools of a platform conversation not yet verified, says the step);
//  2. build: the arguments checked against the tool's schema and turned into
//     one lane request (ids checked for their kind, forced-silent fields set);
//  3. prepare: the request's Idempotency-Key, derived from the credential,
//     the tool and its canonical arguments, so an identical write repeated
//     within RepeatWindow is answered from the first and changes nothing (a
//     confirmation step or identity headers would go here, before anything
//     is sent);
//  4. call: the lane, through laneclient; its errors stay its own sentences
//     and a refused credential is its own outcome (Unauthorized);
//  5. answer: the data as the lane gave it (data scrubbing would go here).
//
// Read is the same call and answer for a lane read that is no tool's (an
// MCP resource, a prompt's data), so every lane error reaches a model
// through one mapping.
//
// It links no store, metrics or server configuration, so perform-mcp stays small.
package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

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
	// Locked: the set holds the tool back until a step (Lock); the
	// sentence says the step. Nothing was sent.
	Locked Outcome = "locked"
)

// The codes of failures that are not the lane's own (the lane's are
// lane.Code…: NOT_FOUND, VALIDATION, RATE_LIMITED…; laneclient.Code…).
const (
	CodeUnknownTool      = "UNKNOWN_TOOL"
	CodeInvalidArguments = "INVALID_ARGUMENTS"
	CodeUnavailable      = "UNAVAILABLE"
)

// Call is one tool call.
type Call struct {
	Tool   string
	Args   json.RawMessage
	APIKey string
	// IdempotencyKey, when set, is the key a write is sent with instead of
	// the derived one (RepeatKey), for a caller with a key of its own.
	IdempotencyKey string
	// DryRun asks the lane to validate a write and answer what it would
	// do, keeping nothing (Prefer: dry-run); no Idempotency-Key is sent.
	DryRun bool
}

// Result is a call's answer: Data when Outcome is OK, else Sentence.
type Result struct {
	Outcome  Outcome
	Data     json.RawMessage
	Sentence string
	// Status is the lane's HTTP status when the lane answered.
	Status int
	// Code is the lane's error code (NOT_FOUND, RATE_LIMITED…) when the
	// lane refused, else the outcome's own (INVALID_ARGUMENTS…).
	Code string
	// RetryAfterSeconds is when to try again after a limit, 0 for no wait.
	RetryAfterSeconds int
	// Note is RepeatNote when Repeat.
	Note string
	// Matched says what each name given for an id was taken for.
	Matched []string
	// Repeat: the lane answered from an earlier identical write, and this
	// call changed nothing.
	Repeat bool
	// Err is the failure as an error when the lane call failed: a
	// *laneclient.Error for a lane refusal (errors.Is against
	// laneclient.ErrInProgress and the other codes), else the transport's.
	Err error
}

// RepeatPrefix and RepeatWindow are the lane's (lane.RepeatKeyPrefix,
// lane.RepeatWindow): a derived key is kept ten minutes, not a day.
const (
	RepeatPrefix = "repeat:"
	RepeatWindow = 10 * time.Minute
)

// RepeatNote is what the model reads after the data of a repeated write.
func RepeatNote(tool string) string {
	return "Repeat: an identical " + tool + " call (same key, same arguments) was already made in the last 10 minutes; " +
		"this is its answer, and nothing was done again. To do it a second time on purpose, change an argument or wait 10 minutes."
}

// Failed reports whether the result is an error for the model.
func (r Result) Failed() bool { return r.Outcome != OK }

// Text is what the model reads: the data (and, for a repeat, the
// repeat's note), or the sentence.
func (r Result) Text() string {
	if r.Outcome != OK {
		return r.Sentence
	}
	out := string(r.Data)
	if len(r.Matched) > 0 {
		out += "\n\nMatched: " + strings.Join(r.Matched, "; ") + "."
	}
	if r.Repeat {
		out += "\n\n" + r.Note
	}
	return out
}

// Executor runs the calls of one tool set against one lane. It is safe for
// concurrent use.
type Executor struct {
	client *laneclient.Client
	tools  map[string]tools.Tool
	names  []string
	locked map[string]lock
}

type lock struct {
	code string
	why  func(tool string) string
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

// Lock holds back the tools named: a call of one answers Locked with code
// and why(tool), the step that opens it, instead of an unknown tool. Call
// it before the executor is used; it returns e.
func (e *Executor) Lock(names []string, code string, why func(tool string) string) *Executor {
	if e.locked == nil {
		e.locked = map[string]lock{}
	}
	for _, n := range names {
		if _, offered := e.tools[n]; !offered {
			e.locked[n] = lock{code: code, why: why}
		}
	}
	return e
}

// Offers reports whether the set holds the tool name.
func (e *Executor) Offers(name string) bool {
	_, ok := e.tools[name]
	return ok
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
		return e.unknown(c.Tool)
	}
	// 2. build
	req, err := t.Build(c.Args)
	if err != nil {
		return Result{Outcome: InvalidArguments, Code: CodeInvalidArguments, Sentence: err.Error()}
	}
	// 3. prepare
	switch {
	case !t.ReadOnly && c.DryRun:
		req.DryRun = true
	case !t.ReadOnly && (!t.Unkeyed || c.IdempotencyKey != ""):
		req.IdempotencyKey = c.IdempotencyKey
		if req.IdempotencyKey == "" {
			req.IdempotencyKey = RepeatKey(c.APIKey, t.Name, req)
		}
	}
	// 4. call, 5. answer
	r := e.call(ctx, c.APIKey, req, t.Reword)
	if r.Repeat {
		r.Note = RepeatNote(t.Name)
	}
	return r
}

// Read makes one lane read that is no tool's (a resource, a prompt's
// data) and answers it as Run does: the data, or the lane's refusal with
// its code, or Unavailable.
func (e *Executor) Read(ctx context.Context, apiKey string, req tools.Request) Result {
	return e.call(ctx, apiKey, req, nil)
}

// call is Run's stages 4 and 5: the lane call and its answer.
func (e *Executor) call(ctx context.Context, apiKey string, req tools.Request, reword func(string) string) Result {
	data, meta, err := e.client.DoMeta(ctx, apiKey, req)
	var laneErr *laneclient.Error
	switch {
	case errors.As(err, &laneErr) && laneErr.Status == http.StatusUnauthorized:
		return Result{Outcome: Unauthorized, Sentence: laneErr.Message, Status: laneErr.Status, Code: laneErr.Code}
	case errors.As(err, &laneErr):
		said := laneErr.Message
		if reword != nil {
			said = reword(said)
		}
		return Result{Outcome: LaneError, Sentence: said, Status: laneErr.Status, Code: laneErr.Code, RetryAfterSeconds: laneErr.RetryAfterSeconds, Err: laneErr}
	case err != nil:
		return Result{Outcome: Unavailable, Code: CodeUnavailable, Sentence: sentence(err.Error()), Err: err}
	}
	return Result{Outcome: OK, Data: data, Status: meta.Status, Repeat: meta.Replayed, Matched: meta.Matched}
}

// unknown is the answer to a tool the set does not offer: the step that
// opens a locked one, else the closest names of the set.
func (e *Executor) unknown(name string) Result {
	if l, ok := e.locked[name]; ok {
		return Result{Outcome: Locked, Code: l.code, Sentence: l.why(name)}
	}
	// A locked tool is a good guess too: calling it says the step.
	return Result{Outcome: UnknownTool, Code: CodeUnknownTool, Sentence: UnknownToolSentence(name, e.names, slices.Sorted(maps.Keys(e.locked))...)}
}

// RepeatKey is the Idempotency-Key of a write: the credential (hashed: the
// lane stores the key), the tool and the lane request its arguments made,
// so arguments that differ only in formatting, order or nulls (read as
// left out) make one key.
func RepeatKey(apiKey, tool string, req tools.Request) string {
	credential := sha256.Sum256([]byte(apiKey))
	call, _ := json.Marshal(struct {
		Method, Path string
		Query        string
		Body         any
	}{req.Method, req.Path, req.Query.Encode(), req.Body})
	return Key(RepeatPrefix+hex.EncodeToString(credential[:8]), tool, call)
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

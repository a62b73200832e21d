// Package tools holds Perform's coach tool set, a trainee's tool set
// (trainee.go) and an agent platform's (platform.go) as data: each tool is a
// description of one HTTP call to the automation lane, its input schema
// derived from the lane's contract of the route (lane_contracts.json). The hosted MCP server, the perform-mcp binary and the
// WhatsApp agent all read it; none of them touches the store.
package tools

import (
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/otherwise/perform/internal/laneclient"
)

// Request is the call to the lane a tool builds (laneclient.Request, the
// lane client's own type).
type Request = laneclient.Request

// Tool is one tool definition.
type Tool struct {
	Name        string
	Title       string
	Description string
	ReadOnly    bool
	// Idempotent: calling it again with the same arguments changes nothing
	// more (every read; the writes that set values). The 10-minute repeat
	// guard on every write is a safety net, not this.
	Idempotent bool
	// OpenWorld: the tool reaches outside the studio's own data (it sends
	// a message to a phone). A directory reads openWorldHint from it.
	OpenWorld bool
	// Destructive: the tool's change cannot be undone (deleting or
	// cancelling what cannot be restored); creates and updates are not.
	// A directory reads destructiveHint from it.
	Destructive bool
	// Method and Path are the lane route the tool calls (Path with its
	// {id} or {phone} wildcard).
	Method, Path string
	// Scope is what the caller's credential must hold for the route:
	// studio:read for a read, studio:write for a write, never studio:admin.
	Scope string
	// View, when set, is the ui:// address of the view that draws the
	// tool's answer: the lane declares it on the route (lane.View), so the
	// coach's and the trainee's tools of one route share it.
	View string
	// InputSchema is the input as tools/list shows it: Validates less the
	// upper bounds of long text (catalogued).
	InputSchema *jsonschema.Schema
	// Validates is the whole input schema Build checks arguments against,
	// every bound of the lane's route kept.
	Validates *jsonschema.Schema
	// Build decodes and validates the model's arguments and returns the lane call.
	Build func(args json.RawMessage) (Request, error)
	// Unkeyed: the executor derives no Idempotency-Key for the write. The
	// platform's verification calls change a conversation's state, which
	// the key (credential, tool, arguments) cannot name: two conversations
	// of one platform key send the same arguments, and a code asked for
	// again on purpose must go out again. A weekly plan's draft neither:
	// the lane answers the pending draft only while its input is the same.
	Unkeyed bool
	// Reword, when set, rewrites a lane sentence for the set's reader: the
	// lane names the coach tools where ids come from, and a trainee's
	// model has the trainee tools instead.
	Reword func(sentence string) string
	// Notifies: the tool sends progress or log notifications while it
	// runs, so the hosted endpoint answers its calls through the SDK's
	// Streamable HTTP handler, never its fast path. No tool does today.
	Notifies bool
}

// all is built once: schemas are inferred and resolved at start-up, never per call.
var all = func() []Tool {
	contracts := LaneContracts()
	var set []Tool
	groups := [][]spec{reads(), writes(), sessionTools(), healthTools(), exerciseTools(), insightTools()}
	for _, s := range slices.Concat(groups...) {
		set = append(set, define(s, contracts))
	}
	return set
}()

// All returns the coach tools in their documented order: the studio reads and
// writes, then the training memory's groups (sessions, health, exercises, insights).
// The slice is fresh; the tools in it share their schemas, which callers must not modify.
func All() []Tool {
	return append([]Tool(nil), all...)
}

// AgentSubset is what the WhatsApp assistant may use: every read-only tool,
// create_task and draft_weekly_plan (writes that only reach the coach: a
// task, a draft that plans nothing, run at once) and
// the writes it may only propose (AgentProposals), which run when the
// coach confirms them. Nothing in it deletes, messages a trainee, freezes,
// cancels or invites.
func AgentSubset() []Tool {
	var subset []Tool
	for _, t := range all {
		if t.ReadOnly || t.Name == "create_task" || t.Name == "draft_weekly_plan" || NeedsConfirmation(t.Name) {
			subset = append(subset, t)
		}
	}
	return subset
}

// AgentProposals are the coach writes the assistant proposes instead of
// running: they change a trainee's record from a chat message, so each
// waits for the coach's yes.
var AgentProposals = []string{
	"update_trainee", "assign_plan", "record_payment", "assign_program", "send_form", "update_task", "log_weight", "log_workout", "create_planned_session",
	"modify_session", "record_injury", "apply_weekly_plan",
}

// NeedsConfirmation reports whether the assistant only proposes the tool.
func NeedsConfirmation(name string) bool { return slices.Contains(AgentProposals, name) }

// ByName finds a tool of the set.
func ByName(name string) (Tool, bool) {
	for _, t := range all {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

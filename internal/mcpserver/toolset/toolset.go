// Package toolset binds Perform's coach tools, or a trainee's tools with
// their resources and prompts, to a lane client as an MCP server (official
// go-sdk), for any transport: the hosted endpoint
// (package mcpserver) and perform-mcp over stdio. It links no metrics, store
// or server configuration, so the stdio binary stays small.
//
// A tool call is one lane call: the answer's data goes back as JSON text and
// structuredContent, a lane error as the lane's own sentence with isError
// and the same as a structured error (ErrorContent).
package toolset

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/buildinfo"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
	"github.com/otherwise/perform/internal/views"
)

// Version is what the server reports at initialize: the release's.
const Version = buildinfo.Version

// Instructions are sent to the client at initialize, for the model.
const Instructions = `These tools read and change one coaching studio in Perform. The credential chose the studio and who is asking: a coach's own sign-in speaks for her (coachId me, and the default of every coachId filter: her trainees, her tasks); a studio API key speaks for the whole studio.
A traineeId (and a coach, plan, template, form or exercise id) takes the id or the name as said, Hebrew or Latin; an ambiguous name answers the candidates. search_trainees finds by name, phone or email.
A question about all the trainees at once (who trained or not, plans ending, soreness, injuries, feedback, who needs attention) is one call: roster or needs_attention, never one call per trainee.
Other ids come from the list tools: plans (prd_…) from list_plans, program templates from list_program_templates, forms from list_forms, coaches from list_coaches, tags from list_tags, tasks from list_tasks.
Lists take limit (1-200, default 20) and offset (from 0), and answer {items, total, nextOffset}; nextOffset null is the last page. ` + tools.DateRule + `
No tool messages a trainee, deletes anything, freezes or cancels a plan: writes are silent, except send_form, which by default announces the form once. To have a coach act, use create_task. ` + tools.RepeatSentence + `
To move an appointment, book the new time first, then cancel the old one: a time that cannot be booked leaves her place as it was.
A failed call answers a sentence saying what to fix (often which tool gives a valid id): follow it and call again.`

// Options configure the MCP server.
type Options struct {
	// Client calls the lane; in the server it runs the lane in process.
	Client *laneclient.Client
	Logger *slog.Logger
	// APIKey, when set, is used for every tool call (perform-mcp over stdio).
	// When empty, each call uses the bearer token of its HTTP request.
	APIKey string
	// OnToolCall, when set, is told each call's tool and outcome (metrics).
	OnToolCall func(tool, outcome string)
	// Scopes, when not nil, limits the server to the tools whose scope is
	// one of them (an OAuth grant sees what it may call); nil: every tool.
	Scopes []string
	// Trainee serves the trainee set (tools.Trainee) with its resources and
	// prompts, for a trainee's own connection, instead of the coach tools.
	Trainee bool
	// Platform serves an agent platform's key: the platform's tools
	// (tools.Platform: the public ones, and with Trainee sign_out and the
	// trainee tools of a verified conversation), never the coach tools.
	Platform bool
	// SiteURL, when set, is the Perform server's root URL (an origin): the
	// server info names it as websiteUrl and its IconPath as the icon.
	SiteURL string
	// SDKPathOnly turns the hosted endpoint's fast path off: every message,
	// tools/call included, goes through the SDK's Streamable HTTP handler
	// (PERFORM_MCP_FAST_PATH=off).
	SDKPathOnly bool
}

// IconPath is where a Perform server serves its icon, a 256×256 PNG.
const IconPath = "/icon.png"

// implementation is the server info sent at initialize: the name, the
// title and the version, and with a site URL the icon and the website
// (what a client shows beside the connection).
func implementation(opts Options) *mcp.Implementation {
	impl := &mcp.Implementation{Name: "perform", Title: "Perform", Version: Version}
	if opts.SiteURL != "" {
		impl.WebsiteURL = opts.SiteURL
		impl.Icons = []mcp.Icon{{Source: opts.SiteURL + IconPath, MIMEType: "image/png", Sizes: []string{"256x256"}}}
	}
	return impl
}

// Outcomes of a tool call, as OnToolCall receives them.
const (
	OutcomeOK               = "ok"
	OutcomeInvalidArguments = "invalid_arguments"
	OutcomeLaneError        = "lane_error"
	OutcomeUnavailable      = "unavailable"
	// OutcomeLocked: a tool the server holds back until a step (a
	// platform conversation's verification, a scope); nothing was sent.
	OutcomeLocked = "locked"
)

// NewServer returns an MCP server holding the coach tools (or, with
// opts.Trainee, the trainee tools, resources and prompts), each bound to
// the lane through opts.Client. Tools are static, so one server can serve
// every session and request.
func NewServer(opts Options) *mcp.Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	instructions := Instructions
	switch {
	case opts.Platform && !opts.Trainee:
		instructions = PlatformInstructions
	case opts.Trainee:
		instructions = TraineeInstructions
	}
	s := mcp.NewServer(implementation(opts),
		&mcp.ServerOptions{Instructions: instructions, Logger: logger, Capabilities: capabilities()})
	ex := Executor(opts)
	for _, t := range ex.Tools() {
		s.AddTool(&mcp.Tool{
			Name:        t.Name,
			Title:       t.Title,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: Annotations(t),
			Meta:        viewMeta(t),
		}, handler(t, ex, opts, logger))
	}
	addViews(s, ex)
	s.AddReceivingMiddleware(unknownTools(ex, opts))
	if opts.Trainee {
		addTraineeResources(s, opts, ex)
		addTraineePrompts(s, opts, ex)
	}
	return s
}

// Executor is the one executor of the server opts describe: the tools it
// lists and runs (the coach set, the trainee set or the platform's, those
// of its scopes), holding back the tools a step would open, with the step.
// Resources and prompts read through it too.
func Executor(opts Options) *executor.Executor {
	var set, locked []tools.Tool
	switch {
	case opts.Platform && !opts.Trainee:
		set, locked = tools.PlatformPublic(), append(tools.Trainee(), tools.Platform()...)
	case opts.Platform:
		set = tools.Platform()
		for _, t := range tools.Trainee() {
			if allowed(opts, t.Scope) {
				set = append(set, t)
			} else {
				locked = append(locked, t)
			}
		}
	default:
		all := tools.All()
		if opts.Trainee {
			all = tools.Trainee()
		}
		for _, t := range all {
			if allowed(opts, t.Scope) {
				set = append(set, t)
			} else {
				locked = append(locked, t)
			}
		}
	}
	ex := executor.New(opts.Client, set)
	if opts.Platform && !opts.Trainee {
		return ex.Lock(names(locked), CodeVerificationRequired, verifyFirst)
	}
	scopes := map[string]string{}
	for _, t := range locked {
		scopes[t.Name] = t.Scope
	}
	return ex.Lock(names(locked), "FORBIDDEN", func(tool string) string {
		return tool + " needs the scope " + scopes[tool] + ", which this connection was not granted; connect again and approve " + scopes[tool] + " to use it."
	})
}

func names(set []tools.Tool) []string {
	out := make([]string, len(set))
	for i, t := range set {
		out[i] = t.Name
	}
	return out
}

// unknownTools answers a tools/call of a tool the server does not list, in
// one place for every set, through the executor: a tool a step would open
// is a failed call saying the step (a model reads it and acts), any other
// name the protocol's invalid params (-32602) naming the closest tools.
func unknownTools(ex *executor.Executor, opts Options) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || ex.Offers(call.Params.Name) {
				return next(ctx, method, req)
			}
			r := ex.Run(ctx, executor.Call{Tool: call.Params.Name})
			if r.Outcome == executor.Locked {
				if opts.OnToolCall != nil {
					opts.OnToolCall(call.Params.Name, OutcomeLocked)
				}
				return toolError(r), nil
			}
			return nil, rpcError(r, "")
		}
	}
}

// allowed reports whether opts' scopes hold scope (nil scopes hold every one).
func allowed(opts Options, scope string) bool {
	return opts.Scopes == nil || slices.Contains(opts.Scopes, scope)
}

// Annotations are the tool's hints as every server of this package lists
// them, every one explicit (the directories refuse a tool whose
// readOnlyHint, destructiveHint or openWorldHint is left to its default):
// read-only for a read; idempotent for every read and the writes that set
// values; destructive only for a change that cannot be undone (no tool
// deletes or cancels, so none is today); open world only for a tool that
// sends a message to a phone, outside the studio's own database. The title
// is the tool's own (Tool.title, which clients prefer), not repeated here.
func Annotations(t tools.Tool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent,
		DestructiveHint: new(t.Destructive), OpenWorldHint: new(t.OpenWorld)}
}

// capabilities are declared rather than inferred: the tool list never
// changes while a server runs (no listChanged), and the SDK answers
// prompts/list and resources/list (with empty lists), so those are declared
// too. Logging stays, as go-sdk servers accept logging/setLevel. The MCP
// Apps extension is declared with the one MIME type of its views.
func capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{
		//lint:ignore SA1019 clients on protocols before 2026-07-28 still call logging/setLevel.
		Logging:   &mcp.LoggingCapabilities{},
		Tools:     &mcp.ToolCapabilities{},
		Prompts:   &mcp.PromptCapabilities{},
		Resources: &mcp.ResourceCapabilities{},
	}
	c.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	return c
}

// rpcError is a failed result as a JSON-RPC error, the one mapping of the
// executor's codes (the lane's and its own) to MCP error codes, for what
// is not a tool call's result: a resource read, an unknown tool. The codes
// are the hosted endpoint's own for the same refusals (mcpserver: -32029
// over a limit, -32003 short of a scope, -32001 a refused credential),
// -32603 when the lane could not answer, else invalid params (SEP-2164),
// like any other refusal of what the client asked for. The error's data is
// the structured error, with the resource's uri when there is one.
func rpcError(r executor.Result, uri string) *jsonrpc.Error {
	code := int64(jsonrpc.CodeInvalidParams)
	switch {
	case r.Outcome == executor.Unavailable:
		code = jsonrpc.CodeInternalError
	case r.Code == "RATE_LIMITED":
		code = -32029
	case r.Code == "FORBIDDEN":
		code = -32003
	case r.Outcome == executor.Unauthorized || r.Code == "UNAUTHORIZED":
		code = -32001
	}
	data, _ := json.Marshal(struct {
		URI string `json:"uri,omitempty"`
		ErrorContent
	}{uri, ErrorContent{ErrorDetail{Code: r.Code, Message: r.Sentence, RetryAfterSeconds: r.RetryAfterSeconds}}})
	return &jsonrpc.Error{Code: code, Message: r.Sentence, Data: data}
}

func handler(t tools.Tool, ex *executor.Executor, opts Options, logger *slog.Logger) mcp.ToolHandler {
	report := func(outcome string) {
		if opts.OnToolCall != nil {
			opts.OnToolCall(t.Name, outcome)
		}
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				logger.Error("tool call panicked", "tool", t.Name, "panic", fmt.Sprint(p))
				report(OutcomeUnavailable)
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Perform failed unexpectedly while running " + t.Name + "; try again."}
			}
		}()
		r := ex.Run(ctx, executor.Call{Tool: t.Name, Args: req.Params.Arguments, APIKey: apiKey(opts, req.Extra)})
		switch r.Outcome {
		case executor.OK:
		case executor.Unavailable:
			logger.Warn("lane call failed", "tool", t.Name, "err", r.Sentence)
			report(OutcomeUnavailable)
			return toolError(r), nil
		case executor.InvalidArguments, executor.UnknownTool, executor.Locked:
			report(OutcomeInvalidArguments)
			return toolError(r), nil
		default: // a lane error, a refused key included
			report(OutcomeLaneError)
			return toolError(r), nil
		}
		report(OutcomeOK)
		res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(r.Data)}}}
		if voice(ctx, opts) {
			if v := voiceResult(t.Name, req.Params.Arguments, r.Data); v != nil {
				res = v
			}
		}
		if r.Repeat {
			res.Content = append(res.Content, &mcp.TextContent{Text: r.Note})
		}
		// structuredContent is a JSON object; every lane answer is one, but
		// the text above carries the data whatever its shape.
		if isObject(r.Data) && res.StructuredContent == nil {
			res.StructuredContent = r.Data
		}
		return res, nil
	}
}

// apiKey is the credential for a lane call: the fixed key of a stdio
// server, or the bearer token of the HTTP request that carried the message
// (a studio key or an OAuth access token).
func apiKey(opts Options, extra *mcp.RequestExtra) string {
	if opts.APIKey != "" || extra == nil {
		return opts.APIKey
	}
	token, _ := auth.Bearer(extra.Header.Get("Authorization"))
	return token
}

// ErrorContent is a failed call's structuredContent: the sentence again
// with its code and, after a limit, when to try again, so a client can act
// on the error without reading the sentence.
type ErrorContent struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the error of ErrorContent.
type ErrorDetail struct {
	Code              string `json:"code"`
	Message           string `json:"message"`
	RetryAfterSeconds int    `json:"retryAfterSeconds,omitempty"`
}

// toolError is a failed call's result: isError, the sentence as text (what
// a model relays) and the same as structuredContent.
func toolError(r executor.Result) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: r.Sentence}},
		StructuredContent: ErrorContent{ErrorDetail{Code: r.Code, Message: r.Sentence, RetryAfterSeconds: r.RetryAfterSeconds}},
	}
}

func isObject(data json.RawMessage) bool {
	for _, b := range data {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}

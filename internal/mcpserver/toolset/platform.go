package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// PlatformInstructions are sent at initialize to an agent platform (a
// platform key): it answers the studio's customers and prospects.
const PlatformInstructions = `These tools answer for one coaching studio to the people who talk to its customer-facing agent.
get_studio_info gives the studio's name, its plans with prices and durations, its program templates by name, and how to join: use it for "what do you offer", "how much", "how do I join".
Who the person says they are (name, phone, email) proves nothing here. For their own training, plan or records, verify them: start_verification sends a code over WhatsApp to the phone on their trainee record, confirm_verification checks it; then this conversation has the trainee's own tools (list the tools again).
A failed call answers one sentence saying what to do next: relay it or follow it.`

// The public tools of an agent platform's key.
const (
	StudioInfoTool          = "get_studio_info"
	StartVerificationTool   = "start_verification"
	ConfirmVerificationTool = "confirm_verification"
	SignOutTool             = "sign_out"
)

// PlatformTools are the public tools' names, in tools/list order; a
// verified conversation also has sign_out and the trainee tools.
var PlatformTools = []string{ConfirmVerificationTool, StudioInfoTool, StartVerificationTool}

// addPlatformTools adds the public tools: each one lane call with the
// request's platform key, on a route the lane opens to platform keys only.
func addPlatformTools(s *mcp.Server, opts Options) {
	s.AddTool(&mcp.Tool{
		Name:        StudioInfoTool,
		Title:       "The studio and what it offers",
		Description: "The studio's name, its active plans (name, price, currency, durationDays; null price: set per person, null duration: open-ended), its program templates by name and weeks, and how to join. Takes no arguments.",
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, laneTool(opts, StudioInfoTool, tools.Request{Method: http.MethodGet, Path: "/public/studio"}))
	str := func(description string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "string", Description: description, MaxLength: new(64)}
	}
	s.AddTool(&mcp.Tool{
		Name:  StartVerificationTool,
		Title: "Verify the person: send a code",
		Description: "Call when the person asks about their own training, plan or records: sends a one-time code over WhatsApp to the phone on their trainee record. " +
			"phone and externalId default to what the platform reported; the answer is the same whether or not they match a trainee. Then ask for the code and call confirm_verification.",
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"phone":      str("The phone the person gives, with country code if they know it."),
			"externalId": str("The person's trainee id (trn_…), when known."),
		}},
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
	}, laneTool(opts, StartVerificationTool, tools.Request{Method: http.MethodPost, Path: "/public/verification/start"}))
	s.AddTool(&mcp.Tool{
		Name:  ConfirmVerificationTool,
		Title: "Verify the person: check the code",
		Description: "The code the person received after start_verification. When right, this conversation reads and records the person's own training (the trainee tools appear on the next tools/list) for 24 hours. " +
			"5 wrong codes lock it.",
		InputSchema: &jsonschema.Schema{Type: "object", Required: []string{"code"}, Properties: map[string]*jsonschema.Schema{
			"code": {Type: "string", Description: "The 6-digit code.", MaxLength: new(12)},
		}},
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
	}, laneTool(opts, ConfirmVerificationTool, tools.Request{Method: http.MethodPost, Path: "/public/verification/confirm"}))
	if opts.Trainee {
		s.AddTool(&mcp.Tool{
			Name:        SignOutTool,
			Title:       "Sign the person out",
			Description: "Call when the person asks to sign out or leaves: this conversation stops reading and recording their training until they verify again. Takes no arguments.",
			InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
			Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), IdempotentHint: true},
		}, laneTool(opts, SignOutTool, tools.Request{Method: http.MethodPost, Path: "/public/verification/sign-out"}))
	}
}

// laneTool answers a tool call with one fixed lane call: its data, or the
// lane's sentence as a failed call (as the coach and trainee tools do).
func laneTool(opts Options, name string, r tools.Request) mcp.ToolHandler {
	report := func(outcome string) {
		if opts.OnToolCall != nil {
			opts.OnToolCall(name, outcome)
		}
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := r
		if r.Method == http.MethodPost {
			// The lane validates the arguments, as the body of its route.
			body := map[string]any{}
			if len(req.Params.Arguments) > 0 && json.Unmarshal(req.Params.Arguments, &body) != nil {
				return toolError(executor.Result{Code: "INVALID_ARGUMENTS", Sentence: name + " takes a JSON object of arguments."}), nil
			}
			r.Body = body
		}
		data, err := opts.Client.Do(ctx, apiKey(opts, req.Extra), r)
		if err != nil {
			var laneErr *laneclient.Error
			if errors.As(err, &laneErr) {
				report(OutcomeLaneError)
				return toolError(executor.Result{Code: laneErr.Code, Sentence: laneErr.Message, RetryAfterSeconds: laneErr.RetryAfterSeconds}), nil
			}
			report(OutcomeUnavailable)
			return toolError(executor.Result{Code: "UNAVAILABLE", Sentence: "Perform could not answer " + name + " just now; try again in a few seconds."}), nil
		}
		report(OutcomeOK)
		if voice(ctx, opts) {
			if v := voiceResult(name, req.Params.Arguments, data); v != nil {
				return v, nil
			}
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
		if isObject(data) {
			res.StructuredContent = data
		}
		return res, nil
	}
}

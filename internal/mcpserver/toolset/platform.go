package toolset

import (
	"context"
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
Who the person says they are (name, phone, email) proves nothing here: no tool reads a trainee's own data for them.
A failed call answers one sentence saying what to do next: relay it or follow it.`

// StudioInfoTool is the public tool of an agent platform's key.
const StudioInfoTool = "get_studio_info"

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
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
		if isObject(data) {
			res.StructuredContent = data
		}
		return res, nil
	}
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// errNotConfigured is the model call without ANTHROPIC_API_KEY.
var errNotConfigured = errors.New("agent AI is not configured")

// errKeyRevoked ends a turn whose tool call was answered 401: the coach
// revoked the agent's studio key.
var errKeyRevoked = errors.New("the agent's studio key was revoked")

// model is the Anthropic Messages API with the agent's tools.
type model struct {
	client    *anthropic.Client // nil without an API key
	name      string
	workspace string
	set       []tools.Tool
	params    []anthropic.ToolUnionParam
}

func newModel(cfg LLM, set []tools.Tool) (*model, error) {
	m := &model{name: cfg.Model, workspace: cfg.WorkspaceID, set: set}
	if m.name == "" {
		m.name = DefaultModel
	}
	for _, t := range set {
		p, err := toolParam(t)
		if err != nil {
			return nil, fmt.Errorf("agent: tool %s: %w", t.Name, err)
		}
		m.params = append(m.params, p)
	}
	if cfg.APIKey != "" {
		// Only our configuration counts: no credentials or base URL from the
		// environment behind the operator's back.
		opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(cfg.APIKey), option.WithMaxRetries(2)}
		if cfg.BaseURL != "" {
			opts = append(opts, option.WithBaseURL(cfg.BaseURL))
		}
		c := anthropic.NewClient(opts...)
		m.client = &c
	}
	return m, nil
}

// toolParam turns a tool definition into the Messages API's tool: its name,
// description and inferred JSON schema.
func toolParam(t tools.Tool) (anthropic.ToolUnionParam, error) {
	schema := map[string]any{}
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return anthropic.ToolUnionParam{}, err
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			return anthropic.ToolUnionParam{}, err
		}
	}
	in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		switch k {
		case "type", "properties", "required", "$schema", "$id":
		default:
			in.ExtraFields[k] = v
		}
	}
	tp := anthropic.ToolParam{Name: t.Name, InputSchema: in, Description: anthropic.String(t.Description)}
	return anthropic.ToolUnionParam{OfTool: &tp}, nil
}

// historyEntry is one remembered message: role "user" or "assistant".
type historyEntry struct {
	Role string
	Text string
}

// toolCaller runs one tool call; it returns the text for the model and
// whether it is an error. A non-nil error ends the turn.
type toolCaller func(ctx context.Context, name string, input json.RawMessage) (string, bool, error)

// run is the tool loop: at most eight model calls of at most 1200 output
// tokens; the reply is the text of the last one.
func (m *model) run(ctx context.Context, system string, history []historyEntry, text string, call toolCaller) (string, error) {
	if m.client == nil {
		return "", errNotConfigured
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(m.name),
		MaxTokens: maxOutputTokens,
		System:    []anthropic.TextBlockParam{{Text: system}},
		Messages:  conversation(history, text),
		Tools:     m.params,
	}
	if m.workspace != "" {
		params.WorkspaceID = anthropic.String(m.workspace)
	}
	var reply string
	for step := 0; step < maxModelSteps; step++ {
		msg, err := m.client.Messages.New(ctx, params)
		if err != nil {
			return "", fmt.Errorf("model call: %w", err)
		}
		var texts []string
		var results []anthropic.ContentBlockParamUnion
		for _, block := range msg.Content {
			switch block.Type {
			case "text":
				texts = append(texts, block.Text)
			case "tool_use":
				out, isErr, err := call(ctx, block.Name, block.Input)
				if err != nil {
					return "", err
				}
				results = append(results, anthropic.NewToolResultBlock(block.ID, out, isErr))
			}
		}
		reply = strings.TrimSpace(strings.Join(texts, "\n"))
		if len(results) == 0 {
			return reply, nil
		}
		params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	}
	return reply, nil
}

// conversation is the history then the new text, as alternating turns that
// start with the user (the API's rule); same-role neighbours are merged.
func conversation(history []historyEntry, text string) []anthropic.MessageParam {
	entries := append(append([]historyEntry(nil), history...), historyEntry{Role: "user", Text: text})
	for len(entries) > 0 && entries[0].Role != "user" {
		entries = entries[1:]
	}
	var merged []historyEntry
	for _, e := range entries {
		if n := len(merged); n > 0 && merged[n-1].Role == e.Role {
			merged[n-1].Text += "\n" + e.Text
			continue
		}
		merged = append(merged, e)
	}
	out := make([]anthropic.MessageParam, 0, len(merged))
	for _, e := range merged {
		if e.Role == "assistant" {
			out = append(out, anthropic.NewAssistantMessage(anthropic.NewTextBlock(e.Text)))
		} else {
			out = append(out, anthropic.NewUserMessage(anthropic.NewTextBlock(e.Text)))
		}
	}
	return out
}

// laneTools runs the model's tool calls through the tool executor, as /mcp
// does, with the studio key: a refused call goes back to the model as the
// same sentence /mcp gives; a 401 means the coach revoked the key and ends
// the turn. A write repeated within ten minutes (a turn re-run after a
// crash, or the coach asking twice) is answered from the first and marked
// as a repeat, as on /mcp.
func (a *Agent) laneTools(apiKey, _ string) toolCaller {
	ex := executor.New(a.lane, a.model.set)
	return func(ctx context.Context, name string, input json.RawMessage) (string, bool, error) {
		r := ex.Run(ctx, executor.Call{Tool: name, Args: input, APIKey: apiKey})
		switch {
		case r.Outcome == executor.Unauthorized:
			return "", false, errKeyRevoked
		case r.Outcome == executor.Unavailable && ctx.Err() != nil:
			return "", false, ctx.Err()
		}
		return r.Text(), r.Failed(), nil
	}
}

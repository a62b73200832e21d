// Package anthropic is the agent's model provider: the Anthropic Messages
// API through the official Go SDK. It is the one package that imports the
// SDK (the heaviest compile in the project; see imports_test.go), and it
// owns the request's layout for the prompt cache.
//
// The layout, in the API's cache order (tools, system, messages):
//
//	tools                      the agent's tool set, the same bytes for everyone
//	system[0] rules            the static brief            <- breakpoint, 1 h
//	system[1] context          coach, studio, today's date
//	messages…                  history, the new text, the turn's tool calls
//	last block of the last message                         <- breakpoint, 5 min
//
// The first breakpoint caches a prefix every coach of every studio shares,
// on every day; the second caches the conversation as it grows, so each
// step of a turn reads the previous step's prefix, and a coach's next turn
// (minutes later, same day) reads the previous turn's.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/otherwise/perform/internal/agent/llm"
	"github.com/otherwise/perform/internal/tools"
)

// The cache lifetimes, chosen from how turns are spaced.
//
// Within a turn, steps are seconds apart (a model call, then tool calls on
// the in-process lane). Within a conversation, a coach's next turn comes
// when they have read the reply and answered: the debounce (8 s) plus the
// reply (5–20 s) plus their typing, typically under three minutes, rarely
// over five. Between conversations, hours. So the conversation's entry gets
// the 5 min lifetime: it is rewritten by every step (1.25× beats 2× on every
// write) and is worth nothing once the conversation pauses.
//
// The shared prefix (tools and rules) is read by every coach of every
// studio. With a pilot of a few coaches, each sending a few dozen turns over
// a working day, turns platform-wide are minutes apart, often more than
// five: a 5 min entry would expire between them and be rewritten at 1.25×
// instead of read at 0.1×. A 1 h entry survives those gaps; it costs 0.75×
// the prefix more per write, and is written at most about once per quiet
// hour, which is the whole downside. The API requires 1 h entries before
// 5 min ones, which this layout keeps.
const (
	sharedTTL       = anthropic.CacheControlEphemeralTTLTTL1h
	conversationTTL = anthropic.CacheControlEphemeralTTLTTL5m
)

// Config configures the provider.
type Config struct {
	APIKey      string // empty makes every step fail with llm.ErrNotConfigured
	BaseURL     string // empty means Anthropic's
	WorkspaceID string // sent as anthropic-workspace-id when set
	Model       string
	Logger      *slog.Logger // nil means slog.Default
}

// Provider is llm.Provider on the Messages API.
type Provider struct {
	client    *anthropic.Client // nil without an API key
	model     string
	workspace string
	log       *slog.Logger
	strict    []anthropic.ToolUnionParam // with strict schemas where allowed
	plain     []anthropic.ToolUnionParam // no tool strict
	// noStrict is set when the API refused strict tools for this model: it
	// is remembered, so one refusal costs one extra call per process.
	noStrict atomic.Bool
}

var _ llm.Provider = (*Provider)(nil)

// New builds the provider for the tool set; the tool definitions are
// turned into the API's once, so every request carries the same bytes.
func New(cfg Config, set []tools.Tool) (*Provider, error) {
	p := &Provider{model: cfg.Model, workspace: cfg.WorkspaceID, log: cfg.Logger}
	if p.log == nil {
		p.log = slog.Default()
	}
	var err error
	if p.plain, err = toolParams(set, false); err != nil {
		return nil, err
	}
	if StrictSupported(p.model) {
		if p.strict, err = toolParams(set, true); err != nil {
			return nil, err
		}
	} else {
		p.noStrict.Store(true)
	}
	if cfg.APIKey != "" {
		// Only our configuration counts: no credentials or base URL from the
		// environment behind the operator's back.
		opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(cfg.APIKey), option.WithMaxRetries(2)}
		if cfg.BaseURL != "" {
			opts = append(opts, option.WithBaseURL(cfg.BaseURL))
		}
		c := anthropic.NewClient(opts...)
		p.client = &c
	}
	return p, nil
}

// Model is the model asked.
func (p *Provider) Model() string { return p.model }

// Step is one Messages API call. A 400 that names strict tool use turns
// strict off for good and the call is made again without it.
func (p *Provider) Step(ctx context.Context, req llm.Request) (llm.Result, error) {
	if p.client == nil {
		return llm.Result{}, llm.ErrNotConfigured
	}
	strict := !p.noStrict.Load()
	msg, err := p.client.Messages.New(ctx, p.params(req, strict))
	if strict && refusesStrict(err) {
		p.noStrict.Store(true)
		p.log.WarnContext(ctx, "agent: the model refused strict tools; asking without them from now on", "model", p.model, "err", err)
		msg, err = p.client.Messages.New(ctx, p.params(req, false))
	}
	if err != nil {
		return llm.Result{}, fmt.Errorf("model call: %w", err)
	}
	out := llm.Result{Usage: llm.Usage{
		Input:        msg.Usage.InputTokens,
		Output:       msg.Usage.OutputTokens,
		CacheWrite:   msg.Usage.CacheCreationInputTokens,
		CacheWrite1h: msg.Usage.CacheCreation.Ephemeral1hInputTokens,
		CacheRead:    msg.Usage.CacheReadInputTokens,
	}}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			out.Blocks = append(out.Blocks, llm.Block{Type: llm.TextBlock, Text: b.Text})
		case "tool_use":
			out.Blocks = append(out.Blocks, llm.Block{Type: llm.ToolUseBlock, ID: b.ID, Name: b.Name, Input: b.Input})
		}
	}
	return out, nil
}

// refusesStrict is the API's 400 for a request whose strict tools it does
// not take (a model without structured outputs, a schema it cannot compile).
func refusesStrict(err error) bool {
	var apiErr *anthropic.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(apiErr.RawJSON()+apiErr.Error()), "strict")
}

// params lays req out as the Messages API request (see the package
// comment for where the breakpoints sit).
func (p *Provider) params(req llm.Request, strict bool) anthropic.MessageNewParams {
	toolSet := p.plain
	if strict && p.strict != nil {
		toolSet = p.strict
	}
	ttl := sharedTTL
	if len(req.Tools) > 0 {
		toolSet, ttl = requestTools(req.Tools, strict), conversationTTL
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.model),
		MaxTokens: int64(req.MaxTokens),
		Tools:     toolSet,
		System: []anthropic.TextBlockParam{
			{Text: req.Rules, CacheControl: anthropic.CacheControlEphemeralParam{TTL: ttl}},
		},
		Messages: messages(req.Messages),
	}
	if req.ForceTool != "" {
		params.ToolChoice = anthropic.ToolChoiceParamOfTool(req.ForceTool)
	}
	if req.Context != "" {
		params.System = append(params.System, anthropic.TextBlockParam{Text: req.Context})
	}
	if p.workspace != "" {
		params.WorkspaceID = anthropic.String(p.workspace)
	}
	return params
}

// messages converts the conversation, with the second breakpoint on the
// last block of the last message.

func messages(in []llm.Message) []anthropic.MessageParam {
	out := make([]anthropic.MessageParam, 0, len(in))
	for i, m := range in {
		var blocks []anthropic.ContentBlockParamUnion
		for _, b := range m.Blocks {
			switch b.Type {
			case llm.TextBlock:
				if b.Text != "" { // the API refuses empty text blocks
					blocks = append(blocks, anthropic.NewTextBlock(b.Text))
				}
			case llm.ToolUseBlock:
				blocks = append(blocks, anthropic.NewToolUseBlock(b.ID, b.Input, b.Name))
			case llm.ToolResultBlock:
				blocks = append(blocks, anthropic.NewToolResultBlock(b.ID, b.Text, b.IsError))
			}
		}
		if i == len(in)-1 && len(blocks) > 0 {
			if cc := blocks[len(blocks)-1].GetCacheControl(); cc != nil {
				*cc = anthropic.CacheControlEphemeralParam{TTL: conversationTTL}
			}
		}
		if m.Role == "assistant" {
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		} else {
			out = append(out, anthropic.NewUserMessage(blocks...))
		}
	}
	return out
}

// strictModels are the models with structured outputs (strict tool use):
// Claude Opus 4.1 and the 4.5 generation on. Any other model is asked
// without strict; a wrong guess the other way is caught by the fallback.
var strictModels = regexp.MustCompile(`^claude-(?:(?:opus|sonnet|haiku)-4-[5-9]|opus-4-1|(?:opus|sonnet|haiku)-[5-9])`)

// StrictSupported reports whether model takes strict tools.
func StrictSupported(model string) bool { return strictModels.MatchString(model) }

// toolParams turns the tool set into the API's tools, in the set's order.
func toolParams(set []tools.Tool, strict bool) ([]anthropic.ToolUnionParam, error) {
	schemas := make([]map[string]any, len(set))
	for i, t := range set {
		schema, err := schemaOf(t)
		if err != nil {
			return nil, fmt.Errorf("agent: tool %s: %w", t.Name, err)
		}
		schemas[i] = schema
	}
	var chosen map[int]bool
	if strict {
		chosen = chooseStrict(set, schemas)
	}
	out := make([]anthropic.ToolUnionParam, 0, len(set))
	for i, t := range set {
		schema := schemas[i]
		tp := anthropic.ToolParam{Name: t.Name, Description: anthropic.String(t.Description)}
		if chosen[i] {
			schema = StrictSchema(schema)
			tp.Strict = anthropic.Bool(true)
		}
		tp.InputSchema = inputSchema(schema)
		out = append(out, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return out, nil
}

// requestTools are a request's own tools (see llm.Request.Tools), strict
// where asked and where the model takes it.
func requestTools(specs []llm.ToolSpec, strict bool) []anthropic.ToolUnionParam {
	out := make([]anthropic.ToolUnionParam, 0, len(specs))
	for _, t := range specs {
		tp := anthropic.ToolParam{Name: t.Name, Description: anthropic.String(t.Description), InputSchema: inputSchema(t.Schema)}
		if strict && t.Strict {
			tp.Strict = anthropic.Bool(true)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return out
}

func schemaOf(t tools.Tool) (map[string]any, error) {
	schema := map[string]any{}
	if t.InputSchema == nil {
		return schema, nil
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	return schema, json.Unmarshal(b, &schema)
}

func inputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
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
	return in
}

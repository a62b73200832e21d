// Package anthropic is the agent's model provider: the Anthropic Messages
// API (POST /v1/messages), spoken by a client of its own (messages.go)
// rather than through an SDK: the one endpoint needs tools, strict tools,
// a forced tool, both cache lifetimes and the usage counters, and a
// general SDK was a quarter of the first build's compile time. It is the
// one package that speaks to the model over HTTP (see imports_test.go),
// and it owns the request's layout for the prompt cache.
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

	"github.com/otherwise/perform/internal/llm"
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
	sharedTTL       = ttl1h
	conversationTTL = ttl5m
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
	client *client // nil without an API key
	model  string
	log    *slog.Logger
	strict []wireTool // with strict schemas where allowed
	plain  []wireTool // no tool strict
	// noStrict is set when the API refused strict tools for this model: it
	// is remembered, so one refusal costs one extra call per process.
	noStrict atomic.Bool
}

var _ llm.Provider = (*Provider)(nil)

// New builds the provider for the tool set; the tool definitions are
// turned into the API's once, so every request carries the same bytes.
func New(cfg Config, set []tools.Tool) (*Provider, error) {
	p := &Provider{model: cfg.Model, log: cfg.Logger}
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
		// Only our configuration counts: no credentials or base URL are
		// read from the environment behind the operator's back.
		p.client = newClient(cfg.APIKey, cfg.BaseURL, cfg.WorkspaceID)
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
	msg, err := p.client.create(ctx, p.params(req, strict))
	if strict && refusesStrict(err) {
		p.noStrict.Store(true)
		p.log.WarnContext(ctx, "agent: the model refused strict tools; asking without them from now on", "model", p.model, "err", err)
		msg, err = p.client.create(ctx, p.params(req, false))
	}
	if err != nil {
		return llm.Result{}, fmt.Errorf("model call: %w", err)
	}
	switch msg.StopReason {
	case "max_tokens", "refusal", "model_context_window_exceeded":
		p.log.WarnContext(ctx, "agent: the model's answer stopped short", "model", p.model, "stop_reason", msg.StopReason, "id", msg.ID)
	}
	out := llm.Result{Usage: llm.Usage{
		Input:        msg.Usage.InputTokens,
		Output:       msg.Usage.OutputTokens,
		CacheWrite:   msg.Usage.CacheCreationInputTokens,
		CacheWrite1h: msg.Usage.CacheCreation.Ephemeral1h,
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
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(apiErr.Message), "strict")
}

// params lays req out as the Messages API request (see the package
// comment for where the breakpoints sit).
func (p *Provider) params(req llm.Request, strict bool) *messagesRequest {
	toolSet := p.plain
	if strict && p.strict != nil {
		toolSet = p.strict
	}
	ttl := sharedTTL
	if len(req.Tools) > 0 {
		toolSet, ttl = requestTools(req.Tools, strict), conversationTTL
	}
	params := &messagesRequest{
		Model:     p.model,
		MaxTokens: req.MaxTokens,
		Tools:     toolSet,
		System:    []textBlock{{Type: "text", Text: req.Rules, CacheControl: ephemeral(ttl)}},
		Messages:  messages(req.Messages),
	}
	if req.ForceTool != "" {
		params.ToolChoice = &toolChoice{Type: "tool", Name: req.ForceTool}
	}
	if req.Context != "" {
		params.System = append(params.System, textBlock{Type: "text", Text: req.Context})
	}
	return params
}

// messages converts the conversation, with the second breakpoint on the
// last block of the last message.
func messages(in []llm.Message) []wireMessage {
	out := make([]wireMessage, 0, len(in))
	for i, m := range in {
		var kept []llm.Block
		for _, b := range m.Blocks {
			switch b.Type {
			case llm.TextBlock:
				if b.Text != "" { // the API refuses empty text blocks
					kept = append(kept, b)
				}
			case llm.ToolUseBlock, llm.ToolResultBlock:
				kept = append(kept, b)
			}
		}
		blocks := make([]any, len(kept))
		for j, b := range kept {
			var cc *cacheControl
			if i == len(in)-1 && j == len(kept)-1 {
				cc = ephemeral(conversationTTL)
			}
			switch b.Type {
			case llm.TextBlock:
				blocks[j] = textBlock{Type: "text", Text: b.Text, CacheControl: cc}
			case llm.ToolUseBlock:
				input := b.Input
				if len(input) == 0 {
					input = json.RawMessage(`{}`)
				}
				blocks[j] = toolUseBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input, CacheControl: cc}
			case llm.ToolResultBlock:
				blocks[j] = toolResultBlock{Type: "tool_result", ToolUseID: b.ID, Content: b.Text, IsError: b.IsError, CacheControl: cc}
			}
		}
		role := "user"
		if m.Role == "assistant" {
			role = "assistant"
		}
		out = append(out, wireMessage{Role: role, Content: blocks})
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
func toolParams(set []tools.Tool, strict bool) ([]wireTool, error) {
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
	out := make([]wireTool, 0, len(set))
	for i, t := range set {
		schema := schemas[i]
		tp := wireTool{Name: t.Name, Description: t.Description}
		if chosen[i] {
			schema = StrictSchema(schema)
			tp.Strict = true
		}
		tp.InputSchema = inputSchema(schema)
		out = append(out, tp)
	}
	return out, nil
}

// requestTools are a request's own tools (see llm.Request.Tools), strict
// where asked and where the model takes it.
func requestTools(specs []llm.ToolSpec, strict bool) []wireTool {
	out := make([]wireTool, 0, len(specs))
	for _, t := range specs {
		out = append(out, wireTool{Name: t.Name, Description: t.Description, InputSchema: inputSchema(t.Schema), Strict: strict && t.Strict})
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

// inputSchema is schema as a tool's input_schema: an object (the API's
// requirement), without the keywords that only identify a schema document.
func inputSchema(schema map[string]any) map[string]any {
	in := make(map[string]any, len(schema)+1)
	for k, v := range schema {
		switch k {
		case "$schema", "$id":
		default:
			in[k] = v
		}
	}
	in["type"] = "object"
	return in
}

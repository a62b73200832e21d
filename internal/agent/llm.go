package agent

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/llm/anthropic"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// errKeyRevoked ends a turn whose tool call was answered 401: the coach
// revoked the agent's studio key.
var errKeyRevoked = errors.New("the agent's studio key was revoked")

// model is the agent's tool loop on a provider (the Messages API, from
// internal/llm/anthropic: the one package that calls it).
type model struct {
	provider llm.Provider
	set      []tools.Tool
	rules    string // the static brief: promptRules, or traineeRules
}

func newModel(cfg LLM, set []tools.Tool, rules string, log *slog.Logger) (*model, error) {
	name := cfg.Model
	if name == "" {
		name = config.DefaultAgentModel
	}
	p, err := anthropic.New(anthropic.Config{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, WorkspaceID: cfg.WorkspaceID, Model: name, Logger: log}, set)
	if err != nil {
		return nil, err
	}
	return &model{provider: p, set: set, rules: rules}, nil
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
// tokens; the reply is the text of the last one, and errOutOfSteps when
// that one still called tools. The system prompt is the
// model's rules (the same for every coach, or every trainee, so it is cached
// with the tools) then coachContext (promptContext or traineeContext). Each step's usage goes to the turn's meter.
func (m *model) run(ctx context.Context, coachContext string, history []historyEntry, text string, call toolCaller) (string, error) {
	req := llm.Request{Rules: m.rules, Context: coachContext, Messages: conversation(history, text), MaxTokens: maxOutputTokens}
	var reply string
	for step := 0; step < maxModelSteps; step++ {
		if sentence := overBudget(ctx); sentence != "" {
			return withBudgetSentence(reply, sentence), nil
		}
		res, err := m.provider.Step(ctx, req)
		if err != nil {
			return "", err
		}
		meterStep(ctx, step, m.provider.Model(), res.Usage)
		chargeBudget(ctx, res.Usage)
		var texts []string
		var results []llm.Block
		for _, block := range res.Blocks {
			switch block.Type {
			case llm.TextBlock:
				texts = append(texts, block.Text)
			case llm.ToolUseBlock:
				out, isErr, err := call(ctx, block.Name, block.Input)
				if err != nil {
					return "", err
				}
				results = append(results, llm.Block{Type: llm.ToolResultBlock, ID: block.ID, Text: out, IsError: isErr})
			}
		}
		reply = strings.TrimSpace(strings.Join(texts, "\n"))
		if len(results) == 0 {
			return reply, nil
		}
		req.Messages = append(req.Messages, llm.Message{Role: "assistant", Blocks: res.Blocks}, llm.Message{Role: "user", Blocks: results})
	}
	return reply, errOutOfSteps
}

// errOutOfSteps ends a tool loop whose last step still called tools: the
// turn needed more than its steps (see requeued).
var errOutOfSteps = errors.New("the model used every step of the turn and still called tools")

// conversation is the history then the new text, as alternating turns that
// start with the user (the API's rule); same-role neighbours are merged.
func conversation(history []historyEntry, text string) []llm.Message {
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
	out := make([]llm.Message, 0, len(merged))
	for _, e := range merged {
		out = append(out, llm.Message{Role: e.Role, Blocks: []llm.Block{{Type: llm.TextBlock, Text: e.Text}}})
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

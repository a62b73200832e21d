// Package llm is what the WhatsApp agent asks of a language model, in its
// own terms: one step of a tool loop (a request laid out as rules, context
// and conversation; an answer of blocks with the tokens it used) and what
// those tokens cost. The provider lives in a leaf package of its own
// (internal/llm/anthropic), the one client of the model's API; this
// package imports only the standard library.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Provider runs one model step. Implementations lay the request out for
// their API; the agent guarantees Rules is the same for every coach,
// studio and day, so a provider can cache everything up to it.
type Provider interface {
	Step(ctx context.Context, req Request) (Result, error)
	// Model is the model the provider asks, as its usage is recorded.
	Model() string
}

// Request is one step: the system prompt in two parts, then the conversation.
type Request struct {
	Rules     string // the static brief: identical for every coach and turn
	Context   string // who is writing, for which studio, today's date
	Messages  []Message
	MaxTokens int
	// Tools, when set, replace the provider's own tool set for this
	// request (a tool made for one request, such as the weekly plan's
	// layout, whose enums are one trainee's exercises and days); ForceTool
	// names the one the model must call. Such a prefix differs from
	// request to request, so it is cached for five minutes only: long
	// enough for the request's own repair round.
	Tools     []ToolSpec
	ForceTool string
}

// ToolSpec is a tool a request brings: Schema is its JSON Schema; Strict
// asks the provider to hold the model to it exactly, where it can.
type ToolSpec struct {
	Name        string
	Description string
	Schema      map[string]any
	Strict      bool
}

// Message is one turn of the conversation; Role is "user" or "assistant".
type Message struct {
	Role   string
	Blocks []Block
}

// Block kinds.
const (
	TextBlock       = "text"
	ToolUseBlock    = "tool_use"
	ToolResultBlock = "tool_result"
)

// Block is a text, a tool call (ID, Name, Input) or a tool's result
// (ID of the call, Text, IsError).
type Block struct {
	Type    string
	Text    string
	ID      string
	Name    string
	Input   json.RawMessage
	IsError bool
}

// Result is the model's answer to one step.
type Result struct {
	Blocks []Block
	Usage  Usage
}

// Usage is the tokens one step used, as the provider bills them: Input
// is the uncached input, CacheWrite the input written to the prompt cache
// (CacheWrite1h of it into one-hour entries, the rest into five-minute
// ones), CacheRead the input read from it.
type Usage struct {
	Input        int64
	Output       int64
	CacheWrite   int64
	CacheWrite1h int64
	CacheRead    int64
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.Input + o.Input, u.Output + o.Output, u.CacheWrite + o.CacheWrite, u.CacheWrite1h + o.CacheWrite1h, u.CacheRead + o.CacheRead}
}

// AllInput is every input token of the step, cached or not.
func (u Usage) AllInput() int64 { return u.Input + u.CacheWrite + u.CacheRead }

// ErrNotConfigured is a model call without an API key.
var ErrNotConfigured = errors.New("agent AI is not configured")

// Prices are US dollars per million tokens. CacheWrite is a five-minute
// cache write, CacheWrite1h a one-hour one.
type Prices struct {
	Input, Output, CacheWrite, CacheWrite1h, CacheRead float64
}

// Cost is what u costs at p, in US dollars.
func (p Prices) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheWrite-u.CacheWrite1h)*p.CacheWrite + float64(u.CacheWrite1h)*p.CacheWrite1h +
		float64(u.CacheRead)*p.CacheRead) / 1e6
}

// Zero reports whether no price is known.
func (p Prices) Zero() bool { return p == Prices{} }

// Cache prices against the base input price, as Anthropic lists them: a
// five-minute write 1.25×, a one-hour write 2×, a read 0.1×.
const (
	CacheWriteFactor   = 1.25
	CacheWrite1hFactor = 2.0
	CacheReadFactor    = 0.1
)

// listPrices are Anthropic's list prices, input and output, per million
// tokens (December 2026), by model family.
var listPrices = []struct {
	prefix        string
	input, output float64
}{
	{"claude-sonnet-4", 3, 15},
	{"claude-3-7-sonnet", 3, 15},
	{"claude-haiku-4-5", 1, 5},
	{"claude-3-5-haiku", 0.8, 4},
	{"claude-opus-4-5", 5, 25},
	{"claude-opus-4-6", 5, 25},
	{"claude-opus-4", 15, 75},
}

// ListPrices are the list prices of model, cache writes and reads derived
// from the input price; zero Prices for a model not in the table.
func ListPrices(model string) Prices {
	for _, lp := range listPrices {
		if strings.HasPrefix(model, lp.prefix) {
			return WithInput(lp.input, lp.output)
		}
	}
	return Prices{}
}

// WithInput are the prices of a model billed input and output per million
// tokens, with its cache prices derived from the input price.
func WithInput(input, output float64) Prices {
	return Prices{Input: input, Output: output, CacheWrite: input * CacheWriteFactor, CacheWrite1h: input * CacheWrite1hFactor, CacheRead: input * CacheReadFactor}
}

// EstimateTokens is a rough count of the tokens text costs, for sizing
// (the tokenizer is not public; the API's usage is the real count): about
// 3.5 characters a token for ASCII (English, JSON) and 0.6 tokens a
// character for anything else (Hebrew is tokenized far more finely).
func EstimateTokens(text string) int {
	var ascii, other int
	for _, r := range text {
		if r < 0x80 {
			ascii++
		} else {
			other++
		}
	}
	return (ascii*2+6)/7 + (other*3+4)/5
}

// ToolUseOverhead is the system prompt the API adds when tools are given
// (tool_choice auto), in tokens, for the Claude 4 models.
const ToolUseOverhead = 346

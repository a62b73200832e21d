package toolset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
)

// A voice agent reads a tool's answer aloud, so on an agent platform's
// call from X-Sa-Channel: phone an answer is shorter: a one-line summary
// first, then the data with lists cut to voiceRows (their true total kept,
// and for the lane's lists the nextOffset to page on from), and each
// record cut to voiceFields fields. The channel is the
// platform's claim: it changes only the shape of an answer, never what
// may be read.
const (
	voiceRows   = 3
	voiceFields = 6
	maxSummary  = 240
)

// voice reports whether the call is an agent platform's phone call.
func voice(ctx context.Context, opts Options) bool {
	if !opts.Platform {
		return false
	}
	c, ok := auth.ConversationFrom(ctx)
	return ok && c.Channel == "phone"
}

// voiceResult is the shorter answer of data, or nil when data is not a
// JSON object (left as it is).
func voiceResult(tool string, args, data json.RawMessage) *mcp.CallToolResult {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&obj) != nil || obj == nil {
		return nil
	}
	summary := voiceSummary(tool, obj)
	short := shorten(obj, offsetOf(args))
	b, err := json.Marshal(short)
	if err != nil {
		return nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: summary}, &mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
}

func offsetOf(args json.RawMessage) int {
	var a struct {
		Offset json.Number `json:"offset"`
	}
	if json.Unmarshal(args, &a) != nil {
		return 0
	}
	n, err := a.Offset.Int64()
	if err != nil || n < 0 {
		return 0
	}
	return int(n)
}

// voiceSummary is the answer in one line: the studio's offer, a
// verification's sentence, a list's count, or a record's first fields.
func voiceSummary(tool string, obj map[string]any) string {
	var s string
	switch {
	case tool == StudioInfoTool:
		s = offerSummary(obj)
	case isString(obj["message"]):
		s = obj["message"].(string)
	case isList(obj["items"]):
		items := obj["items"].([]any)
		noun := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(tool, "list_"), "get_"), "_", " ")
		total := fmt.Sprint(len(items))
		if n, ok := obj["total"].(json.Number); ok {
			total = n.String()
		}
		s = fmt.Sprintf("%s %s in all; the first %d follow.", total, noun, min(len(items), voiceRows))
		if len(items) == 0 {
			s = "No " + noun + "."
		}
	default:
		s = strings.Join(fieldsOf(obj, 3), ", ") + "."
	}
	s = strings.Join(strings.Fields(s), " ") // one line
	if len(s) > maxSummary {
		cut := maxSummary
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func offerSummary(obj map[string]any) string {
	name, _ := obj["studio"].(string)
	var plans []string
	list, _ := obj["plans"].([]any)
	for _, p := range list[:min(len(list), voiceRows)] {
		m, _ := p.(map[string]any)
		plan, _ := m["name"].(string)
		if price, ok := m["price"].(json.Number); ok {
			plan += " " + price.String()
			if cur, ok := m["currency"].(string); ok && cur != "" {
				plan += " " + cur
			}
		}
		if days, ok := m["durationDays"].(json.Number); ok {
			plan += " for " + days.String() + " days"
		}
		plans = append(plans, plan)
	}
	programs, _ := obj["programs"].([]any)
	s := fmt.Sprintf("%s offers %d plans", name, len(list))
	if len(plans) > 0 {
		s += " (" + strings.Join(plans, "; ") + ")"
	}
	return s + fmt.Sprintf(" and %d programs.", len(programs))
}

// fieldsOf is up to n "key: value" of obj's plain fields, by key.
func fieldsOf(obj map[string]any, n int) []string {
	var out []string
	for _, k := range plainKeys(obj) {
		if len(out) == n {
			break
		}
		out = append(out, fmt.Sprintf("%s: %v", k, obj[k]))
	}
	return out
}

// plainKeys are obj's keys with a string, number or boolean value, id
// first, then by name.
func plainKeys(obj map[string]any) []string {
	var keys []string
	for k, v := range obj {
		switch v.(type) {
		case string, json.Number, bool:
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "id") != (keys[j] == "id") {
			return keys[i] == "id"
		}
		return keys[i] < keys[j]
	})
	return keys
}

// shorten cuts obj for the voice: every list to voiceRows records of
// voiceFields plain fields (a list's true length kept beside it as
// <name>Total, or the lane list's own total, with nextOffset moved to the
// first record left out), nested records to their plain fields.
func shorten(obj map[string]any, offset int) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		switch v := v.(type) {
		case []any:
			kept := make([]any, 0, min(len(v), voiceRows))
			for _, item := range v[:min(len(v), voiceRows)] {
				kept = append(kept, record(item))
			}
			out[k] = kept
			if k == "items" {
				if len(v) > len(kept) {
					out["nextOffset"] = offset + len(kept)
				}
				continue
			}
			if _, has := obj[k+"Total"]; !has {
				out[k+"Total"] = len(v)
			}
		case map[string]any:
			out[k] = record(v)
		default:
			if _, cut := out[k]; !cut || k != "nextOffset" {
				out[k] = v
			}
		}
	}
	return out
}

// record is item with at most voiceFields fields: its plain fields (id
// first, then by name), then its nested records reduced to their plain
// fields; lists inside are left out. A value that is not an object is
// kept as it is.
func record(item any) any {
	m, ok := item.(map[string]any)
	if !ok {
		return item
	}
	out := map[string]any{}
	keys := plainKeys(m)
	var nested []string
	for k, v := range m {
		if _, ok := v.(map[string]any); ok {
			nested = append(nested, k)
		}
	}
	sort.Strings(nested)
	for _, k := range append(keys, nested...) {
		if len(out) == voiceFields {
			break
		}
		if sub, ok := m[k].(map[string]any); ok {
			flat := map[string]any{}
			for _, sk := range plainKeys(sub) {
				flat[sk] = sub[sk]
			}
			out[k] = flat
			continue
		}
		out[k] = m[k]
	}
	return out
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isList(v any) bool   { _, ok := v.([]any); return ok }

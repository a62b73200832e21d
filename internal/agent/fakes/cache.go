package fakes

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/otherwise/perform/internal/llm"
)

// cacheLookback is how many blocks before a breakpoint the API looks for
// an earlier cached prefix.
const cacheLookback = 20

// prefixBlock is one cacheable unit of a request, in cache order.
type prefixBlock struct {
	canonical []byte // the block without its cache_control
	tokens    int
	ttl       string // "" when the block is no breakpoint
}

// Expire forgets the cache entries of one lifetime ("5m" or "1h"), as if
// that long had passed with no request.
func (a *Anthropic) Expire(ttl string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, v := range a.cache {
		if v == ttl {
			delete(a.cache, k)
		}
	}
}

// bill is the usage of a request body under the simulated cache, which it
// updates.
func (a *Anthropic) bill(body []byte) (Usage, error) {
	blocks, err := cacheBlocks(body)
	if err != nil {
		return Usage{}, err
	}
	hashes := make([][32]byte, len(blocks))
	cum := make([]int64, len(blocks))
	var h [32]byte
	var total int64
	for i, b := range blocks {
		h = sha256.Sum256(append(h[:], b.canonical...))
		hashes[i] = h
		total += int64(b.tokens)
		cum[i] = total
	}
	var breakpoints []int
	for i, b := range blocks {
		if b.ttl != "" {
			breakpoints = append(breakpoints, i)
		}
	}
	if len(breakpoints) > 4 {
		return Usage{}, fmt.Errorf("a maximum of 4 blocks with cache_control may be provided; found %d", len(breakpoints))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	hit := -1
	for _, b := range breakpoints {
		for j := b; j >= 0 && j >= b-cacheLookback; j-- {
			if _, ok := a.cache[hashes[j]]; ok {
				hit = max(hit, j)
				break
			}
		}
	}
	var u Usage
	if hit >= 0 {
		u.CacheReadInputTokens = cum[hit]
	}
	from := hit
	for _, b := range breakpoints {
		if b <= hit || cum[b] < int64(a.MinCacheTokens) {
			continue
		}
		a.cache[hashes[b]] = blocks[b].ttl
		written := cum[b]
		if from >= 0 {
			written -= cum[from]
		}
		if blocks[b].ttl == "1h" {
			u.CacheCreation.Ephemeral1h += written
		} else {
			u.CacheCreation.Ephemeral5m += written
		}
		u.CacheCreationInputTokens += written
		from = b
	}
	u.InputTokens = total - u.CacheReadInputTokens - u.CacheCreationInputTokens
	return u, nil
}

// cacheBlocks splits a request into its cacheable blocks: each tool, each
// system block, each message's content blocks (the first carrying the
// role). The tool-use system prompt the API adds counts with the first tool.
func cacheBlocks(body []byte) ([]prefixBlock, error) {
	var wire struct {
		Tools    []json.RawMessage `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		return nil, err
	}
	var out []prefixBlock
	add := func(raw json.RawMessage, prefix string) error {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return fmt.Errorf("a content block must be an object or a string: %s", raw)
			}
			m = map[string]any{"type": "text", "text": s}
		}
		b := prefixBlock{}
		if cc, ok := m["cache_control"].(map[string]any); ok {
			b.ttl, _ = cc["ttl"].(string)
			if b.ttl == "" {
				b.ttl = "5m"
			}
			delete(m, "cache_control")
		}
		canon, _ := json.Marshal(m)
		b.canonical = append([]byte(prefix), canon...)
		b.tokens = llm.EstimateTokens(string(canon))
		out = append(out, b)
		return nil
	}
	for _, t := range wire.Tools {
		if err := add(t, "tool:"); err != nil {
			return nil, err
		}
	}
	if len(wire.Tools) > 0 {
		out[0].tokens += llm.ToolUseOverhead
	}
	if len(wire.System) > 0 {
		var blocks []json.RawMessage
		if json.Unmarshal(wire.System, &blocks) != nil {
			blocks = []json.RawMessage{wire.System}
		}
		for _, b := range blocks {
			if err := add(b, "system:"); err != nil {
				return nil, err
			}
		}
	}
	for _, m := range wire.Messages {
		var blocks []json.RawMessage
		if json.Unmarshal(m.Content, &blocks) != nil {
			blocks = []json.RawMessage{m.Content}
		}
		for j, b := range blocks {
			prefix := ""
			if j == 0 {
				prefix = m.Role + ":"
			}
			if err := add(b, prefix); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

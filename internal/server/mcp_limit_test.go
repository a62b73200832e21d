package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/store/storetest"
)

// mountGatedMCP mounts /mcp as perform serve does: behind the Gate, on the
// lane's Authenticator and limiter.
func mountGatedMCP(p *Parts) error {
	client := laneclient.New("http://perform.internal", laneclient.HandlerTransport(p.Lane), domain.SourceMCP)
	gate := mcpserver.Gate{Authenticator: p.Authenticator(), Limiter: p.Limiter, Logger: p.Logger}
	p.Handle("/mcp", gate.Wrap(mcpserver.New(mcpserver.Options{Client: client, Logger: p.Logger})), false)
	return nil
}

// postMCP sends one JSON-RPC message to /mcp from addr with the bearer key.
func postMCP(t *testing.T, s *Server, addr, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

const listTagsCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tags","arguments":{}}}`

// A made-up key is refused at /mcp itself, and every refusal counts
// against the sender's address: rotating tokens buys no budget, and
// another client's address keeps its own.
func TestMCPFailedKeysCountAgainstTheClientAddress(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.RateLimitMax = 3
	s := newServer(t, cfg, WithPlugin(mountGatedMCP))
	for i := range 3 {
		rec := postMCP(t, s, "203.0.113.7:4000", auth.NewKey(), listTagsCall)
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "invalid partner api key") || rec.Header().Get("WWW-Authenticate") == "" {
			t.Fatalf("call %d from A: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	if rec := postMCP(t, s, "203.0.113.7:4001", auth.NewKey(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "Too many requests") {
		t.Fatalf("fourth message from A (tools/list, a fresh token): %d %s; want the rate limit", rec.Code, rec.Body)
	}
	if rec := postMCP(t, s, "198.51.100.9:4000", auth.NewKey(), listTagsCall); rec.Code != http.StatusUnauthorized {
		t.Fatalf("first call from B: %d %s; want its own budget", rec.Code, rec.Body)
	}
}

// One tool call is one unit of the key's limit: the gate counts the MCP
// message, and the in-process lane call it leads to is not counted again.
// Messages that reach no lane (tools/list) count too.
func TestMCPToolCallCountsOnce(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.RateLimitMax = 4
	s := newServer(t, cfg, WithPlugin(mountGatedMCP))
	key := studioKey(t, s.Store(), "once")
	for i := range 3 {
		rec := postMCP(t, s, "203.0.113.7:4000", key, listTagsCall)
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"isError":true`) {
			t.Fatalf("tool call %d: %d %s", i+1, rec.Code, rec.Body)
		}
		if got := rec.Header().Get("RateLimit-Remaining"); got != []string{"3", "2", "1"}[i] {
			t.Errorf("tool call %d: RateLimit-Remaining %q; a tool call must cost one unit", i+1, got)
		}
	}
	if rec := postMCP(t, s, "203.0.113.7:4000", key, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); rec.Code != http.StatusOK {
		t.Fatalf("tools/list, the fourth message: %d %s", rec.Code, rec.Body)
	}
	if rec := postMCP(t, s, "203.0.113.7:4000", key, listTagsCall); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("the fifth message: %d %s; want 429", rec.Code, rec.Body)
	}
}

// RATE_LIMIT_MAX=10 lets exactly 10 tool calls through /mcp, not 5: each
// is one unit, counted at the gate, whether the counters are in memory or
// in Redis. The 11th message is refused before any tool runs.
func TestMCPRateLimitMaxIsToolCalls(t *testing.T) {
	t.Parallel()
	limiters := map[string]func(t *testing.T) string{
		"memory": func(*testing.T) string { return "" },
		"redis":  func(t *testing.T) string { return storetest.RedisURL(t) },
	}
	for name, redisURL := range limiters {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.RedisURL = redisURL(t)
			cfg.RateLimitMax = 10
			s := newServer(t, cfg, WithPlugin(mountGatedMCP))
			key := studioKey(t, s.Store(), "ten-"+name)
			for i := range 10 {
				rec := postMCP(t, s, "203.0.113.7:4000", key, listTagsCall)
				if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"isError":true`) {
					t.Fatalf("tool call %d of 10: %d %s", i+1, rec.Code, rec.Body)
				}
			}
			rec := postMCP(t, s, "203.0.113.7:4000", key, listTagsCall)
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
				t.Fatalf("tool call 11: %d %s; want 429 with Retry-After", rec.Code, rec.Body)
			}
		})
	}
}

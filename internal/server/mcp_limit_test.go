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
)

// Tool calls of /mcp reach the lane in process; when their credential
// fails they count against the address of the client that sent them to
// /mcp, not against one in-process address all MCP clients would share.
func TestMCPFailedKeysCountAgainstTheClientAddress(t *testing.T) {
	cfg := testConfig(t)
	cfg.RateLimitMax = 3
	mount := func(p *Parts) error {
		client := laneclient.New("http://perform.internal", laneclient.HandlerTransport(p.Lane), domain.SourceMCP)
		p.HandleLimited("/mcp", mcpserver.New(mcpserver.Options{Client: client, Logger: p.Logger}), mcpserver.DenyRateLimited)
		return nil
	}
	s := newServer(t, cfg, WithPlugin(mount))
	call := func(addr string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_tags","arguments":{}}}`
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.RemoteAddr = addr
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+auth.NewKey()) // a fresh made-up key each time
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("/mcp answered %d %s", rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	for i := range 3 {
		if got := call("203.0.113.7:4000"); !strings.Contains(got, "invalid partner api key") {
			t.Fatalf("call %d from A: %s", i+1, got)
		}
	}
	if got := call("203.0.113.7:4001"); !strings.Contains(got, "Too many requests") {
		t.Fatalf("fourth call from A: %s; want the rate limit", got)
	}
	if got := call("198.51.100.9:4000"); !strings.Contains(got, "invalid partner api key") {
		t.Fatalf("first call from B: %s; want its own budget", got)
	}
}

package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/httpx"
)

// failedKeyFrom posts a made-up key to /mcp from the balancer's address
// with the client address the balancer forwarded.
func failedKeyFrom(t *testing.T, s *Server, peer, forwarded string) int {
	t.Helper()
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(listTagsCall))
	req.RemoteAddr = peer
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+auth.NewKey())
	if forwarded != "" {
		req.Header.Set("X-Forwarded-For", forwarded)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec.Code
}

// Behind a trusted balancer each client keeps its own address budget (one
// client's bad tokens do not get another refused), and a client that
// writes X-Forwarded-For itself gains nothing: the header is read only
// from the balancer, and only the balancer's own entry counts.
func TestAddressLimitsBehindATrustedProxy(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.RateLimitMax = 2
	var err error
	if cfg.TrustedProxies, err = httpx.ParseTrustedProxies("10.0.0.2"); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, cfg, WithPlugin(mountGatedMCP))
	const balancer = "10.0.0.2:40000"

	for i := range 2 {
		if code := failedKeyFrom(t, s, balancer, "203.0.113.7"); code != http.StatusUnauthorized {
			t.Fatalf("client A's bad key %d: %d", i+1, code)
		}
	}
	if code := failedKeyFrom(t, s, balancer, "203.0.113.7"); code != http.StatusTooManyRequests {
		t.Fatalf("client A's third bad key: %d, want 429", code)
	}
	// A's own claim left of the balancer's entry does not buy a fresh budget.
	if code := failedKeyFrom(t, s, balancer, "192.0.2.99, 203.0.113.7"); code != http.StatusTooManyRequests {
		t.Fatalf("client A claiming another address: %d, want 429", code)
	}
	if code := failedKeyFrom(t, s, balancer, "198.51.100.9"); code != http.StatusUnauthorized {
		t.Fatalf("client B behind the same balancer: %d, want its own budget", code)
	}

	// Not from the balancer: the header is a claim and is ignored.
	for i := range 2 {
		if code := failedKeyFrom(t, s, "198.51.100.50:5000", "192.0.2.1"); code != http.StatusUnauthorized {
			t.Fatalf("direct client's bad key %d: %d", i+1, code)
		}
	}
	if code := failedKeyFrom(t, s, "198.51.100.50:5001", "192.0.2.2"); code != http.StatusTooManyRequests {
		t.Fatalf("direct client rotating X-Forwarded-For: %d, want 429", code)
	}
}

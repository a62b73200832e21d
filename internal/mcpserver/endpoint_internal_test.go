package mcpserver

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A failure while answering, before anything was written, is a 500 with
// JSON-RPC -32603; after the answer began, nothing more is written.
func TestUnexpectedFailureIs500WithInternalError(t *testing.T) {
	key := "pf_live_" + strings.Repeat("k", 43)
	for name, next := range map[string]http.HandlerFunc{
		"before writing": func(http.ResponseWriter, *http.Request) { panic("store exploded") },
		"after writing": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"partial":`))
			panic("late")
		},
	} {
		e := &endpoint{next: next}
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if name == "after writing" {
			if w.Code != 200 || w.Body.String() != `{"partial":` {
				t.Errorf("%s: %d %q", name, w.Code, w.Body)
			}
			continue
		}
		var body struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if w.Code != 500 || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.JSONRPC != "2.0" || string(body.ID) != "null" || body.Error.Code != -32603 ||
			strings.Contains(body.Error.Message, "store exploded") {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
}

func TestOriginPolicy(t *testing.T) {
	cases := []struct {
		local, host, origin string
		allowed             bool
	}{
		{"10.0.0.5:443", "perform.example", "", true},
		{"10.0.0.5:443", "perform.example", "https://perform.example", true},
		{"10.0.0.5:443", "perform.example:443", "https://PERFORM.example:8443", true},
		{"10.0.0.5:443", "perform.example", "https://evil.example", false},
		{"10.0.0.5:443", "perform.example", "http://localhost:3000", false},
		{"10.0.0.5:443", "perform.example", "null", false},
		{"127.0.0.1:8080", "127.0.0.1:8080", "http://localhost:5173", true},
		{"127.0.0.1:8080", "127.0.0.1:8080", "http://[::1]:5173", true},
		{"127.0.0.1:8080", "127.0.0.1:8080", "http://evil.example", false},
		{"[::1]:8080", "[::1]:8080", "http://127.0.0.1", true},
	}
	for _, c := range cases {
		req := httptest.NewRequest("POST", "/mcp", nil)
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		addr, err := net.ResolveTCPAddr("tcp", c.local)
		if err != nil {
			t.Fatal(err)
		}
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, addr))
		if got := originAllowed(req); got != c.allowed {
			t.Errorf("listening on %s, Host %s, Origin %q: allowed = %v, want %v", c.local, c.host, c.origin, got, c.allowed)
		}
	}
}

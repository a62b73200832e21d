package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/testkit"
)

// A failure while answering, before anything was written, is a 500 with
// JSON-RPC -32603; after the answer began, nothing more is written.
func TestUnexpectedFailureIs500WithInternalError(t *testing.T) {
	t.Parallel()
	key := "pf_live_" + strings.Repeat("k", 43)
	for name, next := range map[string]http.HandlerFunc{
		"before writing": func(http.ResponseWriter, *http.Request) { panic("store exploded") },
		"after writing": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"partial":`))
			panic("late")
		},
	} {
		e := &endpoint{next: next, logger: slog.New(slog.DiscardHandler)}
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

// A panic that reaches the endpoint is logged with the request id the
// answer carries, so the 500 a client reports can be found.
func TestAPanicIsLoggedWithTheRequestID(t *testing.T) {
	t.Parallel()
	var log testkit.Buffer
	e := &endpoint{next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("store exploded") }),
		logger: slog.New(slog.NewJSONHandler(&log, nil))}
	srv := httptest.NewServer(e)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer pf_live_"+strings.Repeat("k", 43))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 500 || !strings.HasPrefix(id, "req_") || !strings.Contains(string(body), id) {
		t.Fatalf("answer %d, X-Request-Id %q, body %s", resp.StatusCode, id, body)
	}
	var entry struct {
		Msg       string `json:"msg"`
		RequestID string `json:"requestId"`
		Panic     string `json:"panic"`
		Stack     string `json:"stack"`
	}
	if err := json.Unmarshal(log.Bytes(), &entry); err != nil || entry.RequestID != id || entry.Panic != "store exploded" || !strings.Contains(entry.Stack, "endpoint") {
		t.Fatalf("log %q (%v); want one entry with requestId %s, the panic and its stack", log.String(), err, id)
	}
}

func TestOriginPolicy(t *testing.T) {
	t.Parallel()
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

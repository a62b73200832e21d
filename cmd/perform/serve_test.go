package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/server"
)

// Over the rate limit, /mcp answers as an MCP client expects: 429 with
// Retry-After and a JSON-RPC error whose message says how long to wait,
// not the lane's envelope.
func TestMCPOverLimitAnswersJSONRPC(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	cfg.DatabaseURL = sqliteURL(t)
	cfg.RateLimitMax = 2
	key := operatorKey(t, cfg.DatabaseURL)
	s, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler), plugins(cfg)...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func() (*http.Response, map[string]any) {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatalf("%d: body is not JSON: %v", res.StatusCode, err)
		}
		return res, body
	}
	for i := range 2 {
		if res, body := post(); res.StatusCode != 200 || body["result"] == nil {
			t.Fatalf("initialize %d within the limit: %d %v", i+1, res.StatusCode, body)
		}
	}
	res, body := post()
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	rpcErr, _ := body["error"].(map[string]any)
	if body["jsonrpc"] != "2.0" || rpcErr == nil || rpcErr["code"] != float64(-32029) ||
		!strings.Contains(rpcErr["message"].(string), "Wait") || body["ok"] != nil {
		t.Fatalf("over-limit body is not a JSON-RPC error: %v", body)
	}
}

// operatorKey creates a studio on the database and returns a key of it, as
// an operator would: perform studio create, then perform key create.
func operatorKey(t *testing.T, db string) string {
	t.Helper()
	if r := perform(t, db, "studio", "create", "--name", "Keys", "--slug", "keys"); r.code != 0 {
		t.Fatalf("studio create: %+v", r)
	}
	r := perform(t, db, "key", "create", "--studio", "keys", "--name", "test")
	key := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(key, "pf_live_") {
		t.Fatalf("key create: %+v", r)
	}
	return key
}

// TestServeRefusesAPublicURLThatIsNoOrigin: --public-url is the OAuth
// issuer; a value that is not an http(s) origin stops serve and demo
// before they listen, in one sentence naming the flag and the variable.
func TestServeRefusesAPublicURLThatIsNoOrigin(t *testing.T) {
	for _, cmd := range []string{"serve", "demo"} {
		for _, v := range []string{"ftp://x", "https://perform.example/app", "https://u:p@perform.example", "https://perform.example?x", "perform.example"} {
			// Were it to start, it serves until the context ends: the test fails, not hangs.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			var out, errOut bytes.Buffer
			env := map[string]string{"PERFORM_DATABASE_URL": sqliteURL(t), "LOG_LEVEL": "warn"}
			code := run(ctx, []string{cmd, "--port", "0", "--host", "127.0.0.1", "--public-url", v}, &out, &errOut, func(k string) string { return env[k] })
			cancel()
			r := result{code, out.String(), errOut.String()}
			if r.code != 2 || !strings.Contains(r.stderr, "--public-url") || !strings.Contains(r.stderr, "PERFORM_PUBLIC_URL") || strings.Count(r.stderr, "\n") != 2 {
				t.Errorf("%s --public-url %s: exit %d, stderr:\n%s", cmd, v, r.code, r.stderr)
			}
		}
	}
}

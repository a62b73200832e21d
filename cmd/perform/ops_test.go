package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

// server is one `perform serve` or `perform demo` running in process.
type running struct {
	stdout, stderr *testkit.Buffer
	address        string // the address it listens on, from its log
	base           string // http://127.0.0.1:PORT
	stop           func() // cancels and waits; the log is complete after it
}

var servingRe = regexp.MustCompile(`"msg":"perform serving","address":"([^"]+)","url":"([^"]+)"`)

// start runs args (serve or demo) with the environment env plus a fresh
// SQLite database and JSON logs, and waits until it is serving.
func start(t *testing.T, env map[string]string, args ...string) *running {
	t.Helper()
	if env["PERFORM_DATABASE_URL"] == "" {
		env["PERFORM_DATABASE_URL"] = sqliteURL(t)
		if args[0] == "demo" {
			// The demo seeded once for the package's tests: demo finds
			// its studio there and only mints a key (TestDemo seeds anew).
			env["PERFORM_DATABASE_URL"] = demotest.FileAt(t, demotest.Now())
		}
	}
	env["LOG_FORMAT"] = "json"
	r := &running{stdout: &testkit.Buffer{}, stderr: &testkit.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, r.stdout, r.stderr, func(k string) string { return env[k] }) }()
	stopped := false
	r.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("%v exited %d: %s", args, code, r.stderr.String())
		}
	}
	t.Cleanup(r.stop)
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m := servingRe.FindStringSubmatch(r.stderr.String()); m != nil {
			r.address, r.base = m[1], m[2]
			// demo prints its URLs after the listener is up.
			if args[0] != "demo" || strings.Contains(r.stdout.String(), "API key:") {
				return r
			}
		}
		select {
		case code := <-done:
			stopped = true
			t.Fatalf("%v exited %d before serving: %s %s", args, code, r.stdout.String(), r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v is not serving: %s", args, r.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type logLine struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
	Route string `json:"route"`
}

func logLines(t *testing.T, log string) []logLine {
	t.Helper()
	var out []logLine
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var ll logLine
		if err := json.Unmarshal([]byte(l), &ll); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		out = append(out, ll)
	}
	return out
}

func mcpToolsList(t *testing.T, base, key string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("tools/list: %d", res.StatusCode)
	}
}

// At info an /mcp request writes nothing, and nothing but start-up and
// shutdown lines is written at all (River's and the MCP SDK's routine
// lines are debug); at debug each /mcp request is exactly one line.
func TestLogsHoldStill(t *testing.T) {
	t.Parallel()
	// serveThreeMCPRequests serves at level, sends three /mcp requests and
	// stops, returning the server's log.
	serveThreeMCPRequests := func(t *testing.T, level string) *running {
		db := sqliteURL(t)
		key := operatorKey(t, db)
		r := start(t, map[string]string{"LOG_LEVEL": level, "PORT": "0", "PERFORM_DATABASE_URL": db}, "serve", "--host", "127.0.0.1")
		for range 3 {
			mcpToolsList(t, r.base, key)
		}
		r.stop()
		return r
	}
	t.Run("info", func(t *testing.T) {
		r := serveThreeMCPRequests(t, "info")
		allowed := map[string]bool{"applied migration": true, "perform serving": true,
			"shutting down: draining requests": true, "perform stopped": true}
		for _, l := range logLines(t, r.stderr.String()) {
			if l.Level == "INFO" && !allowed[l.Msg] && !strings.HasPrefix(l.Msg, "rivermigrate") {
				t.Errorf("unexpected info line %q; the whole log:\n%s", l.Msg, r.stderr.String())
			}
		}
	})
	t.Run("debug", func(t *testing.T) {
		r := serveThreeMCPRequests(t, "debug")
		mcpLines := 0
		for _, l := range logLines(t, r.stderr.String()) {
			if l.Route == "/mcp" {
				mcpLines++
			}
			if strings.HasPrefix(l.Msg, "server ") {
				t.Errorf("the MCP SDK's per-request line %q shows at debug", l.Msg)
			}
		}
		if mcpLines != 3 {
			t.Errorf("3 /mcp requests wrote %d request lines at debug, want 3:\n%s", mcpLines, r.stderr.String())
		}
	})
}

// With the assistant off no job of its kind is ever scheduled; with it on,
// its recovery job and the morning digest's scan run at start. The form announcer's run-on-start job is
// the event that shows River has scheduled its start-up jobs.
func TestAssistantOffSchedulesNoJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int
	}{
		{"off", map[string]string{}, 0},
		{"on", map[string]string{"AGENT_SMARTSEND_API_KEY": "ss-key", "SMARTSEND_WEBHOOK_SECRET": "hook"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := sqliteURL(t)
			tc.env["PERFORM_DATABASE_URL"], tc.env["PORT"], tc.env["LOG_LEVEL"] = db, "0", "warn"
			r := start(t, tc.env, "serve", "--host", "127.0.0.1", "--log-level", "info")
			conn, err := sql.Open("sqlite", store.SQLiteDSN(db))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			count := func(kind string) int {
				var n int
				if err := conn.QueryRow(`SELECT count(*) FROM river_job WHERE kind = ?`, kind).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			deadline := time.Now().Add(60 * time.Second)
			for count("perform_form_announce") == 0 || (tc.want > 0 && (count("agent_recover") == 0 || count("agent_digest_scan") == 0)) {
				if time.Now().After(deadline) {
					t.Fatalf("River scheduled no start-up job: %s", r.stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, kind := range []string{"agent_recover", "agent_digest_scan"} {
				if got := min(count(kind), 1); got != tc.want {
					t.Errorf("assistant %s: %s jobs %d, want %d", tc.name, kind, got, tc.want)
				}
			}
		})
	}
}

// The demo prints a live key, so it listens on loopback unless told
// otherwise; serve keeps its default of every interface.
func TestDemoListensOnLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"demo"}, "127.0.0.1:"},
		{[]string{"demo", "--host", ""}, "every interface"},
		{[]string{"serve"}, "every interface"},
	} {
		r := start(t, map[string]string{"PORT": "0", "LOG_LEVEL": "info"}, tc.args...)
		// Every interface is [::] on a dual-stack machine, 0.0.0.0 on an IPv4-only one.
		ok := strings.HasPrefix(r.address, tc.want)
		if tc.want == "every interface" {
			ok = strings.HasPrefix(r.address, "[::]:") || strings.HasPrefix(r.address, "0.0.0.0:")
		}
		if !ok {
			t.Errorf("%v listens on %s, want %s…", tc.args, r.address, tc.want)
		}
		r.stop()
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/demo"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/server"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

type result struct {
	code           int
	stdout, stderr string
}

// perform runs one command line against the database at dbURL.
func perform(t *testing.T, dbURL string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"PERFORM_DATABASE_URL": dbURL, "LOG_LEVEL": "warn"}
	code := run(context.Background(), args, &out, &errOut, func(k string) string { return env[k] })
	return result{code, out.String(), errOut.String()}
}

// sqliteURL is a fresh SQLite file, migrated (a copy of storetest's template).
func sqliteURL(t *testing.T) string { return storetest.SQLiteFile(t) }

// databases are the engines to run a CLI test on.
func databases(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		store.EngineSQLite: sqliteURL,
		store.EnginePostgres: func(t *testing.T) string {
			_, url := storetest.OpenPostgresSchema(t, storetest.PostgresURL(t))
			return url
		},
	}
}

func TestHelpAndUsageMistakes(t *testing.T) {
	db := sqliteURL(t)
	if r := perform(t, db, "help"); r.code != 0 || !strings.Contains(r.stdout, "key revoke") || !strings.Contains(r.stdout, "studio create") {
		t.Fatalf("help: %+v", r)
	}
	if r := perform(t, db); r.code != 2 || !strings.Contains(r.stderr, "Commands:") {
		t.Fatalf("no command: %+v", r)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"launch"}, `perform has no command "launch"; run perform help to see the commands.`},
		{[]string{"key", "create", "--studio", "x"}, "--name is required."},
		{[]string{"key", "list", "--bogus"}, "perform key list has no flag --bogus; perform key list -h lists its flags."},
		{[]string{"serve", "--port", "abc"}, `--port must be a whole number; got "abc".`},
		{[]string{"serve", "--log-level", "loud"}, `--log-level must be debug, info, warn or error; got "loud".`},
		{[]string{"demo", "--port"}, "--port needs a value."},
		{[]string{"audit", "--studio", "a1", "--offset", "-1"}, "--offset must be 0 or more; got -1."},
		{[]string{"key", "revoke"}, "give exactly one key prefix"},
		{[]string{"studio", "create", "--name", "A", "--slug", "Bad Slug"}, "--slug must be 2 to 64 lowercase letters"},
		{[]string{"studio", "create", "--name", "A", "--slug", "a1", "--region", "XX"}, "--region must be a two-letter country code"},
		{[]string{"studio", "create", "--name", "A", "--slug", "a1", "--tier", "gold"}, `--tier must be free, pro or business; got "gold".`},
		{[]string{"audit", "--studio", "a1", "--limit", "500"}, "--limit must be from 1 to 200; got 500."},
		{[]string{"serve", "--port", "99999"}, "--port must be a whole number from 0 to 65535; got 99999."},
	} {
		r := perform(t, db, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || (tc.args[0] != "launch" && !strings.Contains(r.stderr, "Usage: perform ")) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if r := perform(t, db, "key", "create", "-h"); r.code != 0 || !strings.Contains(r.stdout, "Usage: perform key create --studio SLUG --name NAME") {
		t.Errorf("key create -h: %+v", r)
	}
}

func TestBadEnvironmentIsOneSentence(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{"RATE_LIMIT_MAX": "abc"}
	code := run(context.Background(), []string{"serve"}, &out, &errOut, func(k string) string { return env[k] })
	if code != 1 || errOut.String() != "RATE_LIMIT_MAX must be a whole number above 0; got \"abc\".\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if r := perform(t, sqliteURL(t), "key", "list", "--studio", "nobody"); r.code != 1 ||
		r.stderr != "no studio has the slug \"nobody\"; create it with perform studio create --name NAME --slug nobody.\n" {
		t.Fatalf("unknown studio: %+v", r)
	}
}

var keyLine = regexp.MustCompile(`^pf_live_[A-Za-z0-9_-]{43}\n$`)

// TestKeyLifecycle drives the CLI and a real server on one database: a key
// made by key create works on the lane; after key revoke (another process's
// write, as far as the server knows) the next request answers 401.
func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	for engine, dbURL := range databases(t) {
		t.Run(engine, func(t *testing.T) {
			db := dbURL(t)
			if r := perform(t, db, "migrate"); r.code != 0 || !strings.Contains(r.stdout, "up to date") {
				t.Fatalf("migrate: %+v", r)
			}
			if r := perform(t, db, "studio", "create", "--name", "Studio Ayelet", "--slug", "ayelet"); r.code != 0 || !strings.Contains(r.stdout, "slug ayelet, region IL, tier free") {
				t.Fatalf("studio create: %+v", r)
			}
			if r := perform(t, db, "studio", "create", "--name", "Again", "--slug", "ayelet"); r.code != 1 || !strings.Contains(r.stderr, `The slug "ayelet" is taken`) {
				t.Fatalf("taken slug: %+v", r)
			}
			created := perform(t, db, "key", "create", "--studio", "ayelet", "--name", "zapier")
			if created.code != 0 || !keyLine.MatchString(created.stdout) || !strings.Contains(created.stderr, "shown only this once") {
				t.Fatalf("key create: %+v", created)
			}
			key := strings.TrimSpace(created.stdout)
			list := perform(t, db, "key", "list", "--studio", "ayelet")
			if list.code != 0 || strings.Count(list.stdout, "\n") != 1 || !strings.Contains(list.stdout, auth.Display(key)) ||
				!strings.Contains(list.stdout, "zapier") || !strings.Contains(list.stdout, "never used") || !strings.HasSuffix(list.stdout, "live\n") {
				t.Fatalf("key list: %+v", list)
			}
			if strings.Contains(list.stdout, key) {
				t.Fatal("key list printed the whole key")
			}

			cfg, err := config.FromEnv(func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			cfg.DatabaseURL = db
			s, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(s.Handler())
			validate := func() int { return statusOf(t, srv.URL+"/v1/automation/validate", key) }
			if got := validate(); got != 200 {
				t.Fatalf("a fresh key answered %d", got)
			}
			if r := perform(t, db, "key", "revoke", auth.Display(key)); r.code != 0 || !strings.Contains(r.stdout, "Revoked key") {
				t.Fatalf("key revoke: %+v", r)
			}
			if got := validate(); got != 401 {
				t.Fatalf("the revoked key answered %d, want 401", got)
			}
			srv.Close()
			if err := s.Close(); err != nil { // flushes the audit writer
				t.Fatal(err)
			}

			list = perform(t, db, "key", "list", "--studio", "ayelet")
			if !strings.Contains(list.stdout, "revoked 20") || !strings.Contains(list.stdout, "last used 20") {
				t.Fatalf("key list after use and revocation: %q", list.stdout)
			}
			if r := perform(t, db, "key", "revoke", auth.Display(key)); r.code != 0 || !strings.Contains(r.stdout, "already revoked") {
				t.Fatalf("second revoke: %+v", r)
			}
			if r := perform(t, db, "key", "revoke", "pf_live_nothing"); r.code != 1 || !strings.Contains(r.stderr, "no API key has the prefix or id") {
				t.Fatalf("unknown key: %+v", r)
			}

			audit := perform(t, db, "audit", "--studio", "ayelet")
			lines := strings.Split(strings.TrimSpace(audit.stdout), "\n")
			// Newest first; the key's creation is audited too.
			if audit.code != 0 || len(lines) != 3 || !strings.Contains(lines[0], "401") || !strings.Contains(lines[1], "200") ||
				!strings.Contains(lines[1], "GET") || !strings.Contains(lines[1], "/validate") || !strings.Contains(lines[2], "perform key create") {
				t.Fatalf("audit: %+v", audit)
			}

			// A restricted key, and a scope that does not exist.
			if r := perform(t, db, "key", "create", "--studio", "ayelet", "--name", "k", "--scopes", "studio:read,studio:root"); r.code == 0 ||
				!strings.Contains(r.stderr, `"studio:root" is not a scope`) || r.stdout != "" {
				t.Fatalf("unknown scope: %+v", r)
			}
			if r := perform(t, db, "key", "create", "--studio", "ayelet", "--name", "k", "--scopes", "studio:read"); r.code != 0 ||
				!strings.Contains(r.stderr, "with scopes studio:read.") {
				t.Fatalf("read-only key: %+v", r)
			}
			if r := perform(t, db, "key", "list", "--studio", "ayelet"); !strings.Contains(r.stdout, "studio:read,studio:write,studio:admin") || !regexp.MustCompile(`\sstudio:read\s`).MatchString(r.stdout) {
				t.Fatalf("key list shows no scopes: %q", r.stdout)
			}
			// The free tier allows 3 live keys; the revoked one does not count.
			for i := range 2 {
				if r := perform(t, db, "key", "create", "--studio", "ayelet", "--name", "k"); r.code != 0 {
					t.Fatalf("key %d: %+v", i+1, r)
				}
			}
			if r := perform(t, db, "key", "create", "--studio", "ayelet", "--name", "one too many"); r.code != 1 ||
				!strings.Contains(r.stderr, "free tier, which allows 3 live API keys") || r.stdout != "" {
				t.Fatalf("over the key limit: %+v", r)
			}
		})
	}
}

// TestDemo runs `perform demo` as a newcomer would: it prints a working
// key and URLs, serves the seeded studio, and a second run reuses the
// studio and replaces the key.
func TestDemo(t *testing.T) {
	t.Parallel()
	db := sqliteURL(t)
	runDemo := func() (key, lane string, stop func()) {
		var out, errOut testkit.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		env := map[string]string{"PERFORM_DATABASE_URL": db, "LOG_LEVEL": "warn"}
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"demo", "--port", "0", "--host", "127.0.0.1"}, &out, &errOut, func(k string) string { return env[k] })
		}()
		keyRe := regexp.MustCompile(`API key:\s+(pf_live_\S+)`)
		laneRe := regexp.MustCompile(`Lane:\s+(http://127\.0\.0\.1:\d+/v1/automation)`)
		deadline := time.Now().Add(60 * time.Second)
		for !keyRe.MatchString(out.String()) || !laneRe.MatchString(out.String()) {
			select {
			case code := <-done:
				t.Fatalf("demo exited %d: %s %s", code, out.String(), errOut.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("demo printed no key: %s %s", out.String(), errOut.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.Contains(out.String(), "/healthz") {
			t.Errorf("demo did not print the health URL: %s", out.String())
		}
		if !strings.Contains(out.String(), "/login") || !strings.Contains(out.String(), "one-time code is written to the server log") {
			t.Errorf("demo did not say where sign-in codes go: %s", out.String())
		}
		key = keyRe.FindStringSubmatch(out.String())[1]
		lane = laneRe.FindStringSubmatch(out.String())[1]
		return key, lane, func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("demo exited %d after SIGTERM: %s", code, errOut.String())
			}
		}
	}
	get := func(url, key string) (int, map[string]any) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, body
	}

	key1, lane, stop := runDemo()
	status, body := get(lane+"/trainees/search?limit=1", key1)
	if status != 200 || body["data"].(map[string]any)["total"] != float64(demo.TraineeCount) {
		t.Fatalf("search with the demo key: %d %v", status, body)
	}
	root := strings.TrimSuffix(lane, "/v1/automation")
	if status, _ := get(root+"/healthz", ""); status != 200 {
		t.Fatalf("/healthz: %d", status)
	}
	// The browser sign-in page is mounted.
	if res, err := http.Get(root + "/login"); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /login: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	// The hosted MCP endpoint, through the SDK's own client.
	session := mcptest.Connect(t, root+"/mcp", key1)
	if text := mcptest.Text(mcptest.Call(t, session, "list_coaches", map[string]any{})); !strings.Contains(text, "Dana Levi") {
		t.Fatalf("list_coaches over MCP: %s", text)
	}
	session.Close()
	// The agent's webhook is mounted and checks its token.
	res, err := http.Post(root+"/v1/agent/webhook?token=wrong", "application/json", strings.NewReader(`{"text":"hi","phone":"0501234567","conversationId":"c1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("agent webhook with a wrong token: %d", res.StatusCode)
	}
	stop()

	key2, lane, stop := runDemo()
	defer stop()
	if key2 == key1 {
		t.Fatal("the second run printed the same key")
	}
	if status, _ := get(lane+"/validate", key1); status != 401 {
		t.Fatalf("the first run's key answered %d, want 401 (revoked)", status)
	}
	status, body = get(lane+"/validate", key2)
	if status != 200 || body["data"].(map[string]any)["slug"] != demo.Slug {
		t.Fatalf("validate with the new key: %d %v", status, body)
	}
	if status, body := get(lane+"/trainees/search?limit=1", key2); status != 200 || body["data"].(map[string]any)["total"] != float64(demo.TraineeCount) {
		t.Fatalf("the second run reseeded: %d %v", status, body)
	}
}

// TestKeyListHelpNamesEveryColumn: perform key list -h (and the CLI
// reference in docs/operations.md) name the columns key list prints, scopes
// among them.
func TestKeyListHelpNamesEveryColumn(t *testing.T) {
	const columns = "prefix, id, name, scopes, created, last used, live or revoked."
	r := perform(t, sqliteURL(t), "key", "list", "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "one a line: "+columns) {
		t.Errorf("key list -h does not name the columns %q:\n%s", columns, r.stdout)
	}
	if !strings.Contains(readDoc(t, "docs/operations.md"), "| `perform key list --studio SLUG` | One key a line: "+columns+" |") {
		t.Errorf("the row of perform key list in docs/operations.md's CLI reference does not name the columns %q", columns)
	}
}

// statusOf is the status of a GET of url with key as its bearer.
func statusOf(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

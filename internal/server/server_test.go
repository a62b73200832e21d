package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func testConfig(t testing.TB) config.Config {
	t.Helper()
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DatabaseURL = storetest.SQLiteFile(t)
	cfg.Port = 0
	return cfg
}

func newServer(t testing.TB, cfg config.Config, opts ...Option) *Server {
	t.Helper()
	s, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// studioKey creates a studio and returns a fresh API key of it.
func studioKey(t testing.TB, st store.Store, slug string) string {
	t.Helper()
	ctx := context.Background()
	studio := domain.Studio{Name: "Studio " + slug, Slug: slug}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		t.Fatal(err)
	}
	key := auth.NewKey()
	if err := st.CreateAPIKey(ctx, &domain.APIKey{StudioID: studio.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
		t.Fatal(err)
	}
	return key
}

type answer struct {
	status int
	header http.Header
	body   string
}

func call(t *testing.T, method, url, key string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, string(b)}
}

func TestOperationsEndpoints(t *testing.T) {
	t.Parallel()
	s := newServer(t, testConfig(t))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	if a := call(t, "GET", srv.URL+"/healthz", ""); a.status != 200 || !strings.Contains(a.body, `"ok":true`) {
		t.Fatalf("/healthz: %d %s", a.status, a.body)
	}
	if a := call(t, "GET", srv.URL+"/readyz", ""); a.status != 200 || !strings.Contains(a.body, `"engine":"sqlite"`) {
		t.Fatalf("/readyz: %d %s", a.status, a.body)
	}
	if a := call(t, "GET", srv.URL+"/", ""); a.status != 200 || !strings.Contains(a.body, "/v1/automation/openapi.json") {
		t.Fatalf("/: %d %s", a.status, a.body)
	}
	if a := call(t, "GET", srv.URL+"/nope", ""); a.status != 404 || !strings.Contains(a.body, "no endpoint GET /nope") {
		t.Fatalf("/nope: %d %s", a.status, a.body)
	}

	key := studioKey(t, s.Store(), "ops")
	if a := call(t, "GET", srv.URL+"/v1/automation/validate", key); a.status != 200 || !strings.Contains(a.body, `"slug":"ops"`) {
		t.Fatalf("lane /validate: %d %s", a.status, a.body)
	}
	if a := call(t, "GET", srv.URL+"/v1/automation/trainees/trn_0000000000000000000000000000", key); a.status != 404 {
		t.Fatalf("lane unknown trainee: %d %s", a.status, a.body)
	}

	m := call(t, "GET", srv.URL+"/metrics", "")
	for _, want := range []string{
		`perform_http_requests_total{route="GET /healthz",status="200"}`,
		`perform_http_requests_total{route="GET /v1/automation/validate",status="200"}`,
		`perform_http_requests_total{route="GET /v1/automation/trainees/{id}",status="404"}`,
		`perform_http_requests_total{route="unmatched",status="404"}`,
	} {
		if !strings.Contains(m.body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(m.body, "trn_0000000000000000000000000000") {
		t.Error("a raw id became a metrics label")
	}
}

func TestReadyzFailsWithoutDatabase(t *testing.T) {
	t.Parallel()
	s := newServer(t, testConfig(t))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	s.Store().Close()
	if a := call(t, "GET", srv.URL+"/readyz", ""); a.status != 503 {
		t.Fatalf("/readyz with a closed store: %d %s", a.status, a.body)
	}
	if a := call(t, "GET", srv.URL+"/healthz", ""); a.status != 200 {
		t.Fatalf("/healthz must not depend on the database: %d", a.status)
	}
}

func TestHealthAndMetricsAreNotRateLimited(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.RateLimitMax = 2
	s := newServer(t, cfg)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for range 5 {
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			if a := call(t, "GET", srv.URL+path, ""); a.status != 200 {
				t.Fatalf("%s answered %d", path, a.status)
			}
		}
	}
	// The lane is limited per client address when there is no key.
	codes := []int{}
	for range 3 {
		codes = append(codes, call(t, "GET", srv.URL+"/v1/automation/validate", "").status)
	}
	if codes[2] != 429 {
		t.Fatalf("lane without a key: statuses %v, want the third to be 429", codes)
	}
}

// TestLimiterHoldsAcrossInstances runs two servers on one database and one
// Redis: the key's budget is shared, so the request after the budget is
// refused by whichever instance gets it. Without Redis each instance keeps
// its own budget, which is what the Redis limiter is there to prevent.
func TestLimiterHoldsAcrossInstances(t *testing.T) {
	t.Parallel()
	redisURL := storetest.RedisURL(t)
	databases := map[string]func(t *testing.T) string{
		store.EngineSQLite: func(t *testing.T) string { return filepath.Join(t.TempDir(), "shared.db") },
		store.EnginePostgres: func(t *testing.T) string {
			_, url := storetest.OpenPostgresSchema(t, storetest.PostgresURL(t))
			return url
		},
	}
	for engine, database := range databases {
		t.Run(engine, func(t *testing.T) {
			dbURL := database(t)
			const budget = 6
			run := func(redisURL string) []int {
				cfg := testConfig(t)
				cfg.DatabaseURL = dbURL
				cfg.RedisURL = redisURL
				cfg.RateLimitMax = budget
				a, b := newServer(t, cfg), newServer(t, cfg)
				srvA, srvB := httptest.NewServer(a.Handler()), httptest.NewServer(b.Handler())
				defer srvA.Close()
				defer srvB.Close()
				key := studioKey(t, a.Store(), "rl-"+strings.ToLower(auth.Display(auth.NewKey())[8:]))
				var statuses []int
				for i := range budget + 2 {
					url := srvA.URL
					if i%2 == 1 {
						url = srvB.URL
					}
					ans := call(t, "GET", url+"/v1/automation/validate", key)
					statuses = append(statuses, ans.status)
					if ans.status == 429 && ans.header.Get("Retry-After") == "" {
						t.Errorf("429 without Retry-After")
					}
				}
				return statuses
			}

			shared := run(redisURL)
			for i, st := range shared {
				want := 200
				if i >= budget {
					want = 429
				}
				if st != want {
					t.Fatalf("with Redis, request %d answered %d (all: %v): the budget of %d is not shared", i+1, st, shared, budget)
				}
			}
			for i, st := range run("") {
				if st != 200 {
					t.Fatalf("in memory, request %d answered %d: each instance should keep its own budget", i+1, st)
				}
			}
		})
	}
}

func TestBadRedisStopsStartUp(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.RedisURL = "redis://127.0.0.1:1/0"
	_, err := New(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "PERFORM_REDIS_URL") {
		t.Fatalf("want an error naming PERFORM_REDIS_URL, got %v", err)
	}
}

func TestPluginsAreMountedAndLimited(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.RateLimitMax = 1
	var gotJobs atomic.Bool
	var laneStatus atomic.Int32
	plug := func(p *Parts) error {
		if p.Store == nil || p.Workers == nil || p.Lane == nil {
			return errors.New("parts missing")
		}
		p.OnJobs(func(c *river.Client[*sql.Tx]) { gotJobs.Store(c != nil) })
		p.Handle("POST /v1/agent/webhook", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Call the lane in process, as the agent's tools do.
			rec := httptest.NewRecorder()
			p.Lane.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/automation/openapi.json", nil))
			laneStatus.Store(int32(rec.Code))
			w.WriteHeader(http.StatusAccepted)
		}), true)
		p.Handle("GET /open", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), false)
		return nil
	}
	s := newServer(t, cfg, WithPlugin(plug))
	if !gotJobs.Load() {
		t.Fatal("OnJobs was not called with the River client")
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	if a := call(t, "POST", srv.URL+"/v1/agent/webhook", ""); a.status != 202 || laneStatus.Load() != 200 {
		t.Fatalf("plug-in route: %d, lane in process: %d", a.status, laneStatus.Load())
	}
	if a := call(t, "POST", srv.URL+"/v1/agent/webhook", ""); a.status != 429 || !strings.Contains(a.body, "RATE_LIMITED") {
		t.Fatalf("second call over a budget of 1: %d %s", a.status, a.body)
	}
	for range 3 {
		if a := call(t, "GET", srv.URL+"/open", ""); a.status != 200 {
			t.Fatalf("unlimited plug-in route: %d", a.status)
		}
	}

	failing := func(*Parts) error { return errors.New("the agent needs PERFORM_SECRET_KEY") }
	if _, err := New(context.Background(), testConfig(t), nil, WithPlugin(failing)); err == nil || !strings.Contains(err.Error(), "PERFORM_SECRET_KEY") {
		t.Fatalf("a failing plug-in must stop New: %v", err)
	}
}

// TestServeShutsDownGracefully cancels the context while a request is in
// flight: the request completes, the audit event of an earlier lane call is
// flushed to the database, and the port stops accepting.
func TestServeShutsDownGracefully(t *testing.T) {
	// Not parallel: Serve sets the process's GC percent, which this reads.
	cfg := testConfig(t)
	cfg.GCPercent = 321
	started, release := make(chan struct{}), make(chan struct{})
	var gcDuringServe atomic.Int64
	slow := func(p *Parts) error {
		p.Handle("GET /slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			v := debug.SetGCPercent(-1)
			debug.SetGCPercent(v)
			gcDuringServe.Store(int64(v))
			close(started)
			<-release // held until the shutdown has closed the port
			_, _ = io.WriteString(w, "done")
		}), false)
		return nil
	}
	s, err := New(context.Background(), cfg, nil, WithPlugin(slow))
	if err != nil {
		t.Fatal(err)
	}
	key := studioKey(t, s.Store(), "shutdown")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()

	if a := call(t, "GET", url+"/v1/automation/validate", key); a.status != 200 {
		t.Fatalf("validate: %d %s", a.status, a.body)
	}
	// River runs: the periodic form announcer runs once at start, and its
	// run is counted in the metrics.
	jobsCounted := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(call(t, "GET", url+"/metrics", "").body, `perform_jobs_total{kind="perform_form_announce",outcome="completed"}`) {
			jobsCounted = true
			break
		}
	}
	if !jobsCounted {
		t.Error("the form announcer's run at start never showed in perform_jobs_total")
	}

	slowDone := make(chan answer, 1)
	go func() { slowDone <- call(t, "GET", url+"/slow", "") }()
	<-started
	cancel()
	// The request stays in flight until the shutdown has begun: the port
	// refuses new connections.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the port still accepts connections 30s after the context was cancelled")
		}
	}
	close(release)

	if a := <-slowDone; a.status != 200 || a.body != "done" {
		t.Fatalf("the in-flight request was cut: %d %q", a.status, a.body)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the context was cancelled")
	}
	if got := gcDuringServe.Load(); got != 321 {
		t.Errorf("GC percent while serving was %d, want PERFORM_GC_PERCENT's 321", got)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("the port still accepts connections after shutdown")
	}
	if s.URL() != url {
		t.Errorf("URL() = %q, want %q", s.URL(), url)
	}

	// The store is closed; read the audit trail through a fresh one.
	st, err := store.Open(context.Background(), cfg.DatabaseURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	studio, err := st.StudioBySlug(context.Background(), "shutdown")
	if err != nil {
		t.Fatal(err)
	}
	events, err := st.ListAudit(context.Background(), studio.ID, store.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if events.Total != 1 || events.Items[0].Status != 200 {
		b, _ := json.Marshal(events)
		t.Fatalf("audit after shutdown: %s; want the one validate call, flushed", b)
	}
}

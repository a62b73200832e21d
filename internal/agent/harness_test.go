package agent

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

const (
	testToken = "hook-secret"
	testKey   = "ss-key"
)

// newClock is the clock the tests move by hand, at the harness's start.
func newClock() *testkit.Clock { return testkit.NewClock(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)) }

// harness is one agent on a real store, a real River client, the real lane
// behind a real HTTP server, and the two fakes.
type harness struct {
	t       testing.TB
	st      store.Store
	agent   *Agent
	llm     *fakes.Anthropic
	sms     *fakes.SmartSend
	hook    *httptest.Server
	clock   *testkit.Clock
	jobs    *river.Client[*sql.Tx]
	script  func(n int, req fakes.MessagesRequest) fakes.Reply
	scriptM sync.Mutex
	audit   *audit.Writer
}

type harnessOption func(*Options)

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func newHarness(t testing.TB, st store.Store, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, st: st, clock: newClock()}
	h.script = func(int, fakes.MessagesRequest) fakes.Reply { return fakes.Text("תשובה") }
	h.llm = fakes.NewAnthropic(func(n int, req fakes.MessagesRequest) fakes.Reply {
		h.scriptM.Lock()
		s := h.script
		h.scriptM.Unlock()
		return s(n, req)
	})
	t.Cleanup(h.llm.Close)
	h.sms = fakes.NewSmartSend()
	t.Cleanup(h.sms.Close)

	h.audit = audit.NewWriter(st, audit.Options{Logger: quietLogger()})
	t.Cleanup(func() { h.audit.Close() })
	// In process, as perform serve wires it: the lane knows the agent's
	// calls from the transport, never from a header.
	laneHandler := areas.Lane(lane.Options{Store: st, Audit: h.audit, Logger: quietLogger()})
	o := Options{
		Store:         st,
		Lane:          laneclient.New("http://perform.internal", laneclient.HandlerTransport(laneHandler), domain.SourceAgent),
		SmartSendKey:  testKey,
		SmartSendURL:  h.sms.URL,
		WebhookSecret: testToken,
		LLM:           LLM{APIKey: "test-anthropic-key", BaseURL: h.llm.URL, Model: "claude-test"},
		Debounce:      -1, // tests about the debounce set their own
		SecretKey:     bytes.Repeat([]byte{42}, 32),
		Now:           h.clock.Now,
		Logger:        quietLogger(),
		LeaseTTL:      3 * time.Second,
	}
	for _, f := range opts {
		f(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.agent = a
	h.jobs = startJobs(t, st, a)
	h.hook = newLocalServer(t, a.Webhook())
	return h
}

// startJobs builds and starts a River client that works the agent's jobs.
func startJobs(t testing.TB, st store.Store, agents ...*Agent) *river.Client[*sql.Tx] {
	t.Helper()
	workers := river.NewWorkers()
	agents[0].Register(workers)
	client, err := jobs.NewClient(st, jobs.Config{Workers: workers, Holding: true, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		a.SetJobs(client)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		_ = client.Stop(stopCtx)
		cancel()
	})
	return client
}

func newLocalServer(t testing.TB, h http.Handler) *httptest.Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func (h *harness) setScript(f func(n int, req fakes.MessagesRequest) fakes.Reply) {
	h.scriptM.Lock()
	h.script = f
	h.scriptM.Unlock()
}

// webhookResult is the webhook's answer.
type webhookResult struct {
	Status int
	Body   map[string]any
}

func (r webhookResult) accepted() float64 {
	data, _ := r.Body["data"].(map[string]any)
	n, _ := data["accepted"].(float64)
	return n
}

func (r webhookResult) errorMessage() string {
	e, _ := r.Body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

func (h *harness) post(token string, body string) webhookResult {
	h.t.Helper()
	resp, err := http.Post(h.hook.URL+"/v1/agent/webhook?token="+token, "application/json", strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		h.t.Fatalf("webhook answered %d with non-JSON %q", resp.StatusCode, raw)
	}
	return webhookResult{Status: resp.StatusCode, Body: out}
}

// send posts one text message from phone into conversation conv and
// expects it accepted.
func (h *harness) send(phone, conv, text string) {
	h.t.Helper()
	body, _ := json.Marshal(Inbound{Text: text, Phone: phone, ConversationID: conv, SenderName: "Coach"})
	r := h.post(testToken, string(body))
	if r.Status != 200 || r.accepted() != 1 {
		h.t.Fatalf("webhook answered %d %v; want 200 accepted 1", r.Status, r.Body)
	}
}

// waitIdle waits until no reply job is waiting or running.
func (h *harness) waitIdle() {
	h.t.Helper()
	waitJobsIdle(h.t, h.st)
}

func waitJobsIdle(t testing.TB, st store.Store) { t.Helper(); waitJobsIdleFor(t, st, 60*time.Second) }

// waitJobsIdleFor is waitJobsIdle with its own deadline.
func waitJobsIdleFor(t testing.TB, st store.Store, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	q := `SELECT count(*) FROM river_job WHERE kind = 'agent_reply' AND state NOT IN ('completed', 'discarded', 'cancelled')`
	for {
		var n int
		if err := st.DB().QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reply jobs still unfinished after %s", n, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor polls cond until it holds or 30 s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// studioWithCoach creates a studio and one active coach with the phone
// written as people type it.
func studioWithCoach(t testing.TB, st store.Store, studioName, coachName, phone string, lastActive time.Time) (domain.Studio, domain.Coach) {
	t.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: studioName, Slug: fmt.Sprintf("s-%d", time.Now().UnixNano())}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatal(err)
	}
	return s, addCoach(t, st, s.ID, coachName, phone, true, lastActive)
}

func addCoach(t testing.TB, st store.Store, studioID, name, phone string, active bool, lastActive time.Time) domain.Coach {
	t.Helper()
	c := domain.Coach{Name: name, Phone: &phone, Active: active, LastActiveAt: &lastActive}
	if err := st.Studio(studioID).CreateCoach(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// onSQLite runs f on SQLite only, in a subtest named for it: a test of
// what the assistant says and decides (menus, caps, chunks, prompts,
// refusals), whose store calls the storetest contract holds to the same
// answers on both engines. A test of River's jobs, leases, crashes,
// instances or concurrency runs on both, with forEngine.
func onSQLite(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Parallel()
	t.Run(store.EngineSQLite, func(t *testing.T) { f(t, storetest.OpenSQLite(t)) })
}

// forEngine runs f on each engine, in parallel, and the test beside the
// package's other tests: each run owns its store, so nothing is shared.
func forEngine(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Parallel()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, open(t))
		})
	}
}

// agentSettingsOf reads Studio.settings.agent.
func agentSettingsOf(t testing.TB, st store.Store, studioID string) agentSettings {
	t.Helper()
	s, err := st.StudioByID(context.Background(), studioID)
	if err != nil {
		t.Fatal(err)
	}
	_, as, err := readAgentSettings(s.Settings)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

func newLaneClientForTest(t testing.TB, st store.Store) *laneclient.Client {
	srv := newLocalServer(t, areas.Lane(lane.Options{Store: st, Logger: quietLogger()}))
	return laneclient.New(srv.URL, nil, domain.SourceAgent)
}

func storetestSQLite(t *testing.T) store.Store { return storetest.OpenSQLite(t) }

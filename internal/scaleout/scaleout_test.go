//go:build scaleout

package scaleout

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/testkit"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/areas/public"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

const (
	webhookToken = "scaleout-hook"
	smartSendKey = "scaleout-ss"
	// shutdownDelay is PERFORM_SHUTDOWN_DELAY_MS: well above the time
	// HAProxy takes to mark an instance down (inter 500ms, then fastinter
	// 100ms, fall 2: about 0.6 s).
	shutdownDelay = 2 * time.Second
	workers       = 8                     // concurrent clients of the load
	pause         = 10 * time.Millisecond // between one client's requests
	rateMax       = 20
	burstPhones   = 6
	burstSize     = 3
)

// need is the value of an environment variable the test cannot run
// without: unset skips, except under CI=true (.ci/run, .ci/scale-out),
// where a skip would hide that nothing was proven.
func need(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; the scale-out test needs it", name)
		}
		t.Skipf("%s is not set", name)
	}
	return v
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// cli runs a perform admin command on the database and returns its stdout.
func cli(t *testing.T, bin, databaseURL string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PERFORM_DATABASE_URL="+databaseURL, "LOG_FORMAT=json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perform %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// instance is one `perform serve` process.
type instance struct {
	t       *testing.T
	name    string
	bin     string
	env     []string
	port    int
	cmd     *exec.Cmd
	done    chan struct{}
	exitErr error
	started time.Time // when the process was started
	serving time.Time // when it logged "perform serving"
}

// startInstance runs perform serve with env on port (0: a free one, which
// the instance then keeps across restarts) and waits until it serves.
func startInstance(t *testing.T, bin, name string, port int, env []string) *instance {
	t.Helper()
	i := &instance{t: t, name: name, bin: bin, env: env, port: port}
	i.start()
	t.Cleanup(i.kill)
	return i
}

func (i *instance) start() {
	t := i.t
	t.Helper()
	cmd := exec.Command(i.bin, "serve", "--host", "127.0.0.1", "--port", strconv.Itoa(i.port))
	cmd.Env = append(os.Environ(), i.env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	i.started = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	i.cmd, i.done = cmd, make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg     string `json:"msg"`
				Address string `json:"address"`
				Level   string `json:"level"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "perform serving" {
				addr <- line.Address
			}
			if testing.Verbose() && line.Level != "INFO" || os.Getenv("SCALEOUT_LOGS") != "" {
				t.Logf("[%s] %s", i.name, sc.Text())
			}
		}
	}()
	done := i.done
	go func() { i.exitErr = cmd.Wait(); close(done) }()
	select {
	case a := <-addr:
		i.serving = time.Now()
		_, p, _ := net.SplitHostPort(a)
		i.port, _ = strconv.Atoi(p)
	case <-done:
		t.Fatalf("perform serve (%s) exited before serving: %v", i.name, i.exitErr)
	case <-time.After(60 * time.Second):
		t.Fatalf("perform serve (%s) did not start in 60s", i.name)
	}
}

func (i *instance) url() string { return fmt.Sprintf("http://127.0.0.1:%d", i.port) }

// kill is SIGKILL: no drain, no flush.
func (i *instance) kill() {
	if i.cmd != nil && i.cmd.Process != nil {
		_ = i.cmd.Process.Signal(syscall.SIGKILL)
		<-i.done
	}
}

// term is SIGTERM; it returns once the process has exited, and its exit.
func (i *instance) term() error {
	_ = i.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-i.done:
		return i.exitErr
	case <-time.After(60 * time.Second):
		return errors.New("did not exit within 60 s of SIGTERM")
	}
}

// freePort is a port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// balancer is a running HAProxy.
type balancer struct {
	url, statsURL string
}

func startHAProxy(t *testing.T, servers []backendServer) *balancer {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed (.ci/scale-out installs it: apt-get install haproxy)")
		}
		t.Skip("haproxy is not installed; apt-get install haproxy, or run .ci/scale-out")
	}
	port, statsPort := freePort(t), freePort(t)
	cfg := haproxyConfig(t, fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", statsPort), servers)
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-q", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c refuses the configuration: %v\n%s\n%s", err, out, cfg)
	}
	cmd := exec.Command(bin, "-db", "-f", path) // -db: foreground
	logs := &lineLog{t: t, prefix: "[haproxy] "}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGKILL); <-done })
	b := &balancer{url: fmt.Sprintf("http://127.0.0.1:%d", port), statsURL: fmt.Sprintf("http://127.0.0.1:%d/stats;csv", statsPort)}
	for _, s := range servers {
		b.waitStatus(t, s.Name, "UP", 30*time.Second)
	}
	return b
}

// lineLog passes HAProxy's output (one line per request) to t.Log when
// SCALEOUT_LOGS is set.
type lineLog struct {
	t      *testing.T
	prefix string
}

func (l *lineLog) Write(p []byte) (int, error) {
	if os.Getenv("SCALEOUT_LOGS") != "" {
		for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
			l.t.Log(l.prefix + line)
		}
	}
	return len(p), nil
}

// serverStats is one instance's line on HAProxy's stats page.
type serverStats struct {
	Status       string // UP, DOWN, "UP 1/2" while rising, …
	Retries      int    // wretr: requests retried
	Redispatches int    // wredis: requests sent to another instance after a failure
}

func (b *balancer) stats(t *testing.T) map[string]serverStats {
	t.Helper()
	out, err := b.readStats()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (b *balancer) readStats() (map[string]serverStats, error) {
	res, err := http.Get(b.statsURL)
	if err != nil {
		return nil, fmt.Errorf("HAProxy stats: %w", err)
	}
	defer res.Body.Close()
	r := csv.NewReader(res.Body)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, fmt.Errorf("HAProxy stats: %v (%d rows)", err, len(rows))
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[strings.TrimPrefix(name, "# ")] = i
	}
	out := map[string]serverStats{}
	for _, row := range rows[1:] {
		if row[col["pxname"]] != "perform" || row[col["svname"]] == "BACKEND" || row[col["svname"]] == "FRONTEND" {
			continue
		}
		n := func(c string) int { v, _ := strconv.Atoi(row[col[c]]); return v }
		out[row[col["svname"]]] = serverStats{Status: row[col["status"]], Retries: n("wretr"), Redispatches: n("wredis")}
	}
	return out, nil
}

// waitStatus waits until HAProxy shows server name with status and says
// how long that took.
func (b *balancer) waitStatus(t *testing.T, name, status string, timeout time.Duration) time.Duration {
	t.Helper()
	d, err := b.untilStatus(name, status, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// untilStatus is waitStatus for any goroutine: it returns the failure.
func (b *balancer) untilStatus(name, status string, timeout time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		all, err := b.readStats() // refused while HAProxy starts
		if st := all[name]; err == nil && st.Status == status {
			return time.Since(start), nil
		}
		if time.Since(start) > timeout {
			return 0, fmt.Errorf("HAProxy shows %s as %+v (%v) after %s; want %s", name, all[name], err, timeout, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// result is one request of the load.
type result struct {
	kind       string // "get_trainee" or "write"
	start, end time.Time
	status     int
	servedBy   string
	err        string // why it failed; "" when it succeeded
	title      string // a write's task title
}

// loadGen sends get_trainee over /mcp and task writes over the lane
// through the balancer, from workers keep-alive clients, until stopped.
type loadGen struct {
	base, key string
	trainees  []string
	client    *http.Client
	inflight  atomic.Int64
	mu        sync.Mutex
	results   []result
	stop      chan struct{}
	wg        sync.WaitGroup
}

func newLoad(base, key string, trainees []string) *loadGen {
	tr := &http.Transport{MaxIdleConns: 2 * workers, MaxIdleConnsPerHost: 2 * workers, IdleConnTimeout: 30 * time.Second}
	return &loadGen{base: base, key: key, trainees: trainees, stop: make(chan struct{}),
		client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

func (l *loadGen) run() {
	run := randomHex(4)
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ; n++ {
				select {
				case <-l.stop:
					return
				default:
				}
				var r result
				title := fmt.Sprintf("scale-out-%s-w%d-n%d", run, w, n)
				switch {
				case n%4 == 3:
					r = l.write(title)
				case n%8 == 1:
					r = l.createTask(title, n)
				default:
					r = l.getTrainee(l.trainees[(w+n)%len(l.trainees)], n)
				}
				l.mu.Lock()
				l.results = append(l.results, r)
				l.mu.Unlock()
				// A steady load, not a saturating one: the machine is shared.
				time.Sleep(pause)
			}
		}()
	}
}

func (l *loadGen) finish() []result {
	close(l.stop)
	l.wg.Wait()
	l.client.CloseIdleConnections()
	return l.results
}

func (l *loadGen) do(r *result, req *http.Request) []byte {
	l.inflight.Add(1)
	defer l.inflight.Add(-1)
	r.start = time.Now()
	res, err := l.client.Do(req)
	if err != nil {
		r.end, r.err = time.Now(), err.Error()
		return nil
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	r.end, r.status, r.servedBy = time.Now(), res.StatusCode, res.Header.Get("X-Served-By")
	if err != nil {
		r.err = err.Error()
	}
	return body
}

// mcpRequest is a stateless JSON-RPC POST to base's /mcp with key as the bearer.
func mcpRequest(base, key, body string) *http.Request {
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+key)
	return req
}

func (l *loadGen) getTrainee(id string, n int) result {
	r := result{kind: "get_trainee"}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_trainee","arguments":{"traineeId":%q}}}`, n, id)
	req := mcpRequest(l.base, l.key, body)
	got := l.do(&r, req)
	if r.err == "" && (r.status != 200 || !bytes.Contains(got, []byte(`"result"`)) || bytes.Contains(got, []byte(`"isError":true`)) || !bytes.Contains(got, []byte(id))) {
		r.err = fmt.Sprintf("%d %.200s", r.status, got)
	}
	return r
}

// createTask is the create_task tool over /mcp: no Idempotency-Key from
// the client; the tool executor derives one from the key, the tool and the
// arguments.
func (l *loadGen) createTask(title string, n int) result {
	r := result{kind: "create_task", title: title}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_task","arguments":{"title":%q}}}`, n, title)
	req := mcpRequest(l.base, l.key, body)
	got := l.do(&r, req)
	if r.err == "" && (r.status != 200 || !bytes.Contains(got, []byte(`"result"`)) || bytes.Contains(got, []byte(`"isError":true`)) || !bytes.Contains(got, []byte(title))) {
		r.err = fmt.Sprintf("%d %.200s", r.status, got)
	}
	return r
}

func (l *loadGen) write(title string) result {
	r := result{kind: "write", title: title}
	body, _ := json.Marshal(map[string]string{"title": title})
	req, _ := http.NewRequest("POST", l.base+"/v1/automation/tasks", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.key)
	req.Header.Set("Idempotency-Key", "key-"+title)
	got := l.do(&r, req)
	if r.err == "" && (r.status != 201 || !bytes.Contains(got, []byte(`"ok":true`))) {
		r.err = fmt.Sprintf("%d %.200s", r.status, got)
	}
	return r
}

// lane sends one lane request with the key and decodes data into out
// (when not nil); it fails the test on anything but want.
func lane(t *testing.T, base, key, method, path string, in, out any, want int) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+"/v1/automation"+path, body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s; want %d", method, path, res.StatusCode, raw, want)
	}
	if out != nil {
		var env struct{ Data json.RawMessage }
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(env.Data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// firstOK polls GET url with the key until it answers 200 and says how
// long that took.
func firstOK(t *testing.T, url, key string, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		if res, err := c.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return time.Since(start)
			}
		}
		if time.Since(start) > timeout {
			t.Fatalf("%s did not answer 200 within %s", url, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestScaleOut(t *testing.T) {
	pgBase := need(t, storetest.PostgresEnv)
	redisURL := need(t, storetest.RedisEnv)
	if _, err := exec.LookPath("haproxy"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("haproxy is not installed; apt-get install haproxy, or run .ci/scale-out")
	}
	began := time.Now()
	ctx := context.Background()

	// One fresh schema (the project's Postgres tests each get their own),
	// migrated here and dropped at the end; one Redis. Rate-limit counters
	// are keyed by credential, and the keys are minted fresh below.
	st, dbURL := storetest.OpenPostgresSchema(t, pgBase)
	bin := testkit.PerformBinary(t)
	t.Logf("built cmd/perform in %s", time.Since(began).Round(time.Second))

	slug := "scaleout-" + randomHex(4)
	cli(t, bin, dbURL, "studio", "create", "--name", "Scale-out Studio", "--slug", slug, "--tier", "business")
	key := cli(t, bin, dbURL, "key", "create", "--studio", slug, "--name", "load")
	limitedKey := cli(t, bin, dbURL, "key", "create", "--studio", slug, "--name", "limited")
	platformKey := cli(t, bin, dbURL, "key", "create", "--studio", slug, "--name", "platform", "--kind", "platform")
	studio, err := st.StudioBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}

	llm := fakes.NewAnthropic(func(_ int, req fakes.MessagesRequest) fakes.Reply {
		return fakes.Text("reply to: " + req.LastUserText())
	})
	defer llm.Close()
	sms := fakes.NewSmartSend()
	defer sms.Close()

	secretKey := randomHex(32)
	shared := []string{
		"PERFORM_DATABASE_URL=" + dbURL,
		"PERFORM_REDIS_URL=" + redisURL,
		"PERFORM_SECRET_KEY=" + secretKey,
		"LOG_FORMAT=json",
		"LOG_LEVEL=info",
	}
	agentEnv := []string{
		"RATE_LIMIT_MAX=1000000",
		fmt.Sprintf("PERFORM_SHUTDOWN_DELAY_MS=%d", shutdownDelay.Milliseconds()),
		"PERFORM_TRUSTED_PROXIES=127.0.0.1",
		"SMARTSEND_WEBHOOK_SECRET=" + webhookToken,
		"SMARTSEND_API_URL=" + sms.URL,
		"AGENT_SMARTSEND_API_KEY=" + smartSendKey,
		"ANTHROPIC_API_KEY=scaleout-anthropic",
		"ANTHROPIC_BASE_URL=" + llm.URL,
		"AGENT_DEBOUNCE_MS=1500",
	}
	a := startInstance(t, bin, "perform1", 0, append(slices.Clone(shared), agentEnv...))
	b := startInstance(t, bin, "perform2", 0, append(slices.Clone(shared), agentEnv...))
	lb := startHAProxy(t, []backendServer{
		{"perform1", fmt.Sprintf("127.0.0.1:%d", a.port)},
		{"perform2", fmt.Sprintf("127.0.0.1:%d", b.port)},
	})

	// Trainees to read, and coaches for the assistant, through the balancer.
	var trainees []string
	for i := range 20 {
		var tr struct{ ID string }
		lane(t, lb.url, key, "POST", "/trainees", map[string]string{
			"firstName": fmt.Sprintf("Trainee%d", i), "lastName": "Scale", "phone": fmt.Sprintf("05244%05d", i),
		}, &tr, 201)
		trainees = append(trainees, tr.ID)
	}
	var phones []string
	for i := range burstPhones {
		p := fmt.Sprintf("05277%05d", i)
		lane(t, lb.url, key, "POST", "/coaches", map[string]string{"name": fmt.Sprintf("Coach %d", i), "phone": p}, nil, 201)
		phones = append(phones, "972"+strings.TrimPrefix(p, "0"))
		// A past exchange keeps the welcome menu out of the burst's reply.
		past := []store.AgentHistoryEntry{{Role: "user", Text: "earlier"}, {Role: "assistant", Text: "earlier"}}
		if err := st.Agent().AppendHistory(ctx, "+"+phones[i], studio.ID, past, time.Now(), 24); err != nil {
			t.Fatal(err)
		}
	}

	// 1. Load through the balancer; perform1 is killed mid-load and
	// restarted; then perform2 is stopped with SIGTERM and restarted.
	load := newLoad(lb.url, key, trainees)
	load.run()
	time.Sleep(3 * time.Second)

	before := lb.stats(t)
	inflightAtKill := load.inflight.Load()
	a.kill()
	killedAt := time.Now() // reaped: a request started from here on never met perform1 alive
	downAfter := lb.waitStatus(t, "perform1", "DOWN", 10*time.Second)
	time.Sleep(time.Second)
	a.start() // the same port: HAProxy knows it
	firstOK(t, a.url()+"/v1/automation/validate", key, 30*time.Second)
	ownFirstOK := time.Since(a.started)
	lb.waitStatus(t, "perform1", "UP", 30*time.Second)
	restartToUp := time.Since(a.started)
	afterKill := lb.stats(t)
	time.Sleep(2 * time.Second)

	termAt := time.Now()
	termStats := lb.stats(t)
	takenOut := make(chan time.Duration, 1)
	go func() {
		d, err := lb.untilStatus("perform2", "DOWN", 10*time.Second)
		if err != nil {
			t.Error(err)
		}
		takenOut <- d
	}()
	termErr := b.term()
	termTook := time.Since(termAt)
	if termErr != nil {
		t.Errorf("perform2 after SIGTERM: %v; want exit 0", termErr)
	}
	termDown := <-takenOut
	time.Sleep(500 * time.Millisecond)
	termEnd := time.Now()
	afterTerm := lb.stats(t)
	b.start()
	lb.waitStatus(t, "perform2", "UP", 30*time.Second)
	time.Sleep(time.Second)
	results := load.finish()

	var failed, failedAfterKill, failedInTerm int
	served := map[string]int{}
	servedAfterRestart := 0
	acked := map[string]bool{}
	for _, r := range results {
		if r.err == "" {
			served[r.servedBy]++
			if r.servedBy == "perform1" && r.start.After(killedAt) {
				servedAfterRestart++
			}
			if r.kind == "write" || r.kind == "create_task" {
				acked[r.title] = true
			}
			continue
		}
		failed++
		t.Logf("failed %s started %s after the kill (%s): %s", r.kind, r.start.Sub(killedAt).Round(time.Millisecond), r.servedBy, r.err)
		if !r.start.Before(killedAt) {
			failedAfterKill++
		}
		if r.end.After(termAt) && r.start.Before(termEnd) {
			failedInTerm++
		}
	}
	t.Logf("load: %d requests (%d get_trainee and %d create_task over /mcp, %d lane task writes; %d writes acknowledged), %d failed, all in flight at the kill; %d requests in flight just before it",
		len(results), countKind(results, "get_trainee"), countKind(results, "create_task"), countKind(results, "write"), len(acked), failed-failedAfterKill, inflightAtKill)
	t.Logf("served by perform1 %d, perform2 %d; perform1 after its restart %d", served["perform1"], served["perform2"], servedAfterRestart)
	t.Logf("SIGKILL: HAProxy marked perform1 down %s after the kill; retried %d, redispatched %d requests",
		downAfter.Round(time.Millisecond), retries(before, afterKill), redispatches(before, afterKill))
	t.Logf("restart: first 200 on its own port %s after the process started (serving logged at %s); UP in HAProxy %s after the start",
		ownFirstOK.Round(time.Millisecond), a.serving.Sub(a.started).Round(time.Millisecond), restartToUp.Round(time.Millisecond))
	t.Logf("SIGTERM: HAProxy took perform2 out %s after the signal; it exited %s after it (delay %s); %d requests failed meanwhile; HAProxy retried %d, redispatched %d",
		termDown.Round(time.Millisecond), termTook.Round(time.Millisecond), shutdownDelay, failedInTerm, retries(termStats, afterTerm), redispatches(termStats, afterTerm))
	if len(results) < 200 {
		t.Errorf("only %d requests in the load; the test proved little", len(results))
	}
	if failed > workers {
		t.Errorf("%d requests failed; want at most the %d clients' requests in flight when perform1 was killed", failed, workers)
	}
	if failedAfterKill > 0 {
		t.Errorf("%d requests that started after the kill failed; only those in flight on the killed instance may", failedAfterKill)
	}
	if failedInTerm > 0 {
		t.Errorf("%d requests failed around perform2's SIGTERM; a graceful shutdown loses none", failedInTerm)
	}
	if served["perform1"] == 0 || served["perform2"] == 0 || servedAfterRestart == 0 {
		t.Errorf("the load did not reach both instances (and perform1 after its restart): %v, %d", served, servedAfterRestart)
	}
	if termTook < shutdownDelay {
		t.Errorf("perform2 exited %s after SIGTERM, before its %s shutdown delay", termTook, shutdownDelay)
	}
	// The readiness check took it out while it still served: nothing
	// needed the balancer's retries.
	if termDown >= termTook {
		t.Errorf("HAProxy took perform2 out %s after SIGTERM, not before it closed its port (%s)", termDown, termTook)
	}
	if n := retries(termStats, afterTerm) + redispatches(termStats, afterTerm); n != 0 {
		t.Errorf("HAProxy retried or redispatched %d requests around the SIGTERM; a drained instance needs none", n)
	}

	// Every acknowledged write is in the database, once; no write is there twice.
	rows, err := st.DB().QueryContext(ctx, `SELECT title, count(*) FROM tasks WHERE studio_id = $1 AND title LIKE 'scale-out-%' GROUP BY title`, studio.ID)
	if err != nil {
		t.Fatal(err)
	}
	inDB := map[string]int{}
	for rows.Next() {
		var title string
		var n int
		if err := rows.Scan(&title, &n); err != nil {
			t.Fatal(err)
		}
		inDB[title] = n
	}
	rows.Close()
	missing, doubled := 0, 0
	for title := range acked {
		if inDB[title] == 0 {
			missing++
			t.Errorf("acknowledged write %q is not in the database", title)
		}
	}
	for title, n := range inDB {
		if n > 1 {
			doubled++
			t.Errorf("write %q is in the database %d times", title, n)
		}
	}
	t.Logf("writes: %d acknowledged, %d missing from the database, %d in it twice; %d tasks in the database", len(acked), missing, doubled, len(inDB))

	// 2. The rate limit, shared in Redis: two more instances with
	// RATE_LIMIT_MAX=20, requests with a fresh key alternating between them.
	limitEnv := append(slices.Clone(shared), fmt.Sprintf("RATE_LIMIT_MAX=%d", rateMax), "RATE_LIMIT_WINDOW_MS=600000")
	c := startInstance(t, bin, "limited1", 0, limitEnv)
	d := startInstance(t, bin, "limited2", 0, limitEnv)
	var admitted, limited, other atomic.Int64
	perInstance := [2]atomic.Int64{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w; n < 2*rateMax; n += 4 {
				inst := []*instance{c, d}[n%2]
				req, _ := http.NewRequest("GET", inst.url()+"/v1/automation/trainees/"+trainees[n%len(trainees)], nil)
				req.Header.Set("Authorization", "Bearer "+limitedKey)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					other.Add(1)
					continue
				}
				res.Body.Close()
				switch res.StatusCode {
				case 200:
					admitted.Add(1)
					perInstance[n%2].Add(1)
				case 429:
					limited.Add(1)
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("rate limit: %d requests over two instances, %d admitted (limited1 %d, limited2 %d), %d refused 429; RATE_LIMIT_MAX %d",
		2*rateMax, admitted.Load(), perInstance[0].Load(), perInstance[1].Load(), limited.Load(), rateMax)
	if admitted.Load() != rateMax || limited.Load() != rateMax || other.Load() != 0 {
		t.Errorf("admitted %d, refused %d, other %d; want exactly %d admitted of %d", admitted.Load(), limited.Load(), other.Load(), rateMax, 2*rateMax)
	}
	keys, err := st.ListAPIKeys(ctx, studio.ID)
	if err != nil {
		t.Fatal(err)
	}
	ropts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(ropts)
	defer rdb.Close()
	for _, k := range keys {
		if k.Name == "limited" {
			n, err := rdb.Get(ctx, "perform:rl:cred:"+k.ID).Int()
			if err != nil || n != 2*rateMax {
				t.Errorf("the shared counter in Redis for the limited key: %d, %v; want %d", n, err, 2*rateMax)
			}
		}
	}
	_ = c.term()
	_ = d.term()

	// 3. The assistant: bursts of three messages per coach phone, sent
	// through the balancer (so each burst is split over both instances),
	// answered once each.
	hook := lb.url + "/v1/agent/webhook?token=" + webhookToken
	webhookBy := map[string]int{}
	var hookMu sync.Mutex
	for i, p := range phones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range burstSize {
				body, _ := json.Marshal(map[string]string{"text": fmt.Sprintf("p%d m%d", i, j), "phone": p, "conversationId": fmt.Sprintf("conv-%d", i)})
				res, err := http.Post(hook, "application/json", bytes.NewReader(body))
				if err != nil {
					t.Errorf("webhook: %v", err)
					return
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || !bytes.Contains(raw, []byte(`"accepted":1`)) {
					t.Errorf("webhook: %d %s", res.StatusCode, raw)
				}
				hookMu.Lock()
				webhookBy[res.Header.Get("X-Served-By")]++
				hookMu.Unlock()
			}
		}()
	}
	wg.Wait()
	burstSent := time.Now()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		seen := map[string]bool{}
		for _, s := range sms.Sent() {
			seen[s.ConversationID] = true
		}
		if len(seen) == burstPhones {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s only %d of %d bursts were answered", len(seen), burstPhones)
		}
	}
	answered := time.Since(burstSent)
	// Let any second reply show: every reply job finishes, then a debounce more.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var n int
		if err := st.DB().QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = 'agent_reply' AND state NOT IN ('completed', 'discarded', 'cancelled')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reply jobs still unfinished", n)
		}
	}
	time.Sleep(2 * time.Second)
	perConv := map[string][]string{}
	for _, s := range sms.Sent() {
		perConv[s.ConversationID] = append(perConv[s.ConversationID], s.Text)
	}
	replies := []int{}
	for i := range burstPhones {
		got := perConv[fmt.Sprintf("conv-%d", i)]
		replies = append(replies, len(got))
		if len(got) != 1 {
			t.Errorf("burst %d got %d replies %q; want exactly one", i, len(got), got)
			continue
		}
		for j := range burstSize {
			if !strings.Contains(got[0], fmt.Sprintf("p%d m%d", i, j)) {
				t.Errorf("burst %d's reply %q does not answer message %d", i, got[0], j)
			}
		}
	}
	t.Logf("assistant: %d bursts of %d messages, webhooks served by %v; replies per burst %v, all answered %s after the last message",
		burstPhones, burstSize, webhookBy, replies, answered.Round(100*time.Millisecond))
	if webhookBy["perform1"] == 0 || webhookBy["perform2"] == 0 {
		t.Errorf("the bursts' messages did not reach both instances: %v", webhookBy)
	}

	// 4. An agent platform's verification codes: a trainee is sent at most
	// codesPerHour an hour, counted once in Redis however the
	// starts spread over the instances.
	for n := range 2 * codesPerHour {
		inst := []*instance{a, b}[n%2]
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_verification","arguments":{}}}`
		req := mcpRequest(inst.url(), platformKey, body)
		req.Header.Set("X-Sa-Conversation-Id", fmt.Sprintf("platform-conv-%d", n))
		req.Header.Set("X-Sa-End-User-Phone", "0524400000") // Trainee0's
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("start_verification %d: %v", n+1, err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || strings.Contains(string(answer), `"isError":true`) {
			t.Fatalf("start_verification %d on %s: %d %s", n+1, inst.name, res.StatusCode, answer)
		}
	}
	codes := func() int {
		n := 0
		for _, s := range sms.Sent() {
			if strings.Contains(s.Text, "verification code") {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); codes() < codesPerHour && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second) // a code over the limit would have gone by now
	t.Logf("verification codes: %d starts over two instances, %d codes sent; at most %d an hour", 2*codesPerHour, codes(), codesPerHour)
	if got := codes(); got != codesPerHour {
		t.Errorf("%d verification codes sent to one trainee across two instances; want exactly %d", got, codesPerHour)
	}
	t.Logf("the scale-out test took %s", time.Since(began).Round(time.Second))
}

// codesPerHour is how many verification codes one trainee is sent an hour.
const codesPerHour = public.VerifyCodesPerHour

func countKind(rs []result, kind string) int {
	n := 0
	for _, r := range rs {
		if r.kind == kind {
			n++
		}
	}
	return n
}

func retries(from, to map[string]serverStats) int {
	n := 0
	for name, s := range to {
		n += s.Retries - from[name].Retries
	}
	return n
}

func redispatches(from, to map[string]serverStats) int {
	n := 0
	for name, s := range to {
		n += s.Redispatches - from[name].Redispatches
	}
	return n
}

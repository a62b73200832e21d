package ratelimit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/testkit"
)

// testRedis connects to PERFORM_TEST_REDIS_URL or skips the test.
func testRedis(t testing.TB) *redis.Client {
	t.Helper()
	url := os.Getenv("PERFORM_TEST_REDIS_URL")
	if url == "" {
		t.Skip("PERFORM_TEST_REDIS_URL is not set")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("PERFORM_TEST_REDIS_URL: %v", err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s does not answer: %v", url, err)
	}
	return c
}

func randomPrefix(t testing.TB) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "perform-test:" + hex.EncodeToString(b[:]) + ":"
}

func allowN(t *testing.T, l Limiter, key string, n int) Decision {
	t.Helper()
	var d Decision
	for range n {
		var err error
		if d, err = l.Allow(context.Background(), key); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestMemoryWindowResets(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemory(3, time.Minute)
	m.now = clk.Now

	if d := allowN(t, m, "a", 3); !d.Allowed || d.Remaining != 0 || d.Limit != 3 {
		t.Fatalf("third request: %+v", d)
	}
	clk.Advance(20 * time.Second)
	d := allowN(t, m, "a", 1)
	if d.Allowed || d.RetryAfter != 40*time.Second {
		t.Fatalf("fourth request: %+v, want denied with 40s to wait", d)
	}
	if d := allowN(t, m, "b", 1); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("another key has its own budget: %+v", d)
	}
	clk.Advance(40 * time.Second)
	if d := allowN(t, m, "a", 1); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("after the window: %+v", d)
	}
}

func TestMemoryForgetsFinishedWindows(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	m := NewMemory(1, time.Second)
	m.now = clk.Now
	for i := range 100 {
		allowN(t, m, strings.Repeat("k", i+1), 1)
	}
	clk.Advance(2 * time.Second)
	allowN(t, m, "fresh", 1)
	m.mu.Lock()
	n := len(m.windows)
	m.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d windows kept, want only the live one", n)
	}
}

func TestRedisInstancesShareBudget(t *testing.T) {
	c := testRedis(t)
	prefix := randomPrefix(t)
	a := NewRedis(c, 5, time.Minute).WithPrefix(prefix)
	b := NewRedis(c, 5, time.Minute).WithPrefix(prefix)

	allowN(t, a, "key:x", 3)
	if d := allowN(t, b, "key:x", 2); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("fifth request across instances: %+v", d)
	}
	d := allowN(t, a, "key:x", 1)
	if d.Allowed {
		t.Fatalf("sixth request across instances was allowed: %+v", d)
	}
	if d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
		t.Fatalf("retry after %v, want within the window", d.RetryAfter)
	}
	if d := allowN(t, b, "key:y", 1); !d.Allowed || d.Remaining != 4 {
		t.Fatalf("another caller: %+v", d)
	}
	if ttl := c.PTTL(context.Background(), prefix+"key:x").Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("the counter's expiry is %v, want within the window", ttl)
	}
}

func TestRedisConcurrentCountIsExact(t *testing.T) {
	c := testRedis(t)
	l := NewRedis(c, 50, time.Minute).WithPrefix(randomPrefix(t))
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 10 {
				d, err := l.Allow(context.Background(), "k")
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 50 {
		t.Fatalf("%d of 80 concurrent requests allowed, want exactly 50", allowed)
	}
}

func TestRedisWindowExpires(t *testing.T) {
	c := testRedis(t)
	l := NewRedis(c, 1, 150*time.Millisecond).WithPrefix(randomPrefix(t))
	allowN(t, l, "k", 1)
	if d := allowN(t, l, "k", 1); d.Allowed {
		t.Fatal("second request in the window was allowed")
	}
	// Wait for Redis to expire the window (a real clock: Redis owns it).
	deadline := time.Now().Add(5 * time.Second)
	for {
		d := allowN(t, l, "k", 1)
		if d.Allowed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the window never reset")
		}
		time.Sleep(d.RetryAfter)
	}
}

func TestRedisDownIsAnError(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	if _, err := NewRedis(c, 1, time.Second).Allow(context.Background(), "k"); err == nil {
		t.Fatal("no error from an unreachable Redis")
	}
}

type failing struct{}

func (failing) Allow(context.Context, string) (Decision, error) {
	return Decision{}, errors.New("down")
}

func deny429(w http.ResponseWriter, _ *http.Request, _ Decision) {
	http.Error(w, "slow down", http.StatusTooManyRequests)
}

func TestMiddleware(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := Middleware(NewMemory(2, time.Minute), deny429, nil)(ok)
	srv := httptest.NewServer(h)
	defer srv.Close()

	get := func(token string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := get("k1"); res.StatusCode != 204 || res.Header.Get("RateLimit-Remaining") != "1" || res.Header.Get("RateLimit-Limit") != "2" {
		t.Fatalf("first: %d %v", res.StatusCode, res.Header)
	}
	get("k1")
	res := get("k1")
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "60" {
		t.Fatalf("third: %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	// Another token, or none, from the same address shares its budget.
	for _, tok := range []string{"k2", ""} {
		if res := get(tok); res.StatusCode != 429 {
			t.Fatalf("token %q from the same address: %d, want 429", tok, res.StatusCode)
		}
	}

	// A failing limiter lets requests through, and says so: a warning and
	// perform_ratelimit_errors_total.
	var logs bytes.Buffer
	before := rateLimitErrors(t)
	open := httptest.NewServer(Middleware(failing{}, deny429, slog.New(slog.NewTextHandler(&logs, nil)))(ok))
	defer open.Close()
	res, err := http.Get(open.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 {
		t.Fatalf("a failing limiter must let requests through, got %d", res.StatusCode)
	}
	if got := rateLimitErrors(t); got != before+1 {
		t.Errorf("perform_ratelimit_errors_total went from %v to %v, want one more", before, got)
	}
	if !strings.Contains(logs.String(), "the rate limiter failed") || !strings.Contains(logs.String(), "down") {
		t.Errorf("no warning logged: %q", logs.String())
	}
}

// An unreachable Redis is a limiter error like any other: counted.
func TestUnreachableRedisIsCounted(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	before := rateLimitErrors(t)
	r := httptest.NewRequest("GET", "/", nil)
	if _, ok := Check(httptest.NewRecorder(), r, NewRedis(c, 1, time.Second), "k", nil); !ok {
		t.Fatal("a failing Redis must let the request through")
	}
	if got := rateLimitErrors(t); got != before+1 {
		t.Errorf("perform_ratelimit_errors_total went from %v to %v", before, got)
	}
}

func rateLimitErrors(t *testing.T) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "perform_ratelimit_errors_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("perform_ratelimit_errors_total is not registered")
	return 0
}

// Before authentication a request is named by its address alone, whatever
// token it carries: made-up tokens share their sender's budget.
func TestMiddlewareCountsByAddressWhateverTheToken(t *testing.T) {
	l := NewMemory(2, time.Minute)
	h := Middleware(l, func(w http.ResponseWriter, _ *http.Request, _ Decision) { w.WriteHeader(http.StatusTooManyRequests) }, nil)(
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	status := func(addr, token string) int {
		r := httptest.NewRequest("POST", "/", nil)
		r.RemoteAddr = addr
		r.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	for i, tok := range []string{"pf_live_a", "pf_live_b"} {
		if got := status("10.1.2.3:5555", tok); got != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, got)
		}
	}
	if got := status("10.1.2.3:6666", "pf_live_c"); got != http.StatusTooManyRequests {
		t.Errorf("a third token from the same address: %d, want 429", got)
	}
	if got := status("10.9.9.9:5555", "pf_live_a"); got != http.StatusOK {
		t.Errorf("another address: %d, want its own budget", got)
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1001 * time.Millisecond: 2, time.Minute: 60} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", d, got, want)
		}
	}
}

func TestDecisionMessage(t *testing.T) {
	for d, want := range map[Decision]string{
		{Limit: 120, RetryAfter: 300 * time.Millisecond}: "Too many requests: the limit is 120 per window. Wait 1 second (see Retry-After) and try again.",
		{Limit: 5, RetryAfter: 2500 * time.Millisecond}:  "Too many requests: the limit is 5 per window. Wait 3 seconds (see Retry-After) and try again.",
	} {
		if got := d.Message(); got != want {
			t.Errorf("%+v: %q, want %q", d, got, want)
		}
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := NewMemory(1<<30, time.Minute)
	ctx := context.Background()
	for b.Loop() {
		_, _ = m.Allow(ctx, "key:bench")
	}
}

func BenchmarkRedisAllow(b *testing.B) {
	c := testRedis(b)
	l := NewRedis(c, 1<<30, time.Minute).WithPrefix(randomPrefix(b))
	ctx := context.Background()
	for b.Loop() {
		if _, err := l.Allow(ctx, "key:bench"); err != nil {
			b.Fatal(err)
		}
	}
}

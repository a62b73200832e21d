package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/ratelimit/redistest"
)

type readiness struct {
	OK      bool   `json:"ok"`
	Status  string `json:"status"`
	Redis   string `json:"redis"`
	Warning string `json:"warning"`
}

func ready(t *testing.T, url string) (int, readiness) {
	t.Helper()
	a := call(t, "GET", url+"/readyz", "")
	var r readiness
	if err := json.Unmarshal([]byte(a.body), &r); err != nil {
		t.Fatalf("/readyz answered %d %q: %v", a.status, a.body, err)
	}
	return a.status, r
}

// TestLimitsHoldWhileRedisIsDown kills the server's own Redis in the
// middle of a window: the studio key's limit and the limit on failed
// credentials still hold (in memory), /readyz stays 200 and says Redis is
// degraded, and says it is up again once it is.
func TestLimitsHoldWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	cfg := testConfig(t)
	cfg.RedisURL = rs.URL(0)
	cfg.RateLimitMax = 4
	var logs syncLog
	s, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	key := studioKey(t, s.Store(), "redis-down")

	if status, r := ready(t, srv.URL); status != 200 || r.Redis != "up" {
		t.Fatalf("/readyz with Redis up: %d %+v", status, r)
	}
	for range 2 {
		if a := call(t, "GET", srv.URL+"/v1/automation/validate", key); a.status != 200 {
			t.Fatalf("with Redis up: %d %s", a.status, a.body)
		}
	}

	rs.Kill()
	var statuses []int
	for range 6 {
		statuses = append(statuses, call(t, "GET", srv.URL+"/v1/automation/validate", key).status)
	}
	if want := []int{200, 200, 200, 200, 429, 429}; !equalInts(statuses, want) {
		t.Fatalf("the studio key with Redis down: %v, want %v (its limit of 4 held in memory)", statuses, want)
	}
	statuses = statuses[:0]
	for range 6 {
		statuses = append(statuses, call(t, "GET", srv.URL+"/v1/automation/validate", "pf_live_wrong").status)
	}
	if want := []int{401, 401, 401, 401, 429, 429}; !equalInts(statuses, want) {
		t.Fatalf("failed credentials with Redis down: %v, want %v", statuses, want)
	}

	status, r := ready(t, srv.URL)
	if status != 200 || !r.OK || r.Redis != "degraded" || !strings.Contains(r.Warning, "PERFORM_REDIS_URL") {
		t.Fatalf("/readyz with Redis down: %d %+v, want 200, redis degraded and a warning naming PERFORM_REDIS_URL", status, r)
	}
	if n := strings.Count(logs.String(), "Redis does not answer"); n != 1 {
		t.Fatalf("the outage was logged %d times, want once:\n%s", n, logs.String())
	}

	rs.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, r := ready(t, srv.URL); r.Redis == "up" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/readyz still says Redis is degraded 5 s after it came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "Redis answers again") {
		t.Fatalf("the recovery was not logged:\n%s", logs.String())
	}
}

// syncLog is a log destination written from the server's goroutines.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *syncLog) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

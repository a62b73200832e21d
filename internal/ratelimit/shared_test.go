package ratelimit_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/ratelimit/redistest"
	"github.com/otherwise/perform/internal/testkit"
)

func allowed(t *testing.T, l ratelimit.Limiter, key string, n int) (ok int) {
	t.Helper()
	for range n {
		d, err := l.Allow(context.Background(), key)
		if err != nil {
			t.Fatalf("Allow(%q): %v", key, err)
		}
		if d.Allowed {
			ok++
		}
	}
	return ok
}

// TestSharedHoldsWhileRedisIsDown kills the Redis the limits count in, in
// the middle of a window: the request limit still holds (per instance, in
// memory), the refusing count refuses with a sentence, the transition is
// logged once, and when Redis is back the counts are in Redis again.
func TestSharedHoldsWhileRedisIsDown(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { client.Close() })
	var logs testkit.Buffer
	shared := ratelimit.NewShared(client, slog.New(slog.NewTextHandler(&logs, nil))).WithRetry(300*time.Millisecond, 50*time.Millisecond)
	requests := shared.Limiter(3, time.Minute, ratelimit.CountInMemory)
	codes := shared.Limiter(2, time.Hour, ratelimit.Refuse)

	if got := allowed(t, requests, "k", 2); got != 2 {
		t.Fatalf("with Redis up: %d of 2 allowed", got)
	}
	if got := allowed(t, codes, "trainee", 1); got != 1 {
		t.Fatalf("codes with Redis up: %d of 1 allowed", got)
	}
	if n, _ := client.Get(context.Background(), ratelimit.DefaultRedisPrefix+"k").Int(); n != 2 {
		t.Fatalf("Redis counted %d requests, want 2", n)
	}

	srv.Kill()
	if got := allowed(t, requests, "k", 10); got != 3 {
		t.Fatalf("with Redis down: %d of 10 requests allowed, want the limit of 3 to hold in memory", got)
	}
	for range 5 {
		_, err := codes.Allow(context.Background(), "trainee")
		if !errors.Is(err, ratelimit.ErrRedisDown) || !strings.Contains(err.Error(), "PERFORM_REDIS_URL") {
			t.Fatalf("a refusing count with Redis down answered %v, want ErrRedisDown naming PERFORM_REDIS_URL", err)
		}
	}
	if h := shared.Health(); !h.Down || h.Err == nil || h.Since.IsZero() {
		t.Fatalf("Health with Redis down = %+v", h)
	}
	if n := strings.Count(logs.String(), "Redis does not answer"); n != 1 {
		t.Fatalf("the outage was logged %d times, want once:\n%s", n, logs.String())
	}

	srv.Restart() // an empty Redis, as after a restart without persistence
	deadline := time.Now().Add(5 * time.Second)
	for shared.Health().Down {
		if time.Now().After(deadline) {
			t.Fatalf("Redis is back but the limiters did not return to it:\n%s", logs.String())
		}
		allowed(t, requests, "other", 1)
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "Redis answers again") {
		t.Fatalf("the recovery was not logged:\n%s", logs.String())
	}
	if got := allowed(t, codes, "trainee", 3); got != 2 {
		t.Fatalf("codes with Redis back: %d of 3 allowed, want 2", got)
	}
	if got := allowed(t, requests, "k", 4); got != 3 {
		t.Fatalf("requests with Redis back: %d of 4 allowed, want 3 (a fresh Redis window)", got)
	}
	if n, _ := client.Get(context.Background(), ratelimit.DefaultRedisPrefix+"k").Int(); n != 4 {
		t.Fatalf("Redis counted %d requests after it came back, want 4", n)
	}
}

// TestSharedBoundsAHangingRedis freezes Redis (it accepts and never
// answers): one count waits at most the call timeout, the calls after it
// go straight to memory, and /readyz's probe notices the thaw.
func TestSharedBoundsAHangingRedis(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { client.Close() })
	shared := ratelimit.NewShared(client, nil).WithRetry(200*time.Millisecond, time.Hour)
	requests := shared.Limiter(100, time.Minute, ratelimit.CountInMemory)
	allowed(t, requests, "k", 1) // a pooled connection, so the freeze is a hang, not a refused dial

	srv.Freeze()
	start := time.Now()
	allowed(t, requests, "k", 1)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the first count against a frozen Redis took %s, want about the 200 ms call timeout", took)
	}
	if !shared.Health().Down {
		t.Fatal("a frozen Redis is not reported down")
	}
	start = time.Now()
	allowed(t, requests, "k", 50)
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Fatalf("50 counts while Redis is known down took %s: they should not wait for it", took)
	}

	srv.Thaw()
	deadline := time.Now().Add(5 * time.Second)
	for shared.Probe(context.Background()).Down {
		if time.Now().After(deadline) {
			t.Fatal("the probe does not notice Redis answering again")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConnectSaysWhatIsWrong: each way a PERFORM_REDIS_URL fails at start
// gets its own sentence; a database number the server lacks is not told
// to start Redis.
func TestConnectSaysWhatIsWrong(t *testing.T) {
	srv := redistest.Start(t)
	cases := []struct {
		name, url string
		want      []string
		not       string
	}{
		{"database out of range", srv.URL(99), []string{"has no database 99", "redis://HOST:6379/0"}, "start it"},
		{"nothing listens", "redis://127.0.0.1:1/0", []string{"does not answer", "start it"}, ""},
		{"not a URL", "redis://:secretpw@host:notaport/0", []string{"PERFORM_REDIS_URL is not a Redis URL"}, "secretpw"},
		{"wrong scheme", "ftp://host/0", []string{"PERFORM_REDIS_URL is not a Redis URL"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			client, err := ratelimit.Connect(ctx, c.url)
			if err == nil {
				client.Close()
				t.Fatal("Connect succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if c.not != "" && strings.Contains(err.Error(), c.not) {
				t.Errorf("error %q says %q", err, c.not)
			}
		})
	}
	client, err := ratelimit.Connect(context.Background(), srv.URL(3))
	if err != nil {
		t.Fatalf("a good URL: %v", err)
	}
	client.Close()
}

// TestSharedUnderConcurrentCallsAsRedisDies: counts from many goroutines
// while Redis is killed under them get no error, and at most the limit in
// Redis plus the limit in memory is allowed.
func TestSharedUnderConcurrentCallsAsRedisDies(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { client.Close() })
	shared := ratelimit.NewShared(client, nil).WithRetry(200*time.Millisecond, 10*time.Millisecond)
	const limit = 40
	requests := shared.Limiter(limit, time.Minute, ratelimit.CountInMemory)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowedN := 0
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if g == 0 && i == 10 {
					srv.Kill()
				}
				d, err := requests.Allow(context.Background(), "k")
				if err != nil {
					t.Errorf("Allow: %v", err)
					return
				}
				if d.Allowed {
					mu.Lock()
					allowedN++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowedN > 2*limit || allowedN < limit {
		t.Fatalf("%d of 400 allowed, want from %d (one window) to %d (Redis's and memory's)", allowedN, limit, 2*limit)
	}
	if !shared.Health().Down {
		t.Fatal("Redis was killed but is not reported down")
	}
}

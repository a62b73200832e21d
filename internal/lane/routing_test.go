package lane_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/redis/go-redis/v9"
)

func TestRoutingErrors(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		_, key, _ := e.Studio("routing", "free")
		a := e.Fails(405, "METHOD_NOT_ALLOWED", e.Call(key, "PUT", "/tasks/tsk_x", nil))
		if allow := a.Header.Get("Allow"); !strings.Contains(allow, "GET") {
			t.Errorf("Allow = %q", allow)
		}
		e.Fails(404, "NOT_FOUND", e.Call(key, "GET", "/nothing-here", nil))
		e.Fails(400, "BAD_REQUEST", e.Call(key, "POST", "/tasks", `{"title":`))
		e.Fails(400, "BAD_REQUEST", e.Call(key, "POST", "/tasks", `["title"]`))
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	e := newToy(t, st, kit.Options{Limiter: ratelimit.NewMemory(3, time.Minute)})
	_, key, _ := e.Studio("limited", "free")
	for range 3 {
		e.OK(200, e.Call(key, "GET", "/tasks", nil))
	}
	a := e.Fails(429, "RATE_LIMITED", e.Call(key, "GET", "/tasks", nil))
	if ra := a.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After = %q", ra)
	}
	// Another key has its own window.
	_, key2, _ := e.Studio("limited2", "free")
	e.OK(200, e.Call(key2, "GET", "/tasks", nil))
}

// A failure inside Perform answers 500 INTERNAL with a sentence and the
// request id, and nothing about the cause.
func TestInternalErrorsHideTheirCause(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	e := newToy(t, st)
	_, key, _ := e.Studio("broken", "free")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	a := e.Fails(500, "INTERNAL", e.Call(key, "GET", "/tasks", nil))
	for _, leak := range []string{"sql", "closed", "database"} {
		if strings.Contains(strings.ToLower(a.Message()), leak) {
			t.Errorf("500 message leaks %q: %q", leak, a.Message())
		}
	}
	if !strings.Contains(a.Message(), "requestId") {
		t.Errorf("500 message should point at the request id: %q", a.Message())
	}
}

// limiters are the in-memory limiter and, when PERFORM_TEST_REDIS_URL is
// set, the Redis one (under a prefix of its own), each allowing max.
func limiters(t *testing.T, max int) map[string]ratelimit.Limiter {
	out := map[string]ratelimit.Limiter{"memory": ratelimit.NewMemory(max, time.Minute)}
	url := os.Getenv("PERFORM_TEST_REDIS_URL")
	if url == "" {
		t.Log("PERFORM_TEST_REDIS_URL is not set: the Redis limiter is not tested")
		return out
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	var b [8]byte
	_, _ = rand.Read(b[:])
	out["redis"] = ratelimit.NewRedis(c, max, time.Minute).WithPrefix("perform-test:" + hex.EncodeToString(b[:]) + ":")
	return out
}

// Inventing a fresh token per request buys no budget: missing and refused
// credentials count against the address, and a real key has its own budget.
func TestTokenRotationIsLimited(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	for name, lim := range limiters(t, 5) {
		t.Run(name, func(t *testing.T) {
			e := newToy(t, st, kit.Options{Limiter: lim})
			_, key, _ := e.Studio("rotate-"+name, "free")
			statuses := map[int]int{}
			for i := range 12 {
				token := auth.NewKey() // well formed, unknown: one key lookup each
				if i%4 == 3 {
					token = "" // no credential at all counts the same
				}
				a := e.Call(token, "GET", "/tasks", nil)
				statuses[a.Status]++
				if i >= 5 && (a.Status != http.StatusTooManyRequests || a.Code() != "RATE_LIMITED" || a.Header.Get("Retry-After") == "") {
					t.Fatalf("request %d with a made-up token: %d %s; want 429 once the address's budget is spent", i+1, a.Status, a.Raw)
				}
			}
			if statuses[401] != 5 || statuses[429] != 7 {
				t.Errorf("statuses %v; want 5 × 401 then 429", statuses)
			}
			// The studio's key is limited on its own credential, not the address.
			for range 5 {
				e.OK(200, e.Call(key, "GET", "/tasks", nil))
			}
			e.Fails(429, "RATE_LIMITED", e.Call(key, "GET", "/tasks", nil))
		})
	}
}

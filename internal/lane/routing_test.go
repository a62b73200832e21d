package lane_test

import (
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
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
	st := kit.OpenSQLite(t)
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
	st := kit.OpenSQLite(t)
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

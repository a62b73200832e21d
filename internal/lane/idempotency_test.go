package lane_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A write retried with its Idempotency-Key is answered from the first
// request's record: the same status and body, marked replayed, nothing
// written again, and the retry is still audited.
func TestIdempotentWriteIsReplayed(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, _ := e.Studio("idem-replay", "pro")
		body := map[string]any{"title": "Call Dana", "priority": 2}

		first := e.OK(201, e.Call(key, "POST", "/tasks", body, "Idempotency-Key", "retry-1"))
		if first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("the first answer is marked replayed: %v", first.Header)
		}
		again := e.OK(201, e.Call(key, "POST", "/tasks", body, "Idempotency-Key", "retry-1"))
		if again.Raw != first.Raw || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry answered %s (replayed %q); want the first answer %s, replayed", again.Raw, again.Header.Get("Idempotent-Replayed"), first.Raw)
		}
		if n := kit.CountTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks after a retried create; want 1", n)
		}
		// Without the key the same body is a new request.
		e.OK(201, e.Call(key, "POST", "/tasks", body))
		if n := kit.CountTasks(t, st, s.ID); n != 2 {
			t.Fatalf("%d tasks; want 2", n)
		}

		e.Audit.Flush()
		l, err := st.ListAudit(context.Background(), s.ID, store.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != 3 {
			t.Fatalf("%d audit rows; want one per request, the replay included: %+v", l.Total, l.Items)
		}
		for _, ev := range l.Items {
			if ev.Status != 201 || ev.Route != "POST /v1/automation/tasks" {
				t.Fatalf("audit row %+v", ev)
			}
		}
	})
}

// A write and the storing of its answer commit together: when the answer
// cannot be stored (the database refuses it here, as a process killed
// between the two would leave it), the write is undone too, so the retry
// writes once. Two commits in a row would leave the task and run it again.
func TestIdempotentWriteCommitsWithItsAnswer(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, _ := e.Studio("idem-atomic", "pro")
		body := map[string]any{"title": "Call Noa"}
		ctx := context.Background()
		refuse, allow := []string{
			`CREATE TRIGGER refuse_answers BEFORE UPDATE ON idempotency_keys WHEN NEW.status <> 0 BEGIN SELECT RAISE(ABORT, 'answers refused'); END`,
		}, []string{`DROP TRIGGER refuse_answers`}
		if st.Engine() == "postgres" {
			refuse = []string{
				`CREATE FUNCTION refuse_answers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'answers refused'; END $$`,
				`CREATE TRIGGER refuse_answers BEFORE UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.status <> 0) EXECUTE FUNCTION refuse_answers()`,
			}
			allow = []string{`DROP TRIGGER refuse_answers ON idempotency_keys`, `DROP FUNCTION refuse_answers()`}
		}
		for _, q := range refuse {
			if _, err := st.DB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		e.Fails(500, "INTERNAL", e.Call(key, "POST", "/tasks", body, "Idempotency-Key", "atomic-1"))
		if n := kit.CountTasks(t, st, s.ID); n != 0 {
			t.Fatalf("%d tasks after a write whose answer was not stored; want 0", n)
		}
		for _, q := range allow {
			if _, err := st.DB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		e.OK(201, e.Call(key, "POST", "/tasks", body, "Idempotency-Key", "atomic-1"))
		again := e.OK(201, e.Call(key, "POST", "/tasks", body, "Idempotency-Key", "atomic-1"))
		if n := kit.CountTasks(t, st, s.ID); n != 1 || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%d tasks after the retry (replayed %q); want 1", n, again.Header.Get("Idempotent-Replayed"))
		}
	})
}

// A key reused for a different request is refused and writes nothing; a
// validation refusal is kept and replayed like a success.
func TestIdempotencyKeyMisuse(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, _ := e.Studio("idem-misuse", "pro")
		e.OK(201, e.Call(key, "POST", "/tasks", map[string]any{"title": "One"}, "Idempotency-Key", "k1"))
		for _, other := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/tasks", map[string]any{"title": "Two"}},
			{"POST", "/tasks?x=1", map[string]any{"title": "One"}},
			{"POST", "/tags", map[string]any{"title": "One"}},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(key, other.method, other.path, other.body, "Idempotency-Key", "k1"))
			if !strings.Contains(a.Message(), "Idempotency-Key k1 was already used for a different request") || strings.Join(a.Fields(), ",") != "Idempotency-Key" {
				t.Fatalf("%s %s with a used key: %s", other.method, other.path, a.Raw)
			}
		}
		if n := kit.CountTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks; want 1", n)
		}

		bad := e.Fails(422, "VALIDATION", e.Call(key, "POST", "/tasks", map[string]any{}, "Idempotency-Key", "k-invalid"))
		again := e.Fails(422, "VALIDATION", e.Call(key, "POST", "/tasks", map[string]any{}, "Idempotency-Key", "k-invalid"))
		if again.Raw != bad.Raw || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("a 422 retried: %s (replayed %q); want %s replayed", again.Raw, again.Header.Get("Idempotent-Replayed"), bad.Raw)
		}
	})
}

// A malformed key is refused before anything runs, naming the header.
func TestIdempotencyKeyValidation(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, _ := e.Studio("idem-valid", "pro")
		for _, k := range []string{"", "has space", strings.Repeat("k", 256), "caf\u00e9", "tab\there"} {
			a := e.Fails(422, "VALIDATION", e.Call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", k))
			if !strings.HasPrefix(a.Message(), "Idempotency-Key must be 1 to 255 visible ASCII characters; got ") || strings.Join(a.Fields(), ",") != "Idempotency-Key" {
				t.Fatalf("key %q: %s", k, a.Raw)
			}
		}
		e.OK(201, e.Call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", strings.Repeat("~", 255)))
		if n := kit.CountTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks; want only the one with a valid key", n)
		}
		// Reads ignore the header, even a malformed one.
		for range 2 {
			a := e.OK(200, e.Call(key, "GET", "/tasks", nil, "Idempotency-Key", "not valid"))
			if a.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("a GET was replayed: %s", a.Raw)
			}
		}
	})
}

// Keys are per studio: the same key and body in two studios are two writes.
func TestIdempotencyKeysArePerStudio(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		a, keyA, _ := e.Studio("idem-a", "pro")
		b, keyB, _ := e.Studio("idem-b", "pro")
		body := map[string]any{"title": "Same"}
		var ta, tb domain.Task
		e.OK(201, e.Call(keyA, "POST", "/tasks", body, "Idempotency-Key", "shared")).Into(t, &ta)
		ansB := e.OK(201, e.Call(keyB, "POST", "/tasks", body, "Idempotency-Key", "shared"))
		ansB.Into(t, &tb)
		if ansB.Header.Get("Idempotent-Replayed") != "" || ta.ID == tb.ID {
			t.Fatalf("studio B's request was answered from studio A's: %s", ansB.Raw)
		}
		if kit.CountTasks(t, st, a.ID) != 1 || kit.CountTasks(t, st, b.ID) != 1 {
			t.Fatal("want one task in each studio")
		}
	})
}

// Concurrent identical requests with one key write once: each answer is
// the created task or the in-progress refusal.
func TestConcurrentIdempotentRequests(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, _ := e.Studio("idem-race", "pro")
		const n = 16
		answers := make([]kit.Answer, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				answers[i], errs[i] = e.Try(key, "POST", "/tasks", map[string]any{"title": "Once"}, "Idempotency-Key", "race")
			})
		}
		wg.Wait()
		var created []string
		for i, a := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			switch {
			case a.Status == 201:
				var task domain.Task
				a.Into(t, &task)
				created = append(created, task.ID)
			case a.Status == 409 && a.Code() == lane.CodeIdempotencyInProgress && a.Header.Get("Retry-After") == "2":
			default:
				t.Fatalf("answer %d: %s", a.Status, a.Raw)
			}
		}
		if len(created) == 0 {
			t.Fatal("no request created the task")
		}
		for _, id := range created {
			if id != created[0] {
				t.Fatalf("answers name different tasks: %v", created)
			}
		}
		if got := kit.CountTasks(t, st, s.ID); got != 1 {
			t.Fatalf("%d tasks after %d concurrent requests with one key; want 1", got, n)
		}
	})
}

// A claim whose request is still running is refused with 409 until it is a
// minute old; then it is taken to have died and the retry runs.
func TestStaleIdempotencyClaimIsTakenOver(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		var mu sync.Mutex
		now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		aw := audit.NewWriter(st, audit.Options{})
		srv := httptest.NewServer(lane.New(lane.Options{Store: st, Audit: aw, Now: clock, Areas: toyAreas()}))
		t.Cleanup(func() { srv.Close(); aw.Close() })
		e := &kit.Env{T: t, St: st, Srv: srv, Audit: aw}
		s, key, _ := e.Studio("idem-stale", "pro")

		// A process claimed the key and died before answering.
		if _, started, err := st.Studio(s.ID).BeginIdempotent(context.Background(), "dead", "whatever", now, time.Minute, store.IdempotencyTTL); err != nil || !started {
			t.Fatalf("claim: %v, %v", started, err)
		}
		mu.Lock()
		now = now.Add(59 * time.Second)
		mu.Unlock()
		// Its own code, and when to retry: the header and the envelope.
		a := e.Fails(409, lane.CodeIdempotencyInProgress, e.Call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", "dead"))
		if a.Message() != "A request with Idempotency-Key dead is still being processed; retry in 2 seconds (Retry-After), under the same key." ||
			a.Header.Get("Retry-After") != "2" || !strings.Contains(a.Raw, `"retryAfterSeconds":2`) {
			t.Fatalf("in progress: Retry-After %q, %s", a.Header.Get("Retry-After"), a.Raw)
		}
		mu.Lock()
		now = now.Add(2 * time.Second)
		mu.Unlock()
		e.OK(201, e.Call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", "dead"))
		if n := kit.CountTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks; want 1", n)
		}
	})
}

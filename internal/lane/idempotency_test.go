package lane_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

func countTasks(t *testing.T, st store.Store, studioID string) int {
	t.Helper()
	l, err := st.Studio(studioID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Total
}

// A write retried with its Idempotency-Key is answered from the first
// request's record: the same status and body, marked replayed, nothing
// written again, and the retry is still audited.
func TestIdempotentWriteIsReplayed(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("idem-replay", "pro")
		body := map[string]any{"title": "Call Dana", "priority": 2}

		first := e.ok(201, e.call(key, "POST", "/tasks", body, "Idempotency-Key", "retry-1"))
		if first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("the first answer is marked replayed: %v", first.Header)
		}
		again := e.ok(201, e.call(key, "POST", "/tasks", body, "Idempotency-Key", "retry-1"))
		if again.Raw != first.Raw || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry answered %s (replayed %q); want the first answer %s, replayed", again.Raw, again.Header.Get("Idempotent-Replayed"), first.Raw)
		}
		if n := countTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks after a retried create; want 1", n)
		}
		// Without the key the same body is a new request.
		e.ok(201, e.call(key, "POST", "/tasks", body))
		if n := countTasks(t, st, s.ID); n != 2 {
			t.Fatalf("%d tasks; want 2", n)
		}

		e.audit.Flush()
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
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("idem-atomic", "pro")
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
		e.fails(500, "INTERNAL", e.call(key, "POST", "/tasks", body, "Idempotency-Key", "atomic-1"))
		if n := countTasks(t, st, s.ID); n != 0 {
			t.Fatalf("%d tasks after a write whose answer was not stored; want 0", n)
		}
		for _, q := range allow {
			if _, err := st.DB().ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		e.ok(201, e.call(key, "POST", "/tasks", body, "Idempotency-Key", "atomic-1"))
		again := e.ok(201, e.call(key, "POST", "/tasks", body, "Idempotency-Key", "atomic-1"))
		if n := countTasks(t, st, s.ID); n != 1 || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("%d tasks after the retry (replayed %q); want 1", n, again.Header.Get("Idempotent-Replayed"))
		}
	})
}

// A key reused for a different request is refused and writes nothing; a
// validation refusal is kept and replayed like a success.
func TestIdempotencyKeyMisuse(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("idem-misuse", "pro")
		e.ok(201, e.call(key, "POST", "/tasks", map[string]any{"title": "One"}, "Idempotency-Key", "k1"))
		for _, other := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/tasks", map[string]any{"title": "Two"}},
			{"POST", "/tasks?x=1", map[string]any{"title": "One"}},
			{"POST", "/tags", map[string]any{"title": "One"}},
		} {
			a := e.fails(422, "VALIDATION", e.call(key, other.method, other.path, other.body, "Idempotency-Key", "k1"))
			if !strings.Contains(a.message(), "Idempotency-Key k1 was already used for a different request") || strings.Join(a.fields(), ",") != "Idempotency-Key" {
				t.Fatalf("%s %s with a used key: %s", other.method, other.path, a.Raw)
			}
		}
		if n := countTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks; want 1", n)
		}

		bad := e.fails(422, "VALIDATION", e.call(key, "POST", "/tasks", map[string]any{}, "Idempotency-Key", "k-invalid"))
		again := e.fails(422, "VALIDATION", e.call(key, "POST", "/tasks", map[string]any{}, "Idempotency-Key", "k-invalid"))
		if again.Raw != bad.Raw || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("a 422 retried: %s (replayed %q); want %s replayed", again.Raw, again.Header.Get("Idempotent-Replayed"), bad.Raw)
		}
	})
}

// A malformed key is refused before anything runs, naming the header.
func TestIdempotencyKeyValidation(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("idem-valid", "pro")
		for _, k := range []string{"", "has space", strings.Repeat("k", 256), "caf\u00e9", "tab\there"} {
			a := e.fails(422, "VALIDATION", e.call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", k))
			if !strings.HasPrefix(a.message(), "Idempotency-Key must be 1 to 255 visible ASCII characters; got ") || strings.Join(a.fields(), ",") != "Idempotency-Key" {
				t.Fatalf("key %q: %s", k, a.Raw)
			}
		}
		e.ok(201, e.call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", strings.Repeat("~", 255)))
		if n := countTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks; want only the one with a valid key", n)
		}
		// Reads ignore the header, even a malformed one.
		for range 2 {
			a := e.ok(200, e.call(key, "GET", "/tasks", nil, "Idempotency-Key", "not valid"))
			if a.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("a GET was replayed: %s", a.Raw)
			}
		}
	})
}

// Keys are per studio: the same key and body in two studios are two writes.
func TestIdempotencyKeysArePerStudio(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		a, keyA, _ := e.studio("idem-a", "pro")
		b, keyB, _ := e.studio("idem-b", "pro")
		body := map[string]any{"title": "Same"}
		var ta, tb domain.Task
		e.ok(201, e.call(keyA, "POST", "/tasks", body, "Idempotency-Key", "shared")).into(t, &ta)
		ansB := e.ok(201, e.call(keyB, "POST", "/tasks", body, "Idempotency-Key", "shared"))
		ansB.into(t, &tb)
		if ansB.Header.Get("Idempotent-Replayed") != "" || ta.ID == tb.ID {
			t.Fatalf("studio B's request was answered from studio A's: %s", ansB.Raw)
		}
		if countTasks(t, st, a.ID) != 1 || countTasks(t, st, b.ID) != 1 {
			t.Fatal("want one task in each studio")
		}
	})
}

// Concurrent identical requests with one key write once: each answer is
// the created task or the in-progress refusal.
func TestConcurrentIdempotentRequests(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		s, key, _ := e.studio("idem-race", "pro")
		const n = 16
		answers := make([]answer, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				answers[i], errs[i] = e.try(key, "POST", "/tasks", map[string]any{"title": "Once"}, "Idempotency-Key", "race")
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
				a.into(t, &task)
				created = append(created, task.ID)
			case a.Status == 409 && a.code() == lane.CodeIdempotencyInProgress && a.Header.Get("Retry-After") == "2":
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
		if got := countTasks(t, st, s.ID); got != 1 {
			t.Fatalf("%d tasks after %d concurrent requests with one key; want 1", got, n)
		}
	})
}

// A claim whose request is still running is refused with 409 until it is a
// minute old; then it is taken to have died and the retry runs.
func TestStaleIdempotencyClaimIsTakenOver(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		var mu sync.Mutex
		now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		aw := audit.NewWriter(st, audit.Options{})
		srv := httptest.NewServer(areas.Lane(lane.Options{Store: st, Audit: aw, Now: clock}))
		t.Cleanup(func() { srv.Close(); aw.Close() })
		e := &env{t: t, st: st, srv: srv, audit: aw}
		s, key, _ := e.studio("idem-stale", "pro")

		// A process claimed the key and died before answering.
		if _, started, err := st.Studio(s.ID).BeginIdempotent(context.Background(), "dead", "whatever", now, time.Minute, store.IdempotencyTTL); err != nil || !started {
			t.Fatalf("claim: %v, %v", started, err)
		}
		mu.Lock()
		now = now.Add(59 * time.Second)
		mu.Unlock()
		// Its own code, and when to retry: the header and the envelope.
		a := e.fails(409, lane.CodeIdempotencyInProgress, e.call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", "dead"))
		if a.message() != "A request with Idempotency-Key dead is still being processed; retry in 2 seconds (Retry-After), under the same key." ||
			a.Header.Get("Retry-After") != "2" || !strings.Contains(a.Raw, `"retryAfterSeconds":2`) {
			t.Fatalf("in progress: Retry-After %q, %s", a.Header.Get("Retry-After"), a.Raw)
		}
		mu.Lock()
		now = now.Add(2 * time.Second)
		mu.Unlock()
		e.ok(201, e.call(key, "POST", "/tasks", map[string]any{"title": "x"}, "Idempotency-Key", "dead"))
		if n := countTasks(t, st, s.ID); n != 1 {
			t.Fatalf("%d tasks; want 1", n)
		}
	})
}

// The OpenAPI document describes the header on writes only.
func TestOpenAPIDocumentsIdempotencyKey(t *testing.T) {
	doc := openAPIDoc(t)
	writes := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			has := false
			for _, p := range op.Parameters {
				if p.Name == "Idempotency-Key" && p.In == "header" {
					has = !p.Required && strings.Contains(p.Description, "24 hours")
				}
			}
			if write := method != "get"; write != has {
				t.Errorf("%s %s: Idempotency-Key documented %v", method, path, has)
			} else if write {
				writes++
			}
		}
	}
	if writes == 0 {
		t.Fatal("no write operations in the document")
	}
}

type openAPIParam struct {
	Name        string `json:"name"`
	In          string `json:"in"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
}

func openAPIDoc(t *testing.T) (doc struct {
	Paths map[string]map[string]struct {
		Parameters []openAPIParam `json:"parameters"`
	} `json:"paths"`
}) {
	t.Helper()
	if err := json.Unmarshal(areas.Lane(lane.Options{}).OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

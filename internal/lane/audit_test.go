package lane_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// Every request with a known studio leaves an audit row: route pattern,
// resource, status, credential, request id and the caller's source.
func TestAuditRowsPerRequest(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := newToy(t, st)
		s, key, keyID := e.Studio("audited", "pro")

		var created domain.Task
		okA := e.OK(201, e.CallAs("mcp", key, "POST", "/tasks", map[string]any{"title": "Call A"}))
		okA.Into(t, &created)
		missing := e.Fails(404, "NOT_FOUND", e.CallAs("agent", key, "GET", "/tasks/tsk_00000000000000000000000000", nil))
		invalid := e.Fails(422, "VALIDATION", e.Call(key, "GET", "/tasks?limit=0", nil))
		e.Fails(401, "UNAUTHORIZED", e.Call("", "GET", "/tasks", nil)) // no studio: not audited
		e.Audit.Flush()

		l, err := st.ListAudit(context.Background(), s.ID, store.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != 3 {
			t.Fatalf("audit rows: %d, want 3: %+v", l.Total, l.Items)
		}
		byReq := map[string]domain.AuditEvent{}
		for _, ev := range l.Items {
			byReq[ev.RequestID] = ev
			if ev.CredentialID != keyID || ev.StudioID != s.ID || ev.DurationMs <= 0 {
				t.Errorf("event: %+v", ev)
			}
		}
		want := []struct {
			req, route, resource, source string
			status                       int
		}{
			{okA.RequestID, "POST /v1/automation/tasks", created.ID, "mcp", 201},
			{missing.RequestID, "GET /v1/automation/tasks/{id}", "tsk_00000000000000000000000000", "agent", 404},
			{invalid.RequestID, "GET /v1/automation/tasks", "", "api", 422},
		}
		for _, w := range want {
			ev, ok := byReq[w.req]
			if !ok {
				t.Errorf("no audit row for request %s", w.req)
				continue
			}
			if ev.Route != w.route || ev.ResourceID != w.resource || ev.Source != w.source || ev.Status != w.status || ev.Method != w.route[:len(ev.Method)] {
				t.Errorf("audit row %+v, want %+v", ev, w)
			}
		}
	})
}

// lastUsedAt is written at most once a minute per key.
func TestKeyLastUsedAtAtMostOncePerMinute(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	l := lane.New(lane.Options{Store: st, Now: clock, Areas: toyAreas()})
	srv := httptest.NewServer(l)
	defer srv.Close()
	e := &kit.Env{T: t, St: st, Lane: l, Srv: srv}
	s, key, keyID := e.Studio("touch", "free")
	lastUsed := func() time.Time {
		k, err := st.FindAPIKey(context.Background(), s.ID, keyID)
		if err != nil || k.LastUsedAt == nil {
			t.Fatalf("key %+v %v", k, err)
		}
		return k.LastUsedAt.UTC()
	}
	e.OK(200, e.Call(key, "GET", "/tasks", nil))
	first := lastUsed()
	if !first.Equal(now) {
		t.Fatalf("lastUsedAt %v, want %v", first, now)
	}
	advance(30 * time.Second)
	e.OK(200, e.Call(key, "GET", "/tasks", nil))
	if got := lastUsed(); !got.Equal(first) {
		t.Errorf("written again within the minute: %v", got)
	}
	advance(31 * time.Second)
	e.OK(200, e.Call(key, "GET", "/tasks", nil))
	if got := lastUsed(); !got.Equal(first.Add(61 * time.Second)) {
		t.Errorf("not written after a minute: %v", got)
	}
}

// A write's audit row is in the database when its answer arrives: the lane
// holds the answer until the row is written, so a crash right after cannot
// lose the record of an acknowledged write. Reads are batched (the writer
// here would keep them for an hour) and may trail their answers.
func TestWriteAuditRowIsWrittenBeforeTheAnswer(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		aw := audit.NewWriter(st, audit.Options{FlushInterval: time.Hour})
		l := lane.New(lane.Options{Store: st, Audit: aw, Areas: toyAreas()})
		srv := httptest.NewServer(l)
		t.Cleanup(func() { srv.Close(); aw.Close() })
		e := &kit.Env{T: t, St: st, Lane: l, Srv: srv, Audit: aw}
		s, key, _ := e.Studio("durable", "pro")

		var created domain.Task
		e.OK(201, e.Call(key, "POST", "/tasks", map[string]any{"title": "Call B"})).Into(t, &created)
		e.OK(200, e.Call(key, "GET", "/tasks/"+created.ID, nil))
		l1, err := st.ListAudit(context.Background(), s.ID, store.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if l1.Total != 1 || l1.Items[0].Method != "POST" || l1.Items[0].Status != 201 || l1.Items[0].ResourceID != "" && l1.Items[0].ResourceID != created.ID {
			t.Fatalf("right after the answers: %d audit rows %+v; want the write's row alone (the read is batched)", l1.Total, l1.Items)
		}
		aw.Flush()
		if l2, err := st.ListAudit(context.Background(), s.ID, store.Page{Limit: 50}); err != nil || l2.Total != 2 {
			t.Fatalf("after a flush: %d rows (%v); want the read's row too", l2.Total, err)
		}
	})
}

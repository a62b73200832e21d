package audit_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func newStudio(t *testing.T, st store.Store) string {
	t.Helper()
	s := domain.Studio{Name: "Audit", Slug: "audit-" + ids.New(ids.Request)[20:]} // the random part: two studios in one millisecond differ
	if err := st.CreateStudio(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func event(studioID string, i int) domain.AuditEvent {
	return domain.AuditEvent{
		ID: ids.New(ids.Audit), StudioID: studioID, CredentialID: "key_x", Method: "GET",
		Route: "GET /v1/automation/validate", Status: 200, DurationMs: 0.5,
		RequestID: fmt.Sprintf("req_%d", i), Source: domain.SourceMCP, At: time.Now().UTC(),
	}
}

func count(t *testing.T, st store.Store, studioID string) int {
	t.Helper()
	l, err := st.ListAudit(context.Background(), studioID, store.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return l.Total
}

func TestWriterBatchesAndCloseFlushes(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			studio := newStudio(t, st)
			// A long interval: only batch size and Close may write.
			w := audit.NewWriter(st, audit.Options{FlushInterval: time.Hour, BatchSize: 100})
			for i := range 250 {
				w.Record(event(studio, i))
			}
			deadline := time.Now().Add(5 * time.Second)
			for count(t, st, studio) < 200 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := count(t, st, studio); n != 200 {
				t.Fatalf("after two full batches: %d rows, want 200", n)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n := count(t, st, studio); n != 250 {
				t.Fatalf("after Close: %d rows, want 250", n)
			}
			w.Record(event(studio, 999)) // after Close: dropped, counted, no panic
			if w.Dropped() != 1 || w.Written() != 250 {
				t.Errorf("dropped %d written %d", w.Dropped(), w.Written())
			}
			// The row is what was recorded.
			l, err := st.ListAudit(context.Background(), studio, store.Page{Limit: 1})
			if err != nil || l.Items[0].Source != domain.SourceMCP || l.Items[0].Route != "GET /v1/automation/validate" {
				t.Errorf("stored event: %+v %v", l.Items, err)
			}
		})
	}
}

func TestWriterFlushesOnInterval(t *testing.T) {
	st := storetest.OpenSQLite(t)
	studio := newStudio(t, st)
	w := audit.NewWriter(st, audit.Options{FlushInterval: 20 * time.Millisecond})
	defer w.Close()
	w.Record(event(studio, 1))
	deadline := time.Now().Add(5 * time.Second)
	for count(t, st, studio) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("one event was never flushed by the interval")
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Record(event(studio, 2))
	w.Flush()
	if n := count(t, st, studio); n != 2 {
		t.Errorf("after Flush: %d rows", n)
	}
}

// gated holds inserts until released, standing in for a database that has
// fallen behind; the rows still go to the real store.
type gated struct {
	store.Store
	gate chan struct{}
}

func (g *gated) InsertAudit(ctx context.Context, events []domain.AuditEvent) error {
	<-g.gate
	return g.Store.InsertAudit(ctx, events)
}

func TestWriterDropsAfterBlockingWhenFull(t *testing.T) {
	st := storetest.OpenSQLite(t)
	studio := newStudio(t, st)
	g := &gated{Store: st, gate: make(chan struct{})}
	w := audit.NewWriter(g, audit.Options{BufferSize: 4, BatchSize: 1, BlockTimeout: 10 * time.Millisecond, FlushInterval: time.Hour})
	// One event is taken by the blocked insert, four fill the buffer, the rest wait and are dropped.
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); w.Record(event(studio, i)) }()
	}
	wg.Wait()
	if d := w.Dropped(); d < 1 || d > 5 {
		t.Errorf("dropped %d, want the overflow (1..5)", d)
	}
	close(g.gate)
	w.Close()
	if got := int64(count(t, st, studio)); got != 10-w.Dropped() {
		t.Errorf("stored %d, dropped %d of 10", got, w.Dropped())
	}
}

// lostInsertFailed reads perform_audit_events_lost_total{reason="insert_failed"}.
func lostInsertFailed(t *testing.T) float64 {
	t.Helper()
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "perform_audit_events_lost_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == "insert_failed" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// One bad event never costs the others of its batch: a path id with a NUL
// and invalid UTF-8 (which Postgres refuses as sent) is stored escaped, and
// an event the store refuses outright (its id is taken) is the only one
// lost, counted and logged, while every other studio's events of the flush
// are written.
func TestWriterNeverDropsABatchForOneEvent(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			sender, other := newStudio(t, st), newStudio(t, st)
			taken := event(other, 0)
			if err := st.InsertAudit(ctx, []domain.AuditEvent{taken}); err != nil {
				t.Fatal(err)
			}
			lostBefore := lostInsertFailed(t)
			w := audit.NewWriter(st, audit.Options{FlushInterval: time.Hour, BatchSize: 100})
			for i := range 10 {
				w.Record(event(other, i+1))
			}
			bad := event(sender, 99)
			bad.Method, bad.Route, bad.ResourceID = "GET", "GET /v1/automation/trainees/trn_\x00\xff", "trn_\x00\xff\x1b[2J"
			w.Record(bad)
			long := event(sender, 98)
			long.Route = "GET /" + strings.Repeat("x", 60_000)
			w.Record(long)
			dup := event(other, 100)
			dup.ID = taken.ID
			w.Record(dup)
			for i := range 10 {
				w.Record(event(other, i+11))
			}
			w.Flush()
			if n := count(t, st, other); n != 21 {
				t.Errorf("the other studio has %d audit rows, want 21 (1 before, 20 of the flush)", n)
			}
			l, err := st.ListAudit(ctx, sender, store.Page{Limit: 5})
			if err != nil || len(l.Items) != 2 {
				t.Fatalf("the sender's rows: %+v, %v", l.Items, err)
			}
			byReq := map[string]domain.AuditEvent{l.Items[0].RequestID: l.Items[0], l.Items[1].RequestID: l.Items[1]}
			if got := byReq["req_98"].Route; len(got) > 600 || !strings.HasPrefix(got, "GET /xxx") {
				t.Errorf("a 60,000-byte route is stored as %d bytes", len(got))
			}
			if got := byReq["req_99"]; got.ResourceID != `trn_\x00\xff\x1b[2J` || got.Route != `GET /v1/automation/trainees/trn_\x00\xff` {
				t.Errorf("stored resource %q route %q, want them escaped", got.ResourceID, got.Route)
			}
			if w.Written() != 22 || w.Dropped() != 1 {
				t.Errorf("written %d dropped %d, want 22 and 1 (the taken id)", w.Written(), w.Dropped())
			}
			if d := lostInsertFailed(t) - lostBefore; d != 1 {
				t.Errorf("perform_audit_events_lost_total{reason=insert_failed} rose by %v, want 1", d)
			}
			w.Close()
		})
	}
}

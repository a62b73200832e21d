package audit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

func newStudio(t *testing.T, st store.Store) string {
	t.Helper()
	s := domain.Studio{Name: "Audit", Slug: "audit-" + ids.New(ids.Request)[4:14]}
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

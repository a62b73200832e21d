package lane_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// slowArea is one write that takes as long as the test says: it counts its
// runs, tells the test it began, waits to be released, and creates a task.
type slowArea struct {
	runs     atomic.Int32
	began    chan struct{}
	released chan struct{}
}

type slowInput struct {
	Title string `json:"title" jsonschema:"The task's title." lane:"minLength=1,maxLength=50"`
}

func (a *slowArea) Routes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/slow-tasks", "A task written as slowly as the test says.", func(c *lane.Call, in *slowInput) (domain.Task, error) {
		a.runs.Add(1)
		a.began <- struct{}{}
		<-a.released
		task := domain.Task{Title: in.Title, Priority: 2, CreatedAt: c.Now(), UpdatedAt: c.Now()}
		return task, c.Studio().CreateTask(c.Ctx, &task)
	}, lane.Created())
}

// A write slower than the Idempotency-Key's lease keeps its key for as
// long as it runs: its retry, minutes later on the lane's clock, is told
// the first is still in progress (or, on SQLite, where the first write
// holds the one writer, waits for it and gets its answer), and the write
// runs once.
func TestSlowWriteHoldsItsIdempotencyKey(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		var mu sync.Mutex
		now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		slow := &slowArea{began: make(chan struct{}, 2), released: make(chan struct{})}
		var release sync.Once
		aw := audit.NewWriter(st, audit.Options{})
		lx := lane.New(lane.Options{Store: st, Audit: aw, Now: clock, IdempotencyRenewEvery: 10 * time.Millisecond, Areas: []lane.Area{slow}})
		srv := httptest.NewServer(lx)
		t.Cleanup(func() { srv.Close(); aw.Close() })
		// Run first (cleanups run last first): a failed test frees the
		// handlers, or closing the server would wait for them.
		t.Cleanup(func() { release.Do(func() { close(slow.released) }) })
		e := &kit.Env{T: t, St: st, Srv: srv, Audit: aw}
		s, key, _ := e.Studio("idem-slow", "pro")
		send := func() kit.Answer {
			a, err := e.Try(key, "POST", "/slow-tasks", map[string]any{"title": "slow"}, "Idempotency-Key", "slow-1")
			if err != nil {
				t.Error(err)
			}
			return a
		}

		first := make(chan kit.Answer, 1)
		go func() { first <- send() }()
		<-slow.began
		// Three minutes pass on the lane's clock while the write runs; the
		// request renews its hold meanwhile.
		mu.Lock()
		now = now.Add(3 * time.Minute)
		mu.Unlock()
		deadline := time.Now().Add(10 * time.Second)
		for st.Engine() == store.EnginePostgres {
			var until int64
			if err := st.DB().QueryRowContext(context.Background(), st.Rebind(`SELECT held_until FROM idempotency_keys WHERE studio_id = ?`), s.ID).Scan(&until); err != nil {
				t.Fatal(err)
			}
			if until > clock().UnixMilli() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the running write's hold was not renewed: held until %d, the clock reads %d", until, clock().UnixMilli())
			}
			time.Sleep(5 * time.Millisecond)
		}
		retry := make(chan kit.Answer, 1)
		go func() { retry <- send() }()
		select {
		case <-slow.began:
			t.Errorf("the retry ran the write a second time while the first still ran")
		case a := <-retry:
			if a.Status != 409 {
				t.Errorf("the retry while the write runs: %d %s; want 409 %s", a.Status, a.Raw, lane.CodeIdempotencyInProgress)
			}
			retry <- a
		case <-time.After(300 * time.Millisecond): // SQLite: the retry waits for the writer
		}
		release.Do(func() { close(slow.released) })
		got := <-first
		if got.Status != 201 {
			t.Fatalf("the slow write: %d %s", got.Status, got.Raw)
		}
		select {
		case a := <-retry:
			if a.Status != 409 && (a.Status != 201 || a.Header.Get(lane.ReplayedHeader) != "true") {
				t.Errorf("the retry: %d %s; want 409 or the first answer replayed", a.Status, a.Raw)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the retry did not answer")
		}
		if again := send(); again.Status != 201 || again.Header.Get(lane.ReplayedHeader) != "true" {
			t.Errorf("a retry after the write: %d %s; want its answer replayed", again.Status, again.Raw)
		}
		if n := slow.runs.Load(); n != 1 || kit.CountTasks(t, st, s.ID) != 1 {
			t.Fatalf("the write ran %d times and left %d tasks; want once", n, kit.CountTasks(t, st, s.ID))
		}
	})
}

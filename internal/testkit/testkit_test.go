package testkit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/slogtest"
	"time"
)

// The handler behind Logs keeps slog's rules (testing/slogtest): attrs,
// groups, empty groups and keys dropped, values resolved.
func TestLogsHandlerConforms(t *testing.T) {
	var logs *Logs
	slogtest.Run(t, func(*testing.T) slog.Handler {
		logs = NewLogs()
		return logs.Logger().Handler()
	}, func(*testing.T) map[string]any {
		recs := logs.Records()
		if len(recs) != 1 {
			t.Fatalf("%d records; want 1", len(recs))
		}
		r := recs[0]
		m := map[string]any{slog.LevelKey: r.Level, slog.MessageKey: r.Message}
		if !r.Time.IsZero() {
			m[slog.TimeKey] = r.Time
		}
		for k, v := range r.Attrs { // "g.h.a" back into nested maps
			parts := strings.Split(k, ".")
			at := m
			for _, p := range parts[:len(parts)-1] {
				next, ok := at[p].(map[string]any)
				if !ok {
					next = map[string]any{}
					at[p] = next
				}
				at = next
			}
			at[parts[len(parts)-1]] = v
		}
		return m
	})
}

func TestLogsLevelAndFind(t *testing.T) {
	logs := NewLogs()
	logs.Level = slog.LevelInfo
	log := logs.Logger().With("req", "r1").WithGroup("db")
	log.Debug("hidden")
	log.Info("opened", "engine", "sqlite")
	log.Warn("slow", slog.Group("q", "ms", 250))
	if got := logs.Records(); len(got) != 2 {
		t.Fatalf("records = %v; want the info and the warning only", got)
	}
	slow := logs.Find(Message("slow"))
	if len(slow) != 1 || slow[0].Level != slog.LevelWarn || slow[0].Attr("req") != "r1" || slow[0].Attr("db.q.ms") != "250" {
		t.Fatalf("Find(slow) = %v", slow)
	}
	if got := logs.Find(Message("opened"))[0].Attr("db.engine"); got != "sqlite" {
		t.Fatalf("db.engine = %q", got)
	}
	if got := slow[0].Attr("missing"); got != "" {
		t.Fatalf("a missing attribute reads %q", got)
	}
}

// Wait returns a record logged before or after it is called, and gives up
// when its context ends.
func TestLogsWait(t *testing.T) {
	logs := NewLogs()
	log := logs.Logger()
	log.Info("early", "n", 1)
	ctx := context.Background()
	if r, err := logs.Wait(ctx, Message("early")); err != nil || r.Attr("n") != "1" {
		t.Fatalf("Wait for a past record = %v, %v", r, err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 50 {
			log.Info("tick", "i", i)
			time.Sleep(time.Millisecond)
		}
	}()
	r, err := logs.Wait(ctx, func(r Record) bool { return r.Message == "tick" && r.Attr("i") == "42" })
	if err != nil || r.Attr("i") != "42" {
		t.Fatalf("Wait for a later record = %v, %v", r, err)
	}
	wg.Wait()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := logs.Wait(short, Message("never")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait for a record never logged: %v", err)
	}
}

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	for range 3 {
		if !c.Now().Equal(t0) {
			t.Fatal("the clock moved by itself")
		}
	}
	if got := c.Advance(90 * time.Second); !got.Equal(t0.Add(90*time.Second)) || !c.Now().Equal(got) {
		t.Fatalf("Advance = %v, Now = %v", got, c.Now())
	}
	c.Set(t0)
	if !c.Now().Equal(t0) {
		t.Fatalf("Set: %v", c.Now())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); c.Advance(time.Second); _ = c.Now() }()
	}
	wg.Wait()
	if got := c.Now().Sub(t0); got != 8*time.Second {
		t.Fatalf("8 concurrent seconds moved the clock %v", got)
	}
}

func TestStepClock(t *testing.T) {
	now := StepClock()
	prev := now()
	for range 1000 {
		next := now()
		if !next.After(prev) || next.Sub(prev) < time.Millisecond || next.Before(time.Now().Add(-time.Second)) {
			t.Fatalf("%v after %v", next, prev)
		}
		prev = next
	}
}

func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); fmt.Fprintf(&b, "line %d\n", i) }()
	}
	wg.Wait()
	if got := strings.Count(b.String(), "\n"); got != 10 {
		t.Fatalf("%d lines in %q", got, b.String())
	}
}

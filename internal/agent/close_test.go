package agent

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

// Close stops the intake's writers and waits for them: a message accepted
// (200) before it is stored, one arriving during or after it is refused
// (503, so the sender retries), none is lost and none waits forever.
func TestCloseStopsTheIntake(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		logs := testkit.NewLogs()
		logs.Level = slog.LevelWarn
		h := newHarness(t, st, func(o *Options) {
			o.Debounce = 3600e9 // replies stay scheduled
			o.Logger = logs.Logger()
		})
		post := func(i int) webhookResult {
			body, _ := json.Marshal(Inbound{Text: fmt.Sprintf("hello %d", i), Phone: fmt.Sprintf("97250200%04d", i), ConversationID: "c", SenderName: "Dana"})
			return h.post(testToken, string(body))
		}
		if r := post(0); r.Status != 200 || r.accepted() != 1 {
			t.Fatalf("first message: %d %v", r.Status, r.Body)
		}
		if n := h.agent.intake.running.Load(); n != int32(h.agent.intake.writers) {
			t.Fatalf("%d intake writers running; want %d", n, h.agent.intake.writers)
		}

		const n = 24
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := 1; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = post(i).Status
			}()
			if i == n/2 {
				closed := make(chan error, 1)
				go func() { closed <- h.agent.Close() }()
				select {
				case err := <-closed:
					if err != nil {
						t.Errorf("Close: %v", err)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("Close did not return")
				}
			}
		}
		wg.Wait()
		if n := h.agent.intake.running.Load(); n != 0 {
			t.Fatalf("%d intake writers still running after Close", n)
		}
		accepted := 1
		for i, s := range statuses[1:] {
			switch s {
			case 200:
				accepted++
			case 503:
			default:
				t.Errorf("message %d: status %d; want 200 or 503", i+1, s)
			}
		}
		if got := pendingCount(t, st); got != accepted {
			t.Fatalf("%d messages stored; %d were accepted", got, accepted)
		}
		if r := post(n); r.Status != 503 {
			t.Fatalf("a message after Close: %d %v; want 503", r.Status, r.Body)
		}
		if err := h.agent.Close(); err != nil {
			t.Fatalf("Close again: %v", err)
		}
		// A refusal while shutting down is expected: a warning, not an error.
		logs.WaitFor(t, time.Second, "of the refusal", func(r testkit.Record) bool {
			return r.Level == slog.LevelWarn && strings.Contains(r.Message, "shutting down")
		})
		if errs := logs.Find(func(r testkit.Record) bool { return r.Level >= slog.LevelError }); len(errs) != 0 {
			t.Fatalf("errors logged: %v", errs)
		}
		if got := pendingCount(t, st); got != accepted {
			t.Fatalf("%d messages stored after Close; want still %d", got, accepted)
		}
	})
}

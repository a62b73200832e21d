package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/testkit"
)

// A refund gives back one counted request in the open window, never takes
// the count below zero, and gives back nothing once the window has ended.
func TestRefundGivesBackOneRequest(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	limiters := map[string]func(t *testing.T) Limiter{
		"memory": func(t *testing.T) Limiter { return NewMemory(2, time.Minute).WithClock(clk.Now) },
		"redis": func(t *testing.T) Limiter {
			return NewRedis(testRedis(t), 2, time.Minute).WithPrefix(randomPrefix(t))
		},
		"shared": func(t *testing.T) Limiter {
			return NewShared(testRedis(t), nil).WithPrefix(randomPrefix(t)).Limiter(2, time.Minute, CountInMemory)
		},
	}
	for name, build := range limiters {
		t.Run(name, func(t *testing.T) {
			l := build(t)
			ctx := context.Background()
			if err := Refund(ctx, l, "k"); err != nil { // nothing counted: nothing to give back
				t.Fatal(err)
			}
			allowN(t, l, "k", 2)
			if err := Refund(ctx, l, "k"); err != nil {
				t.Fatal(err)
			}
			if d := allowN(t, l, "k", 1); !d.Allowed || d.Remaining != 0 {
				t.Fatalf("after a refund the third request: %+v, want allowed with none left", d)
			}
			if d := allowN(t, l, "k", 1); d.Allowed {
				t.Fatalf("the fourth request was allowed: %+v", d)
			}
		})
	}
	t.Run("below zero and an ended window", func(t *testing.T) {
		m := NewMemory(1, time.Minute).WithClock(clk.Now)
		ctx := context.Background()
		for range 3 {
			_ = m.Refund(ctx, "k")
		}
		allowN(t, m, "k", 1)
		if d := allowN(t, m, "k", 1); d.Allowed {
			t.Fatalf("refunds before any count built credit: %+v", d)
		}
		clk.Advance(time.Minute)
		_ = m.Refund(ctx, "k")
		allowN(t, m, "k", 1)
		if d := allowN(t, m, "k", 1); d.Allowed {
			t.Fatalf("a refund into an ended window gave back the new one: %+v", d)
		}
	})
}

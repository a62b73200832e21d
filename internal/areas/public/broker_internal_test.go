package public

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Close waits for background work; work still running when its context
// ends is cancelled and waited for; work asked for after Close does not
// run. A conversation's work runs in the order it was asked for.
func TestBrokerBackgroundWorkAndClose(t *testing.T) {
	a := &Area{broker: newBroker(BrokerOptions{})}
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	a.broker.goInOrder("conv", func(context.Context) { time.Sleep(50 * time.Millisecond); note("first") })
	a.broker.goInOrder("conv", func(context.Context) { note("second") })
	a.broker.goInOrder("other", func(context.Context) { note("other") })
	cancelled := make(chan struct{})
	a.broker.goBackground(func(ctx context.Context) { <-ctx.Done(); close(cancelled) })

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := a.Close(ctx); err == nil {
		t.Fatal("Close returned no error though work outlived its wait")
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("the work still running was not cancelled")
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("Close returned after %v, before its wait ended", waited)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 3 || order[0] == "second" || indexOf(order, "first") > indexOf(order, "second") {
		t.Errorf("order %v", order)
	}
	if a.broker.goBackground(func(context.Context) { t.Error("ran after Close") }) {
		t.Error("work was accepted after Close")
	}
	if len(a.broker.tails) != 0 {
		t.Errorf("tails left: %v", a.broker.tails)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

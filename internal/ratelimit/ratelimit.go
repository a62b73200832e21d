// Package ratelimit counts requests per caller in fixed windows: in memory
// for one process, or in Redis so the limit holds across instances.
package ratelimit

import (
	"context"
	"time"
)

// Decision is the outcome of one Allow.
type Decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	RetryAfter time.Duration // when not allowed: until the window resets
}

// Limiter decides whether the caller named by key may make one more request.
type Limiter interface {
	Allow(ctx context.Context, key string) (Decision, error)
}

// Refunder is a Limiter that can give back one request it counted, for a
// caller whose budget counts only what was served: the request is counted
// before it runs (so concurrent requests never exceed the limit) and given
// back when it was refused. A refund after the window closed gives back
// nothing, and a count never goes below zero.
type Refunder interface {
	Refund(ctx context.Context, key string) error
}

// Refund gives back one request counted for key in l's current window,
// when l keeps refunds (every limiter of this package does).
func Refund(ctx context.Context, l Limiter, key string) error {
	if rf, ok := l.(Refunder); ok {
		return rf.Refund(ctx, key)
	}
	return nil
}

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

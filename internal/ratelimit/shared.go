package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// WhenDown is what a limiter of a Shared store does while Redis does not
// answer.
type WhenDown int

const (
	// CountInMemory counts in this process until Redis answers again. Each
	// instance then holds the limit on its own, so across N instances a
	// caller gets up to N times it: requests go on, still limited.
	CountInMemory WhenDown = iota
	// Refuse answers ErrRedisDown for every call until Redis answers again:
	// for a count that must never be exceeded (verification codes sent to
	// a person's phone), where N times the count is not acceptable.
	Refuse
)

// ErrRedisDown is the error of a Refuse limiter while Redis does not answer.
var ErrRedisDown = errors.New("the Redis at PERFORM_REDIS_URL does not answer, and this count is never kept per instance; nothing is allowed until Redis answers again (see /readyz)")

// Defaults of a Shared store.
const (
	// DefaultCallTimeout bounds one count in Redis: a Redis that hangs
	// (rather than refusing connections) costs a request at most this.
	DefaultCallTimeout = 500 * time.Millisecond
	// DefaultRetryEvery is how often, while Redis is down, one request (or
	// a /readyz probe) tries Redis again; the others go straight to the
	// fallback and wait for nothing.
	DefaultRetryEvery = time.Second
)

// Shared is one Redis every limiter built from it counts in, and the one
// record of whether it answers. When a count in Redis fails, the store is
// down: the transition is logged once, each limiter falls back as its
// WhenDown says, and one call a second (DefaultRetryEvery) tries Redis
// again; the first that succeeds brings every limiter back to Redis and
// logs that too.
type Shared struct {
	client      *redis.Client
	log         *slog.Logger
	prefix      string
	callTimeout time.Duration
	retryEvery  time.Duration
	clock       func() time.Time // the fallback counters' clock

	// isDown mirrors down for the hot path: while Redis answers, a count
	// takes no lock.
	isDown atomic.Bool

	mu        sync.Mutex
	down      bool
	since     time.Time
	lastErr   error
	nextProbe time.Time
	probing   bool
}

// NewShared counts in client; log receives the down and up transitions
// (nil: discarded). The client should have ContextTimeoutEnabled (Connect
// sets it), or a Redis that hangs holds each count for go-redis's own read
// timeout and retries instead of the call timeout.
func NewShared(client *redis.Client, log *slog.Logger) *Shared {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Shared{client: client, log: log, prefix: DefaultRedisPrefix, callTimeout: DefaultCallTimeout,
		retryEvery: DefaultRetryEvery, clock: time.Now}
}

// WithPrefix keeps the counters under prefix (tests use a random one).
func (s *Shared) WithPrefix(prefix string) *Shared { s.prefix = prefix; return s }

// WithRetry sets how long one count in Redis may take and how often Redis
// is tried again while it is down.
func (s *Shared) WithRetry(callTimeout, retryEvery time.Duration) *Shared {
	s.callTimeout, s.retryEvery = callTimeout, retryEvery
	return s
}

// WithClock sets the clock of the in-memory fallback counters (the
// server's set clock in tests); Redis keeps its own time.
func (s *Shared) WithClock(now func() time.Time) *Shared {
	if now != nil {
		s.clock = now
	}
	return s
}

// Limiter allows max calls per window per key, counted in Redis, and while
// Redis is down as whenDown says.
func (s *Shared) Limiter(max int, window time.Duration, whenDown WhenDown) Limiter {
	l := &sharedLimiter{s: s, redis: NewRedis(s.client, max, window).WithPrefix(s.prefix), whenDown: whenDown}
	if whenDown == CountInMemory {
		l.memory = NewMemory(max, window).WithClock(s.clock)
	}
	return l
}

// Health is what a Shared store knows of its Redis.
type Health struct {
	Down  bool
	Since time.Time // when it went down
	Err   error     // the last failure while down
}

// Health reports the store's state as the last count or probe found it.
func (s *Shared) Health() Health {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Health{Down: s.down, Since: s.since, Err: s.lastErr}
}

// Probe pings Redis now (within ctx and the call timeout), records what it
// found (logging a transition as a count would) and reports it. /readyz
// calls it, so an idle instance notices Redis coming back too.
func (s *Shared) Probe(ctx context.Context) Health {
	ctx, cancel := context.WithTimeout(ctx, s.callTimeout)
	defer cancel()
	if err := s.client.Ping(ctx).Err(); err != nil {
		s.failed(err, false)
	} else {
		s.answered(false)
	}
	return s.Health()
}

// tryRedis reports whether this call should count in Redis: always while it
// is up; while it is down, one call per retry interval (a probe).
func (s *Shared) tryRedis() (try, probe bool) {
	if !s.isDown.Load() {
		return true, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.down {
		return true, false
	}
	if s.probing || time.Now().Before(s.nextProbe) {
		return false, false
	}
	s.probing = true
	return true, true
}

func (s *Shared) answered(probe bool) {
	if !probe && !s.isDown.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if probe {
		s.probing = false
	}
	if !s.down {
		return
	}
	s.log.Info("Redis answers again: the rate limits are shared by every instance again", "downFor", time.Since(s.since).Round(time.Millisecond).String())
	s.down, s.lastErr = false, nil
	s.isDown.Store(false)
}

func (s *Shared) failed(err error, probe bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if probe {
		s.probing = false
	}
	s.lastErr = err
	s.nextProbe = time.Now().Add(s.retryEvery)
	if s.down {
		return
	}
	s.down, s.since = true, time.Now()
	s.isDown.Store(true)
	s.log.Error("Redis does not answer: until it does, each instance counts the request limits on its own, in memory, the counts kept only in Redis (verification codes) allow nothing, and /readyz reports redis degraded",
		"err", err, "retryEvery", s.retryEvery.String())
}

// givenUp settles a probe the caller gave up on, which says nothing of Redis.
func (s *Shared) givenUp(probe bool) {
	if probe {
		s.mu.Lock()
		s.probing = false
		s.mu.Unlock()
	}
}

type sharedLimiter struct {
	s        *Shared
	redis    *Redis
	memory   *Memory // nil for Refuse
	whenDown WhenDown
}

func (l *sharedLimiter) Allow(ctx context.Context, key string) (Decision, error) {
	if try, probe := l.s.tryRedis(); try {
		cctx, cancel := context.WithTimeout(ctx, l.s.callTimeout)
		d, err := l.redis.Allow(cctx, key)
		cancel()
		switch {
		case err == nil:
			l.s.answered(probe)
			return d, nil
		case ctx.Err() != nil: // the caller went away: that is no news of Redis
			l.s.givenUp(probe)
		default:
			l.s.failed(err, probe)
		}
	}
	if l.memory != nil {
		return l.memory.Allow(ctx, key)
	}
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	return Decision{}, fmt.Errorf("%w: %v", ErrRedisDown, l.s.Health().Err)
}

// Refund gives back one request where it is being counted now: in Redis
// while it answers, else in the fallback counters. A failed refund only
// leaves the request counted; it does not mark Redis down.
func (l *sharedLimiter) Refund(ctx context.Context, key string) error {
	if !l.s.isDown.Load() {
		cctx, cancel := context.WithTimeout(ctx, l.s.callTimeout)
		defer cancel()
		return l.redis.Refund(cctx, key)
	}
	if l.memory != nil {
		return l.memory.Refund(ctx, key)
	}
	return nil
}

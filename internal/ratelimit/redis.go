package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// go-redis logs each failed dial of its pool on its own ("redis: … pool.go:770
// … failed to dial after 5 attempts") to stderr, before Perform says what is
// wrong and how to fix it. Those lines go to slog's default logger at debug
// level instead: LOG_LEVEL=debug still shows them.
func init() { redis.SetLogger(debugLog{}) }

type debugLog struct{}

func (debugLog) Printf(ctx context.Context, format string, v ...any) {
	slog.Default().DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}

// Connect opens the Redis at rawURL (PERFORM_REDIS_URL) and checks that it
// answers within ctx. Its errors are one sentence naming the variable and
// the fix: a bad URL, a database number the server does not have, a wrong
// password, or a Redis that does not answer.
func Connect(ctx context.Context, rawURL string) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its message repeats the URL, password and all
			err = ue.Err
		}
		return nil, fmt.Errorf("PERFORM_REDIS_URL is not a Redis URL (%v); write it as redis://[:PASSWORD@]HOST:6379/0", err)
	}
	// A count must give up at its context's deadline (Shared's call
	// timeout), not after go-redis's own 3 s read timeout and retries.
	opts.ContextTimeoutEnabled = true
	// One dial, not five 100 ms apart: a refused connection is news to act
	// on (count in memory), not to wait out.
	if opts.DialerRetries == 0 {
		opts.DialerRetries = 1
	}
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, connectError(err, opts.DB)
	}
	return client, nil
}

// connectError explains why the first PING failed.
func connectError(err error, db int) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "DB index is out of range") || strings.Contains(msg, "invalid DB index"):
		return fmt.Errorf("the Redis at PERFORM_REDIS_URL has no database %d (%v); choose a database number the server has (0 to 15 unless its databases setting says more), e.g. redis://HOST:6379/0", db, err)
	case strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "invalid password") || strings.Contains(msg, "invalid username-password"):
		return fmt.Errorf("the Redis at PERFORM_REDIS_URL refused the credentials (%v); put its user and password in the URL, redis://USER:PASSWORD@HOST:6379/0", err)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return fmt.Errorf("the Redis at PERFORM_REDIS_URL did not answer in time (%v); start it, check the host and port, or unset the variable to keep rate limits in memory", err)
	}
	return fmt.Errorf("the Redis at PERFORM_REDIS_URL does not answer (%v); start it, check the host and port, or unset the variable to keep rate limits in memory", err)
}

// DefaultRedisPrefix starts every key the Redis limiter writes.
const DefaultRedisPrefix = "perform:rl:"

// windowScript counts one request in the caller's window and returns the
// count and the milliseconds left in the window, in one atomic round trip.
// The first request of a window sets its expiry; a key that somehow has no
// expiry gets one, so a window can never last forever.
var windowScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`)

// refundScript gives back one request of a window still open, never
// below zero; a window that has ended is left alone.
var refundScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0
`)

// Redis is a fixed-window limiter whose counters live in Redis, so every
// instance sharing the Redis shares each caller's budget.
type Redis struct {
	client *redis.Client
	max    int
	window time.Duration
	prefix string
}

// NewRedis allows max requests per window per key, counted in client.
func NewRedis(client *redis.Client, max int, window time.Duration) *Redis {
	return &Redis{client: client, max: max, window: window, prefix: DefaultRedisPrefix}
}

// WithPrefix returns a limiter that keeps its counters under prefix
// (tests use a random one so runs never share counters).
func (r *Redis) WithPrefix(prefix string) *Redis {
	c := *r
	c.prefix = prefix
	return &c
}

func (r *Redis) Allow(ctx context.Context, key string) (Decision, error) {
	res, err := windowScript.Run(ctx, r.client, []string{r.prefix + key}, r.window.Milliseconds()).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("counting the request in Redis: %w", err)
	}
	if len(res) != 2 {
		return Decision{}, fmt.Errorf("counting the request in Redis: the script answered %d values, want 2", len(res))
	}
	n, ttl := int(res[0]), time.Duration(res[1])*time.Millisecond
	d := Decision{Allowed: n <= r.max, Limit: r.max, Remaining: max(r.max-n, 0)}
	if !d.Allowed {
		d.RetryAfter = ttl
	}
	return d, nil
}

// Refund gives back one request counted for key in its current window.
func (r *Redis) Refund(ctx context.Context, key string) error {
	if err := refundScript.Run(ctx, r.client, []string{r.prefix + key}).Err(); err != nil {
		return fmt.Errorf("giving back a request in Redis: %w", err)
	}
	return nil
}

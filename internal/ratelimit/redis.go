package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

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

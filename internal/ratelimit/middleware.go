package ratelimit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// KeyFor names the caller of r for limiting: its bearer token (hashed, so the
// token never sits in a limiter's memory or in Redis) or, without one, the
// client address.
func KeyFor(r *http.Request) string {
	// The scheme is case-insensitive (RFC 9110), as the lane's auth reads it.
	if scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") && tok != "" {
		h := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		return "key:" + hex.EncodeToString(h[:12])
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}

// Deny answers a request over its limit, in the protocol of the route it
// came to; Retry-After and the RateLimit headers are already set.
type Deny func(w http.ResponseWriter, r *http.Request, d Decision)

// Middleware counts every request against l and answers over-limit ones with
// deny (after setting Retry-After and the RateLimit headers). A limiter error
// lets the request through: a broken Redis must not take the API down.
func Middleware(l Limiter, deny Deny) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, err := l.Allow(r.Context(), KeyFor(r))
			if err != nil {
				next.ServeHTTP(w, r)
				return
			}
			h := w.Header()
			h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
			h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
			if !d.Allowed {
				h.Set("Retry-After", strconv.Itoa(RetryAfterSeconds(d.RetryAfter)))
				deny(w, r, d)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Message is the one sentence every route says to a caller over its limit,
// whatever envelope carries it.
func (d Decision) Message() string {
	n := RetryAfterSeconds(d.RetryAfter)
	unit := "seconds"
	if n == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Too many requests: the limit is %d per window. Wait %d %s (see Retry-After) and try again.", d.Limit, n, unit)
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least one.
func RetryAfterSeconds(d time.Duration) int {
	return max(int(math.Ceil(d.Seconds())), 1)
}

package ratelimit

import (
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/metrics"
)

// Deny answers a request over its limit, in the protocol of the route it
// came to; Retry-After and the RateLimit headers are already set.
type Deny func(w http.ResponseWriter, r *http.Request, d Decision)

// Middleware counts every request against l by the client's address and
// answers over-limit ones with deny (see Check). It runs before any
// authentication, so it never trusts a credential: an unchecked token must
// buy no budget of its own. Routes with credentials limit after checking
// them (the lane, and /mcp's Gate) and key on the credential then.
func Middleware(l Limiter, deny Deny, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if d, ok := Check(w, r, l, AddrKey(auth.ClientAddr(r)), log); !ok {
				deny(w, r, d)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Check counts one request of the caller named key against l and sets the
// RateLimit headers (and Retry-After when over). It reports whether the
// request may go on; when not, the caller answers with the Decision. A
// limiter error lets the request through, since a broken Redis must not
// take the API down, but it is logged and counted in
// perform_ratelimit_errors_total so nobody mistakes it for a quiet day.
func Check(w http.ResponseWriter, r *http.Request, l Limiter, key string, log *slog.Logger) (Decision, bool) {
	if l == nil {
		return Decision{Allowed: true}, true
	}
	d, err := l.Allow(r.Context(), key)
	if err != nil {
		metrics.RateLimitError()
		if log != nil {
			log.WarnContext(r.Context(), "the rate limiter failed; the request goes through unlimited", "method", r.Method, "path", trim(r.URL.Path), "err", err)
		}
		return Decision{Allowed: true}, true
	}
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(RetryAfterSeconds(d.RetryAfter)))
		return d, false
	}
	return d, true
}

// AddrKey names a caller by its network address: for requests whose
// credential is missing or failed, so inventing tokens buys no budget.
func AddrKey(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return "ip:" + host
}

// CredentialKey names an authenticated caller by its credential's id.
func CredentialKey(credentialID string) string { return "cred:" + credentialID }

func trim(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
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

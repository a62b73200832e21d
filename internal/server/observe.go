package server

import (
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/metrics"
)

// observe records every request in metrics (by route pattern, so raw ids
// never become label values) and logs it at debug level. The lane logs its
// own requests with their request id, so they are not logged twice here.
//
// The label is the pattern of the route that served the request: the
// lane names the one it matched (metrics.SetRoute), the server's mux the
// rest (r.Pattern). Nothing is rebuilt or guessed, so labels are the same
// on every start.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &httpx.StatusWriter{ResponseWriter: w}
		ctx, matched := metrics.WithRouteSlot(r.Context())
		// Every address-keyed limit reads the client's address from here
		// (auth.ClientAddr): behind a trusted balancer, the address it
		// forwarded; and in-process lane calls made for this request (the
		// tools of /mcp) are limited against it when their credential fails.
		r = r.WithContext(auth.WithClientAddr(ctx, s.cfg.TrustedProxies.ClientAddr(r)))
		next.ServeHTTP(sw, r)
		elapsed := time.Since(start)
		status := sw.Sent()
		route := matched()
		if route == "" {
			route = r.Pattern // set in place by the mux
			s.logger.Debug("request", "method", r.Method, "route", route, "path", r.URL.Path, "status", status,
				"durationMs", float64(elapsed.Microseconds())/1000)
		}
		if route == "" || route == "/" || route == lane.Prefix+"/" {
			route = "unmatched"
		}
		metrics.ObserveHTTP(route, status, elapsed)
	})
}

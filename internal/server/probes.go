package server

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// healthz answers while the process is up: it checks nothing else.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "up"})
}

// readyz answers 200 when the database answers, 503 otherwise, so a load
// balancer stops sending traffic to an instance that lost its database.
// From the start of a shutdown it answers 503 too. A Redis that does not
// answer leaves it at 200 with "redis": "degraded": every instance shares
// the one Redis, so a 503 would take them all out of the pool at once,
// and each still serves, limiting requests in memory (see ratelimit.Shared).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.stopping.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "status": "shutting down", "engine": s.store.Engine()})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyPingTimeout)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.logger.Warn("not ready: the database does not answer", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "status": "the database does not answer", "engine": s.store.Engine()})
		return
	}
	body := map[string]any{"ok": true, "status": "ready", "engine": s.store.Engine()}
	if s.shared != nil {
		body["redis"] = "up"
		if h := s.shared.Probe(ctx); h.Down {
			body["redis"] = "degraded"
			body["warning"] = fmt.Sprintf("Redis (PERFORM_REDIS_URL) has not answered since %s: each instance limits requests on its own, in memory, and no verification code is sent until it answers again.",
				h.Since.UTC().Format(time.RFC3339))
		}
	}
	writeJSON(w, http.StatusOK, body)
}

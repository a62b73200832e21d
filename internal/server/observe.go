package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/metrics"
)

// observe records every request in metrics (by route pattern, so raw ids
// never become label values) and logs it at debug level. The lane logs its
// own requests with their request id, so they are not logged twice here.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &httpx.StatusWriter{ResponseWriter: w}
		// In-process lane calls made for this request (the tools of /mcp)
		// are limited against this address when their credential fails.
		r = r.WithContext(auth.WithClientAddr(r.Context(), r.RemoteAddr))
		next.ServeHTTP(sw, r)
		elapsed := time.Since(start)
		status := sw.Sent()
		route := r.Pattern // set in place by the mux
		if strings.HasPrefix(r.URL.Path, lane.Prefix+"/") {
			route = s.routes.name(r)
		} else {
			s.logger.Debug("request", "method", r.Method, "route", route, "path", r.URL.Path, "status", status,
				"durationMs", float64(elapsed.Microseconds())/1000)
		}
		if route == "" || route == "/" {
			route = "unmatched"
		}
		metrics.ObserveHTTP(route, status, elapsed)
	})
}

// routeNamer names a lane request by its route pattern
// ("GET /v1/automation/trainees/{id}"). The patterns come from the lane's
// own OpenAPI document, so they match the lane's routes exactly.
type routeNamer struct{ mux *http.ServeMux }

func newRouteNamer(openAPI []byte) *routeNamer {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	n := &routeNamer{mux: http.NewServeMux()}
	if json.Unmarshal(openAPI, &doc) != nil {
		return n
	}
	nop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for path, ops := range doc.Paths {
		for method := range ops {
			n.register(strings.ToUpper(method)+" "+lane.Prefix+path, nop)
		}
	}
	n.register("GET "+lane.Prefix+"/openapi.json", nop)
	return n
}

// register skips a pattern the mux refuses (say, a conflict): that route
// is then counted under the lane's prefix.
func (n *routeNamer) register(pattern string, h http.Handler) {
	defer func() { _ = recover() }()
	n.mux.Handle(pattern, h)
}

func (n *routeNamer) name(r *http.Request) string {
	if _, pattern := n.mux.Handler(r); pattern != "" {
		return pattern
	}
	return lane.Prefix + "/"
}

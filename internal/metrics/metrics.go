// Package metrics holds Perform's Prometheus collectors and the helpers the
// rest of the server calls to feed them. The server exposes Registry at
// /metrics. Collectors are process-wide, as Prometheus expects: they count
// the process's work, never carry a request's data.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry holds every Perform collector plus the Go runtime and process ones.
var Registry = prometheus.NewRegistry()

var (
	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_http_requests_total",
		Help: "HTTP requests answered, by route pattern and status code.",
	}, []string{"route", "status"})

	httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "perform_http_request_duration_seconds",
		Help: "Time to answer an HTTP request, by route pattern.",
		// From 250 µs (an in-process lane read) to 10 s (an MCP call under load).
		Buckets: []float64{.00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})

	toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_mcp_tool_calls_total",
		Help: "MCP tool calls, by tool and outcome (ok, invalid_arguments, lane_error, unavailable).",
	}, []string{"tool", "outcome"})

	jobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_jobs_total",
		Help: "Background job runs finished, by job kind and outcome (completed, failed, cancelled, snoozed).",
	}, []string{"kind", "outcome"})

	jobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "perform_job_duration_seconds",
		Help:    "Time a background job ran, by job kind.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10), // 1 ms to ~4 min
	}, []string{"kind"})

	rateLimitErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "perform_ratelimit_errors_total",
		Help: "Requests let through unlimited because the rate limiter failed (Redis down or slow).",
	})
	auditLost = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_audit_events_lost_total",
		Help: "Audit events that were never written, by reason (buffer_full, closed, insert_failed).",
	}, []string{"reason"})

	agentTurns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_agent_turns_total",
		Help: "WhatsApp agent turns finished, by outcome (replied, welcome, failed, …).",
	}, []string{"outcome"})

	agentModelSteps = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_agent_model_steps_total",
		Help: "Model calls the WhatsApp agent made, by model.",
	}, []string{"model"})
	agentModelTokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "perform_agent_model_tokens_total",
		Help: "Tokens the WhatsApp agent's model calls were billed, by model and kind (input: uncached input, cache_write_5m, cache_write_1h, cache_read, output).",
	}, []string{"model", "kind"})
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		httpRequests, httpDuration, toolCalls, jobs, jobDuration, agentTurns, agentModelSteps, agentModelTokens, rateLimitErrors, auditLost,
	)
}

// Handler serves Registry in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry})
}

// ObserveHTTP counts one answered request. route must be a pattern
// ("GET /v1/automation/trainees/{id}"), never a raw path, so the number of
// series stays bounded.
func ObserveHTTP(route string, status int, d time.Duration) {
	httpRequests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	httpDuration.WithLabelValues(route).Observe(d.Seconds())
}

// ToolCall counts one MCP tool call.
func ToolCall(tool, outcome string) { toolCalls.WithLabelValues(tool, outcome).Inc() }

// Job counts one finished run of a background job.
func Job(kind, outcome string, ran time.Duration) {
	jobs.WithLabelValues(kind, outcome).Inc()
	jobDuration.WithLabelValues(kind).Observe(ran.Seconds())
}

// AgentTurn counts one finished WhatsApp agent turn.
func AgentTurn(outcome string) { agentTurns.WithLabelValues(outcome).Inc() }

// AgentModelStep counts one model call of the WhatsApp agent and the tokens
// it was billed; cacheWrite1h is the part of cacheWrite in one-hour entries.
func AgentModelStep(model string, input, output, cacheWrite, cacheWrite1h, cacheRead int64) {
	agentModelSteps.WithLabelValues(model).Inc()
	for kind, n := range map[string]int64{"input": input, "output": output, "cache_write_5m": cacheWrite - cacheWrite1h, "cache_write_1h": cacheWrite1h, "cache_read": cacheRead} {
		agentModelTokens.WithLabelValues(model, kind).Add(float64(n))
	}
}

// RateLimitError counts one request the limiter could not count.
func RateLimitError() { rateLimitErrors.Inc() }

// routeSlot is where a handler deep in the chain names the route pattern
// it matched, for the request's metrics.
type routeSlot struct{ pattern string }

type routeKey struct{}

// WithRouteSlot returns ctx with room for the request's route pattern and
// a func that reads what SetRoute put there ("" when nothing did).
func WithRouteSlot(ctx context.Context) (context.Context, func() string) {
	slot := &routeSlot{}
	return context.WithValue(ctx, routeKey{}, slot), func() string { return slot.pattern }
}

// SetRoute names the route pattern a request matched ("GET
// /v1/automation/trainees/{id}"), when its context has a slot.
func SetRoute(ctx context.Context, pattern string) {
	if slot, ok := ctx.Value(routeKey{}).(*routeSlot); ok {
		slot.pattern = pattern
	}
}

// AuditLost counts one audit event that was never written.
func AuditLost(reason string) { auditLost.WithLabelValues(reason).Inc() }

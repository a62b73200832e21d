package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func scrape(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("/metrics answered %d", res.StatusCode)
	}
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestHelpersFeedTheRegistry(t *testing.T) {
	ObserveHTTP("GET /v1/automation/trainees/{id}", 404, 3*time.Millisecond)
	ObserveHTTP("GET /v1/automation/trainees/{id}", 404, 5*time.Millisecond)
	ToolCall("get_trainee", "lane_error")
	Job("perform_form_announce", "completed", 20*time.Millisecond)
	AgentTurn("replied")

	text := scrape(t)
	for _, want := range []string{
		`perform_http_requests_total{route="GET /v1/automation/trainees/{id}",status="404"} 2`,
		`perform_http_request_duration_seconds_bucket{route="GET /v1/automation/trainees/{id}",le="0.005"} 2`,
		`perform_http_request_duration_seconds_bucket{route="GET /v1/automation/trainees/{id}",le="0.0025"} 0`,
		`perform_mcp_tool_calls_total{outcome="lane_error",tool="get_trainee"} 1`,
		`perform_jobs_total{kind="perform_form_announce",outcome="completed"} 1`,
		`perform_job_duration_seconds_count{kind="perform_form_announce"} 1`,
		`perform_agent_turns_total{outcome="replied"} 1`,
		`go_goroutines `,
		`process_resident_memory_bytes `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func BenchmarkObserveHTTP(b *testing.B) {
	for b.Loop() {
		ObserveHTTP("GET /v1/automation/trainees/search", 200, time.Millisecond)
	}
}

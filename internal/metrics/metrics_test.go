package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// The registry is the process's: labels unique to this run keep the counts
// exact when the test runs more than once (-count).
func TestHelpersFeedTheRegistry(t *testing.T) {
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	route := "GET /v1/automation/trainees/{id}/" + run
	ObserveHTTP(route, 404, 3*time.Millisecond)
	ObserveHTTP(route, 404, 5*time.Millisecond)
	ToolCall("get_trainee_"+run, "lane_error")
	Job("perform_form_announce_"+run, "completed", 20*time.Millisecond)
	AgentTurn("replied_" + run)
	AgentModelStep("claude-"+run, 10, 150, 5000, 4000, 9000)
	AgentModelStep("claude-"+run, 20, 50, 700, 0, 14000)

	text := scrape(t)
	for _, want := range []string{
		`perform_http_requests_total{route="` + route + `",status="404"} 2`,
		`perform_http_request_duration_seconds_bucket{route="` + route + `",le="0.005"} 2`,
		`perform_http_request_duration_seconds_bucket{route="` + route + `",le="0.0025"} 0`,
		`perform_mcp_tool_calls_total{outcome="lane_error",tool="get_trainee_` + run + `"} 1`,
		`perform_jobs_total{kind="perform_form_announce_` + run + `",outcome="completed"} 1`,
		`perform_job_duration_seconds_count{kind="perform_form_announce_` + run + `"} 1`,
		`perform_agent_turns_total{outcome="replied_` + run + `"} 1`,
		`perform_agent_model_steps_total{model="claude-` + run + `"} 2`,
		`perform_agent_model_tokens_total{kind="input",model="claude-` + run + `"} 30`,
		`perform_agent_model_tokens_total{kind="output",model="claude-` + run + `"} 200`,
		`perform_agent_model_tokens_total{kind="cache_write_5m",model="claude-` + run + `"} 1700`,
		`perform_agent_model_tokens_total{kind="cache_write_1h",model="claude-` + run + `"} 4000`,
		`perform_agent_model_tokens_total{kind="cache_read",model="claude-` + run + `"} 23000`,
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

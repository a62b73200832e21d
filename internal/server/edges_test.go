package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/metrics"
)

// requestCount reads perform_http_requests_total for one route and status.
func requestCount(t *testing.T, route string, status int) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "perform_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["route"] == route && labels["status"] == fmt.Sprint(status) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// Every lane route is counted under its own pattern, on every start: the
// label is the pattern the lane matched, with nothing rebuilt beside it.
// Not parallel: the counters are the process's, and a parallel test's
// request without a key would count under the same label.
func TestRouteLabelsAreTheLanesPatterns(t *testing.T) {
	for start := range 3 {
		s := newServer(t, testConfig(t))
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(s.lane.OpenAPI(), &doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		for path, ops := range doc.Paths {
			for method := range ops {
				n++
				pattern := strings.ToUpper(method) + " " + lane.Prefix + path
				url := lane.Prefix + strings.NewReplacer("{id}", "x_1", "{phone}", "0501234567").Replace(path)
				before := requestCount(t, pattern, 401)
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, httptest.NewRequest(strings.ToUpper(method), url, nil))
				if rec.Code != 401 {
					t.Fatalf("start %d: %s %s without a key: %d %s", start, method, url, rec.Code, rec.Body)
				}
				if got := requestCount(t, pattern, 401); got != before+1 {
					t.Errorf("start %d: %s was not counted under %q (%v -> %v)", start, url, pattern, before, got)
				}
			}
		}
		if n < 40 {
			t.Fatalf("%d operations", n)
		}
		// A literal segment wins over by-phone: this is the weights of a trainee "by-phone".
		before := requestCount(t, "GET /v1/automation/trainees/{id}/weights", 401)
		s.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", lane.Prefix+"/trainees/by-phone/weights", nil))
		if got := requestCount(t, "GET /v1/automation/trainees/{id}/weights", 401); got != before+1 {
			t.Errorf("start %d: /trainees/by-phone/weights was not routed to the weights", start)
		}
	}
}

// One not-found and one method-not-allowed answer, bounded, whoever serves
// the path: the lane, the server's own endpoints or a plug-in's.
func TestNotFoundAndMethodNotAllowedEverywhere(t *testing.T) {
	t.Parallel()
	plug := func(p *Parts) error {
		p.Handle("POST /v1/agent/webhook", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(202) }), false)
		return nil
	}
	s := newServer(t, testConfig(t), WithPlugin(plug))
	long := strings.Repeat("a", 60_000)
	for _, c := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/v1/agent/webhook", 405, "POST"},
		{"DELETE", "/healthz", 405, "GET"},
		{"POST", "/v1/automation/validate", 405, "GET"},
		{"PUT", "/v1/automation/trainees/x_1", 405, "GET, PATCH, DELETE"},
		{"GET", "/" + long, 404, ""},
		{"GET", "/v1/automation/" + long, 404, ""},
		{"GET", "/v1/automation/trainees/x_1/bogus", 404, ""},
		{"POST", "/v1/automation/trainees/x_1/bogus", 404, ""},
	} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		var env struct {
			OK    bool `json:"ok"`
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		name := c.method + " " + c.path[:min(len(c.path), 40)]
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.OK {
			t.Errorf("%s: not the error envelope: %s", name, rec.Body)
			continue
		}
		if rec.Code != c.status || rec.Header().Get("Allow") != c.allow || rec.Body.Len() > 1000 {
			t.Errorf("%s: %d Allow %q, %d bytes; want %d Allow %q, under 1 KB", name, rec.Code, rec.Header().Get("Allow"), rec.Body.Len(), c.status, c.allow)
		}
		want := map[int]struct{ code, start string }{
			404: {"NOT_FOUND", "There is no endpoint " + c.method + " "},
			405: {"METHOD_NOT_ALLOWED", c.method + " is not allowed on " + c.path + "; use "},
		}[c.status]
		if env.Error.Code != want.code || !strings.HasPrefix(env.Error.Message, want.start) {
			t.Errorf("%s: %s %q", name, env.Error.Code, env.Error.Message)
		}
	}
}

// A client trickling its headers or its body is cut off by the server's
// timeouts (short ones here), long before it has sent everything.
func TestTricklingClientsAreCutOff(t *testing.T) {
	t.Parallel()
	s, err := New(context.Background(), testConfig(t), nil,
		WithTimeouts(Timeouts{ReadHeader: 200 * time.Millisecond, Read: 300 * time.Millisecond, Write: time.Second, Idle: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	key := studioKey(t, s.Store(), "trickle")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()

	const bodyLen = 400
	head := "POST /v1/automation/tasks HTTP/1.1\r\nHost: perform\r\nContent-Type: application/json\r\n" +
		"Authorization: Bearer " + key + "\r\nContent-Length: " + fmt.Sprint(bodyLen) + "\r\n\r\n"
	for name, c := range map[string]struct{ upfront, trickled string }{
		"headers": {"", head},
		"body":    {head, strings.Repeat(" ", bodyLen)},
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			closed := make(chan string, 1)
			go func() {
				// Whatever the server says, it ends with the connection closed.
				b, _ := io.ReadAll(bufio.NewReader(conn))
				closed <- string(b)
			}()
			if _, err := io.WriteString(conn, c.upfront); err != nil {
				t.Fatal(err)
			}
			tick := time.NewTicker(20 * time.Millisecond) // a slow client, not a wait for the result
			defer tick.Stop()
			for i := range len(c.trickled) {
				select {
				case answer := <-closed:
					t.Logf("cut off after %d of %d bytes: %q", i, len(c.trickled), answer[:min(len(answer), 60)])
					return
				case <-tick.C:
				}
				if _, err := conn.Write([]byte{c.trickled[i]}); err != nil {
					t.Logf("cut off after %d of %d bytes: %v", i, len(c.trickled), err)
					return
				}
			}
			t.Fatalf("the server read all %d trickled bytes without cutting the connection", len(c.trickled))
		})
	}
}

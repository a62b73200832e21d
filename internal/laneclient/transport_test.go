package laneclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
)

// echoLane answers like the lane's envelope and reports what it saw, so the
// transport's view of the request can be checked from both sides.
func echoLane(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/automation/fail":
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"ok":false,"error":{"code":"NOT_FOUND","message":"No trainee with id trn_x exists in this studio. Use search_trainees to get a valid id."},"requestId":"req_1"}`)
	case "/v1/automation/plain":
		http.Error(w, "404 page not found", http.StatusNotFound)
	case "/v1/automation/panic":
		panic("boom")
	default:
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "requestId": "req_2", "data": map[string]any{
			"method": r.Method, "uri": r.RequestURI, "path": r.URL.Path, "remote": r.RemoteAddr,
			"auth": r.Header.Get("Authorization"), "sourceHeader": r.Header.Get(auth.SourceHeader), "source": contextSource(r),
			"contentType": r.Header.Get("Content-Type"), "body": string(body), "proto": r.Proto,
		}})
	}
}

func contextSource(r *http.Request) string {
	s, _ := auth.SourceFrom(r.Context())
	return s
}

func clients(t *testing.T) map[string]*Client {
	srv := httptest.NewServer(http.HandlerFunc(echoLane))
	t.Cleanup(srv.Close)
	return map[string]*Client{
		"in-process": New("http://perform.internal/", HandlerTransport(http.HandlerFunc(echoLane)), "mcp"),
		"network":    New(srv.URL, nil, "mcp"),
	}
}

func TestDoSendsTheSameRequestOverBothTransports(t *testing.T) {
	for name, c := range clients(t) {
		data, err := c.Do(context.Background(), "pf_live_k", Request{
			Method: http.MethodPatch, Path: "/tasks/tsk%2F1", Query: map[string][]string{"a": {"b c"}}, Body: map[string]int{"priority": 2},
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var seen map[string]string
		if err := json.Unmarshal(data, &seen); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := map[string]string{
			"method": "PATCH", "uri": "/v1/automation/tasks/tsk%2F1?a=b+c", "path": "/v1/automation/tasks/tsk/1",
			"auth": "Bearer pf_live_k", "contentType": "application/json", "body": `{"priority":2}`, "proto": "HTTP/1.1",
		}
		// In process the source moves from the header into the context; over
		// the network it stays a header, which the lane does not believe.
		if name == "in-process" {
			want["source"], want["sourceHeader"] = "mcp", ""
		} else {
			want["source"], want["sourceHeader"] = "", "mcp"
		}
		for k, v := range want {
			if seen[k] != v {
				t.Errorf("%s: lane saw %s = %q, want %q", name, k, seen[k], v)
			}
		}
		if seen["remote"] == "" {
			t.Errorf("%s: lane saw no client address", name)
		}
	}
}

func TestDoKeepsTheLaneSentence(t *testing.T) {
	for name, c := range clients(t) {
		_, err := c.Do(context.Background(), "pf_live_k", Request{Method: http.MethodGet, Path: "/fail"})
		var le *Error
		if !errors.As(err, &le) {
			t.Fatalf("%s: err = %v, want *Error", name, err)
		}
		if le.Status != 404 || le.Code != "NOT_FOUND" || le.RequestID != "req_1" ||
			le.Error() != "No trainee with id trn_x exists in this studio. Use search_trainees to get a valid id." {
			t.Errorf("%s: %+v", name, le)
		}
	}
}

func TestDoNamesANonLaneAnswer(t *testing.T) {
	for name, c := range clients(t) {
		_, err := c.Do(context.Background(), "pf_live_k", Request{Method: http.MethodGet, Path: "/plain"})
		var le *Error
		if err == nil || errors.As(err, &le) || !strings.Contains(err.Error(), "without the lane's JSON envelope") || !strings.Contains(err.Error(), "404") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestHandlerTransportTurnsAPanicIntoAnError(t *testing.T) {
	c := New("http://x", HandlerTransport(http.HandlerFunc(echoLane)), "mcp")
	_, err := c.Do(context.Background(), "pf_live_k", Request{Method: http.MethodGet, Path: "/panic"})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
}

func TestHandlerTransportLeavesTheCallerRequestAlone(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://x/v1/automation/anything", nil)
	resp, err := HandlerTransport(http.HandlerFunc(echoLane)).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if req.RequestURI != "" || req.RemoteAddr != "" || req.Body != nil {
		t.Errorf("request modified: %+v", req)
	}
	if resp.StatusCode != 200 || resp.Request != req || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("response %+v", resp)
	}
	b, _ := io.ReadAll(resp.Body)
	if int64(len(b)) != resp.ContentLength || !strings.Contains(string(b), `"ok":true`) {
		t.Errorf("body %q (length %d)", b, resp.ContentLength)
	}
}

func TestUnreachableServerIsASentence(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := New(url, nil, "mcp").Validate(context.Background(), "pf_live_k")
	if err == nil || !strings.Contains(err.Error(), "could not be reached") || !strings.Contains(err.Error(), url) {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkDoInProcess is the client's own cost per call: a lane that
// answers a fixed trainee at once, so what remains is the request, the
// in-process transport and the envelope.
func BenchmarkDoInProcess(b *testing.B) {
	answer := []byte(`{"ok":true,"data":{"id":"trn_06h2qd9jt4dr1bwjgdvhvpx5ar","firstName":"Dana","lastName":"Levi","phone":"+972501000001","tags":["vip"],"coachIds":[]},"requestId":"req_1"}`)
	lane := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
	c := New("http://perform.internal", HandlerTransport(lane), "mcp")
	req := Request{Method: http.MethodGet, Path: "/trainees/trn_06h2qd9jt4dr1bwjgdvhvpx5ar"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(context.Background(), "pf_live_k", req); err != nil {
			b.Fatal(err)
		}
	}
}

// Calls never wait for one another: a slow lane call does not hold up the
// next, however many are in flight.
func TestHandlerTransportServesCallsConcurrently(t *testing.T) {
	const n = 50
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	lane := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		_, _ = io.WriteString(w, `{"ok":true,"data":{}}`)
	})
	c := New("http://x", HandlerTransport(lane), "mcp")
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.Do(context.Background(), "pf_live_k", Request{Method: http.MethodGet, Path: "/slow"})
			errs <- err
		}()
	}
	for range n {
		select {
		case <-arrived:
		case <-time.After(5 * time.Second):
			t.Fatal("calls were queued behind one another")
		}
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// Workers keep their goroutine between calls and leave once idle.
func TestHandlerTransportWorkersLeaveWhenIdle(t *testing.T) {
	ht := HandlerTransport(http.HandlerFunc(echoLane)).(*handlerTransport)
	ht.idleFor = 50 * time.Millisecond
	c := New("http://x", ht, "mcp")
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := c.Do(context.Background(), "pf_live_k", Request{Method: http.MethodGet, Path: "/a"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Fatalf("%d goroutines remain after the workers' idle time, %d before", got, before)
	}
}

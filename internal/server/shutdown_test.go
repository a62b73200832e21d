package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestShutdownFailsReadinessFirst: with PERFORM_SHUTDOWN_DELAY_MS, a
// cancelled server answers /readyz 503 at once and keeps serving everything
// else, new connections included, for the delay; only then does its port
// close. A load balancer checking /readyz takes it out in that time.
func TestShutdownFailsReadinessFirst(t *testing.T) {
	t.Parallel()
	const delay = 2 * time.Second
	cfg := testConfig(t)
	cfg.ShutdownDelay = delay
	s, err := New(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := studioKey(t, s.Store(), "lameduck")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	if a := call(t, "GET", url+"/readyz", ""); a.status != 200 {
		t.Fatalf("/readyz before the shutdown: %d %s", a.status, a.body)
	}

	cancel()
	cancelled := time.Now()
	for {
		a := call(t, "GET", url+"/readyz", "")
		if a.status == 503 {
			if !strings.Contains(a.body, `"status":"shutting down"`) {
				t.Errorf("/readyz while shutting down: %s", a.body)
			}
			break
		}
		if time.Since(cancelled) > delay/2 {
			t.Fatalf("/readyz still answers %d %s %s after the shutdown began", a.status, a.body, time.Since(cancelled))
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Still serving, on fresh connections: the lane and the liveness probe.
	if a := call(t, "GET", url+"/v1/automation/validate", key); a.status != 200 {
		t.Errorf("the lane during the shutdown delay: %d %s", a.status, a.body)
	}
	if a := call(t, "GET", url+"/healthz", ""); a.status != 200 {
		t.Errorf("/healthz during the shutdown delay: %d %s", a.status, a.body)
	}
	if early := time.Since(cancelled); early >= delay {
		t.Fatalf("the checks above took %s, longer than the delay; they proved nothing", early)
	}

	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the delay")
	}
	if took := time.Since(cancelled); took < delay {
		t.Errorf("Serve returned %s after the cancel, before the %s delay", took, delay)
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Error("the port still accepts connections after the shutdown")
	}
}

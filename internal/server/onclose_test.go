package server

import (
	"context"
	"errors"
	"testing"
)

// A plug-in's OnClose runs once, on Close, while the store is still open
// (an agent writes its last accepted messages there), and its error is
// Close's.
func TestCloseRunsThePluginsStops(t *testing.T) {
	t.Parallel()
	var calls int
	var storeOpen error
	stopErr := errors.New("the plug-in's stop failed")
	var s *Server
	plug := func(p *Parts) error {
		p.OnClose(func() error {
			calls++
			storeOpen = s.Store().Ping(context.Background())
			return stopErr
		})
		return nil
	}
	s = newServer(t, testConfig(t), WithPlugin(plug))
	if calls != 0 {
		t.Fatalf("OnClose ran %d times before Close", calls)
	}
	if err := s.Close(); !errors.Is(err, stopErr) {
		t.Fatalf("Close = %v; want the plug-in's error", err)
	}
	_ = s.Close()
	if calls != 1 || storeOpen != nil {
		t.Fatalf("OnClose ran %d times, the store answering %v; want once, with the store open", calls, storeOpen)
	}
}

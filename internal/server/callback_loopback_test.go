package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/config"
)

// PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK=1 is read from the
// environment; with an http public URL (a laptop) the server starts and
// says so at WARN; with an https one (a deployment) it refuses to start,
// with a sentence naming the setting.
func TestCallbackLoopbackIsForALaptopOnly(t *testing.T) {
	t.Parallel()
	env := map[string]string{"PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK": "1", "PERFORM_PUBLIC_URL": "http://127.0.0.1:8080"}
	cfg, err := config.FromEnv(func(k string) string { return env[k] })
	if err != nil || !cfg.AgentPlatformCallbackLoopback {
		t.Fatalf("read %v (%v)", cfg.AgentPlatformCallbackLoopback, err)
	}
	if _, err := config.FromEnv(func(k string) string {
		return map[string]string{"PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK": "yes"}[k]
	}); err == nil {
		t.Fatal("a value other than 0 or 1 was accepted")
	}

	laptop := testConfig(t)
	laptop.AgentPlatformCallbackLoopback, laptop.PublicURL = true, "http://127.0.0.1:8080"
	var log bytes.Buffer
	s, err := New(context.Background(), laptop, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatalf("on a laptop: %v", err)
	}
	s.Close()
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK is on") {
		t.Fatalf("not logged at WARN: %s", log.String())
	}

	deployed := testConfig(t)
	deployed.AgentPlatformCallbackLoopback, deployed.PublicURL = true, "https://perform.example.com"
	if _, err := New(context.Background(), deployed, slog.New(slog.DiscardHandler)); err == nil ||
		!strings.Contains(err.Error(), "PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK") || !strings.Contains(err.Error(), "https") {
		t.Fatalf("with an https public URL: %v", err)
	}
}

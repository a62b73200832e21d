package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/config"
)

// A PostgreSQL URL is PostgreSQL whatever the case of its scheme, here as
// in store.Open: agentSecretKey must not take POSTGRES://… for a SQLite
// file and write the agent's key to a file named after the URL.
func TestAgentSecretKeyPostgresSchemeAnyCase(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, u := range []string{"postgres://u:p@db.example/perform", "POSTGRES://u:p@db.example/perform", "PostgreSQL://u:p@db.example/perform"} {
		cfg := config.Config{DatabaseURL: u, AgentSmartSendAPIKey: "sk"}
		_, err := agentSecretKey(cfg, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), "PERFORM_SECRET_KEY must be set") {
			t.Errorf("agentSecretKey with %s: %v; want PERFORM_SECRET_KEY asked for", u, err)
		}
	}
	if m, _ := filepath.Glob("*"); len(m) != 0 {
		entries, _ := os.ReadDir(".")
		t.Errorf("files written beside the process: %v", entries)
	}
}

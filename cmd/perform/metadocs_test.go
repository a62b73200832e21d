package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/server"
)

// PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS=off reaches the authorization
// server: its metadata stops offering client ID metadata documents, so an
// app such as Claude Code registers instead.
func TestMetadataDocumentsSetting(t *testing.T) {
	for value, offered := range map[string]bool{"": true, "off": false, "on": true} {
		cfg, err := config.FromEnv(func(k string) string {
			if k == "PERFORM_DATABASE_URL" {
				return sqliteURL(t)
			}
			if k == "PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS" {
				return value
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		s, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler), plugins(cfg)...)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(s.Handler())
		res, err := http.Get(srv.URL + "/.well-known/oauth-authorization-server")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		s.Close()
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil || m["registration_endpoint"] == nil {
			t.Fatalf("%q: the metadata %s", value, body)
		}
		if got := m["client_id_metadata_document_supported"] == true; got != offered {
			t.Errorf("PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS=%q: client_id_metadata_document_supported %v; want %v", value, got, offered)
		}
	}
}

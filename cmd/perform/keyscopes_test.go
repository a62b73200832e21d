package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/server"
)

// key scopes adds billing to a key made without it, and a running server
// (another process, as far as the CLI knows) lets the key's very next
// request in; --remove takes it away again. The change is audited; an
// unknown scope, a change naming nothing, one leaving no scope and a
// revoked key are refused with sentences.
func TestKeyScopesCommand(t *testing.T) {
	t.Parallel()
	for engine, dbURL := range databases(t) {
		t.Run(engine, func(t *testing.T) {
			db := dbURL(t)
			perform(t, db, "studio", "create", "--name", "Scopes", "--slug", "scopes")
			created := perform(t, db, "key", "create", "--studio", "scopes", "--name", "zapier", "--scopes", "studio:read,studio:write")
			key := strings.TrimSpace(created.stdout)
			if created.code != 0 || !auth.WellFormed(key) {
				t.Fatalf("key create: %+v", created)
			}
			cfg, err := config.FromEnv(func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			cfg.DatabaseURL = db
			s, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(s.Handler())
			defer func() {
				srv.Close()
				s.Close()
			}()
			charges := func() int { return statusOf(t, srv.URL+"/v1/automation/charges", key) }
			if got := charges(); got != 403 {
				t.Fatalf("a key without billing read the charges: %d", got)
			}
			prefix := auth.Display(key)
			if r := perform(t, db, "key", "scopes", prefix, "--add", "billing"); r.code != 0 ||
				!strings.Contains(r.stdout, "had studio:read,studio:write and now has studio:read,studio:write,billing") {
				t.Fatalf("key scopes --add: %+v", r)
			}
			if got := charges(); got != 200 {
				t.Fatalf("the key's next request after billing was added: %d", got)
			}
			if r := perform(t, db, "key", "scopes", key, "--remove", "billing"); r.code != 0 || !strings.Contains(r.stdout, "now has studio:read,studio:write,") {
				t.Fatalf("key scopes --remove by the whole key: %+v", r)
			}
			if got := charges(); got != 403 {
				t.Fatalf("the key's next request after billing was removed: %d", got)
			}
			if r := perform(t, db, "key", "list", "--studio", "scopes"); !strings.Contains(r.stdout, " studio:read,studio:write ") {
				t.Fatalf("key list after the changes: %q", r.stdout)
			}
			if r := perform(t, db, "audit", "--studio", "scopes"); strings.Count(r.stdout, "perform key scopes") != 2 {
				t.Fatalf("audit: %q", r.stdout)
			}

			for _, tc := range []struct {
				args []string
				code int
				says string
			}{
				{[]string{prefix, "--add", "billing:write"}, 2, `"billing:write" is not a scope`},
				{[]string{prefix}, 2, "name the scopes"},
				{[]string{prefix, "--set", "billing", "--add", "studio:read"}, 2, "not both"},
				{[]string{prefix, "--remove", "studio:read,studio:write"}, 2, "revoke it"},
				{[]string{"--add", "billing"}, 2, "give exactly one key"},
				{[]string{"pf_live_nothing", "--add", "billing"}, 1, "no API key has the prefix or id"},
			} {
				if r := perform(t, db, append([]string{"key", "scopes"}, tc.args...)...); r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
					t.Errorf("key scopes %q: %+v; want exit %d saying %q", tc.args, r, tc.code, tc.says)
				}
			}
			perform(t, db, "key", "revoke", prefix)
			if r := perform(t, db, "key", "scopes", prefix, "--add", "billing"); r.code != 1 || !strings.Contains(r.stderr, "was revoked") {
				t.Fatalf("a revoked key: %+v", r)
			}
		})
	}
}

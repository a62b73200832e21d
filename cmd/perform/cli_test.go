package main

import (
	"context"
	"flag"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// Every flag a command parses is in perform help and in the command's -h:
// the lists come from the flag sets themselves, so none can be left out.
func TestHelpListsEveryFlag(t *testing.T) {
	db := sqliteURL(t)
	help := perform(t, db, "help")
	if help.code != 0 {
		t.Fatalf("help: %+v", help)
	}
	for _, c := range commands() {
		fs := flagsOf(c)
		if c.run == nil {
			continue
		}
		if fs == nil {
			t.Errorf("%s: -h gave no flag set", c.name)
			continue
		}
		one := perform(t, db, append(strings.Fields(c.name), "-h")...)
		if one.code != 0 || !strings.Contains(one.stdout, "Usage: perform "+c.name) {
			t.Errorf("%s -h: %+v", c.name, one)
		}
		fs.VisitAll(func(f *flag.Flag) {
			for where, text := range map[string]string{"perform help": help.stdout, c.name + " -h": one.stdout} {
				if !strings.Contains(text, "--"+f.Name+" ") {
					t.Errorf("%s does not list --%s of %s", where, f.Name, c.name)
				}
			}
		})
	}
	serve := perform(t, db, "serve", "-h")
	for _, f := range []string{"--port", "--host", "--database-url", "--redis-url", "--public-url", "--log-level"} {
		if !strings.Contains(serve.stdout, f) {
			t.Errorf("serve -h does not list %s:\n%s", f, serve.stdout)
		}
	}
	for _, group := range []string{"key", "studio"} {
		r := perform(t, db, group, "-h")
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: perform "+group+" COMMAND") || !strings.Contains(r.stdout, group+" create") {
			t.Errorf("%s -h: %+v", group, r)
		}
		if r := perform(t, db, group); r.code != 2 || !strings.Contains(r.stderr, group+" create") {
			t.Errorf("%s alone: %+v", group, r)
		}
	}
	if r := perform(t, db, "key", "-h"); !strings.Contains(r.stdout, "key revoke") || !strings.Contains(r.stdout, "--studio") {
		t.Errorf("key -h lists no subcommands or flags: %s", r.stdout)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version", "-version"} {
		r := perform(t, sqliteURL(t), arg)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "perform ") || !strings.Contains(r.stdout, "go1.") {
			t.Errorf("%s: %+v", arg, r)
		}
	}
}

// key revoke takes the whole key as pasted, and never repeats it.
func TestRevokeByWholeKey(t *testing.T) {
	for engine, database := range databases(t) {
		t.Run(engine, func(t *testing.T) {
			db := database(t)
			perform(t, db, "studio", "create", "--name", "Revoke", "--slug", "revoke")
			created := perform(t, db, "key", "create", "--studio", "revoke", "--name", "pasted")
			key := strings.TrimSpace(created.stdout)
			if created.code != 0 || !strings.HasPrefix(key, "pf_live_") {
				t.Fatalf("key create: %+v", created)
			}
			// A key with the right prefix but another secret is not this key.
			forged := key[:len(key)-4] + "AAAA"
			if forged == key {
				forged = key[:len(key)-4] + "BBBB"
			}
			r := perform(t, db, "key", "revoke", forged)
			if r.code != 1 || !strings.Contains(r.stderr, "is not it") || strings.Contains(r.stderr+r.stdout, forged) {
				t.Fatalf("revoke with a forged key: %+v", r)
			}
			r = perform(t, db, "key", "revoke", key)
			if r.code != 0 || !strings.Contains(r.stdout, "Revoked key "+auth.Display(key)+" ") || strings.Contains(r.stdout+r.stderr, key) {
				t.Fatalf("revoke with the whole key: %+v", r)
			}
			if r := perform(t, db, "key", "list", "--studio", "revoke"); !strings.Contains(r.stdout, "revoked ") {
				t.Fatalf("the key is not revoked: %+v", r)
			}
		})
	}
}

// perform audit prints the method once, pages with --offset, and escapes
// what callers chose, so an id cannot clear the screen or forge a line.
func TestAuditEscapesAndPages(t *testing.T) {
	db := sqliteURL(t)
	perform(t, db, "studio", "create", "--name", "Audit", "--slug", "audit")
	st, err := store.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	studio, err := st.StudioBySlug(context.Background(), "audit")
	if err != nil {
		t.Fatal(err)
	}
	hostile := "trn_\x1b[2J\x1b[H\n2026-01-01T00:00:00Z\tDELETE /v1/automation/trainees 200"
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var events []domain.AuditEvent
	for i := range 3 {
		events = append(events, domain.AuditEvent{StudioID: studio.ID, At: at.Add(time.Duration(i) * time.Minute),
			Method: "GET", Route: "GET /v1/automation/trainees/{id}", Status: 200, Source: "api",
			CredentialID: "key_x", ResourceID: hostile, RequestID: "req_" + string(rune('a'+i))})
	}
	if err := st.InsertAudit(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	st.Close()

	r := perform(t, db, "audit", "--studio", "audit")
	if r.code != 0 {
		t.Fatalf("audit: %+v", r)
	}
	if strings.ContainsAny(r.stdout, "\x1b") {
		t.Errorf("audit printed an escape character: %q", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("3 events printed %d lines: %q", len(lines), r.stdout)
	}
	for _, l := range lines {
		if strings.Count(l, "GET") != 1 {
			t.Errorf("the method is not printed once: %q", l)
		}
		if !strings.Contains(l, `"trn_\x1b[2J\x1b[H\n2026-01-01T00:00:00Z\tDELETE`) {
			t.Errorf("the id is not escaped as Go would quote it: %q", l)
		}
	}
	paged := perform(t, db, "audit", "--studio", "audit", "--limit", "1", "--offset", "1")
	if paged.code != 0 || !regexp.MustCompile(`req_b\s*$`).MatchString(strings.TrimSpace(paged.stdout)) ||
		!strings.Contains(paged.stderr, "Showing events 2 to 2 of 3") {
		t.Errorf("--limit 1 --offset 1: %+v", paged)
	}
}

// key create --kind platform mints an agent platform's key: public:read
// only, no --scopes, and an unknown kind is refused.
func TestKeyCreatePlatformKind(t *testing.T) {
	db := sqliteURL(t)
	perform(t, db, "studio", "create", "--name", "Agents", "--slug", "agents")
	if r := perform(t, db, "key", "create", "--studio", "agents", "--name", "bot", "--kind", "robot"); r.code != 2 || !strings.Contains(r.stderr, "is not a key kind") {
		t.Fatalf("unknown kind: %+v", r)
	}
	if r := perform(t, db, "key", "create", "--studio", "agents", "--name", "bot", "--kind", "platform", "--scopes", "studio:read"); r.code != 2 || !strings.Contains(r.stderr, "takes no scopes") {
		t.Fatalf("platform key with scopes: %+v", r)
	}
	r := perform(t, db, "key", "create", "--studio", "agents", "--name", "bot", "--kind", "platform")
	if r.code != 0 || !strings.HasPrefix(strings.TrimSpace(r.stdout), "pf_live_") || !strings.Contains(r.stderr, "agent platform key") {
		t.Fatalf("platform key: %+v", r)
	}
	st, err := store.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k, _, err := st.APIKeyByHash(context.Background(), auth.Hash(strings.TrimSpace(r.stdout)))
	if err != nil || k.Kind != string(auth.KindPlatformKey) || strings.Join(k.Scopes, " ") != auth.ScopePublicRead {
		t.Fatalf("stored key: %+v, %v", k, err)
	}
}

// studio settings shows a studio's settings and turns the trainees'
// WhatsApp assistant on and off, keeping the other settings.
func TestStudioSettingsTurnsTheTraineeAssistantOnAndOff(t *testing.T) {
	t.Parallel()
	db := sqliteURL(t)
	perform(t, db, "studio", "create", "--name", "Set", "--slug", "set")
	if r := perform(t, db, "studio", "settings", "--studio", "set"); r.code != 0 || !strings.Contains(r.stdout, "trainee assistant off") {
		t.Fatalf("show: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--trainee-assistant", "maybe"); r.code != 2 || !strings.Contains(r.stderr, "must be on or off") {
		t.Fatalf("a bad value: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "nope", "--trainee-assistant", "on"); r.code != 1 || !strings.Contains(r.stderr, "no studio has the slug") {
		t.Fatalf("an unknown studio: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--trainee-assistant", "on"); r.code != 0 || !strings.Contains(r.stdout, "time zone Asia/Jerusalem, trainee assistant on") {
		t.Fatalf("on: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--trainee-assistant", "off"); r.code != 0 || !strings.Contains(r.stdout, "trainee assistant off") {
		t.Fatalf("off: %+v", r)
	}
	// The first day of the week: the zone's custom (Sunday in Jerusalem) until set.
	if r := perform(t, db, "studio", "settings", "--studio", "set"); r.code != 0 || !strings.Contains(r.stdout, "weeks start on sunday") {
		t.Fatalf("the default week: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--week-starts-on", "Monday"); r.code != 0 || !strings.Contains(r.stdout, "weeks start on monday") {
		t.Fatalf("a Monday week: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--week-starts-on", "someday"); r.code != 2 || !strings.Contains(r.stderr, "--week-starts-on must be a day of the week") {
		t.Fatalf("a bad day: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--week-starts-on", "zone"); r.code != 0 || !strings.Contains(r.stdout, "weeks start on sunday") {
		t.Fatalf("back to the zone's custom: %+v", r)
	}
	// The morning digest's template.
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--digest-template", "Morning Digest"); r.code != 2 || !strings.Contains(r.stderr, "--digest-template must be") {
		t.Fatalf("a bad template name: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--digest-template", "morning_digest"); r.code != 0 || !strings.Contains(r.stdout, "trainee assistant off, morning digest template morning_digest") {
		t.Fatalf("a template: %+v", r)
	}
	if r := perform(t, db, "studio", "settings", "--studio", "set", "--digest-template", "none"); r.code != 0 || !strings.Contains(r.stdout, "morning digest template none") {
		t.Fatalf("no template: %+v", r)
	}
}

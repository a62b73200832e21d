package oauth_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// One address registers at most RegistrationsPerHour clients an hour (an
// IPv6 address counts with its /64); another address has its own budget,
// and the next hour a fresh one.
func TestRegistrationLimitPerAddress(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		for _, addrs := range [][3]string{
			{"203.0.113.5:4000", "203.0.113.5:4001", "203.0.113.6:4000"},
			{"[2001:db8:1::1]:4000", "[2001:db8:1::ffff]:4000", "[2001:db8:2::1]:4000"},
		} {
			for i := range 20 {
				e.register(fmt.Sprintf("https://app.example/cb%d", i), addrs[0])
			}
			status, out := e.registerRaw(`{"redirect_uris":["https://app.example/cb"]}`, addrs[1])
			if status != http.StatusTooManyRequests || out["error"] == "" || !strings.Contains(fmt.Sprint(out["error_description"]), "20") {
				t.Fatalf("the 21st registration from %s: %d %v", addrs[1], status, out)
			}
			e.register("https://app.example/other", addrs[2])
		}
		e.clock.Advance(time.Hour)
		e.register("https://app.example/next-hour", "203.0.113.5:4000")
	})
}

// A registration is bounded: how many redirect URIs, how long each, how
// large the body.
func TestRegistrationSize(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		uris := func(n, size int) string {
			var list []string
			for i := range n {
				u := fmt.Sprintf("https://app.example/cb%d/", i)
				list = append(list, u+strings.Repeat("a", max(size-len(u), 0)))
			}
			b, _ := json.Marshal(list)
			return string(b)
		}
		for _, c := range []struct {
			name, body, code string
		}{
			{"eleven redirect URIs", `{"redirect_uris":` + uris(11, 30) + `}`, "invalid_redirect_uri"},
			{"a redirect URI of 1025 bytes", `{"redirect_uris":` + uris(1, 1025) + `}`, "invalid_redirect_uri"},
			{"a body over 16 KiB", `{"redirect_uris":["https://app.example/cb"],"software_statement":"` + strings.Repeat("x", 16<<10) + `"}`, "invalid_client_metadata"},
		} {
			status, out := e.registerRaw(c.body, "")
			if status != http.StatusBadRequest || out["error"] != c.code || out["error_description"] == "" {
				t.Errorf("%s: %d %v; want 400 %s", c.name, status, out, c.code)
			}
		}
		// The most that is allowed still registers.
		if status, out := e.registerRaw(`{"redirect_uris":`+uris(10, 1024)+`}`, ""); status != http.StatusCreated {
			t.Fatalf("ten redirect URIs of 1024 bytes: %d %v", status, out)
		}
	})
}

// A registered client that no grant ever used is deleted by the sweep a
// day after it registered; one with a grant stays.
func TestUnusedClientsExpire(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		unused := e.register("https://unused.example/cb", "")
		used := e.register("https://used.example/cb", "")
		e.grant(used, "https://used.example/cb")
		e.clock.Advance(23 * time.Hour)
		e.register("https://later.example/cb", "") // a sweep, too early for either
		if _, err := st.OAuth().OAuthClient(ctx, unused); err != nil {
			t.Fatalf("the unused client is gone before a day: %v", err)
		}
		e.clock.Advance(2 * time.Hour)
		fresh := e.register("https://fresh.example/cb", "") // runs the sweep
		if _, err := st.OAuth().OAuthClient(ctx, unused); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the unused client is still there a day on: %v", err)
		}
		for _, id := range []string{used, fresh} {
			if _, err := st.OAuth().OAuthClient(ctx, id); err != nil {
				t.Fatalf("client %s was deleted: %v", id, err)
			}
		}
		// The client that was used still works.
		e.grant(used, "https://used.example/cb")
	})
}

// Registration refuses what would deceive on the consent page or break
// the store, each with RFC 7591's error shape and a sentence naming it.
func TestRegistrationRefuses(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		const ok = `"redirect_uris":["https://app.example/cb"]`
		for _, c := range []struct {
			name, body, code, says string
		}{
			{"a right-to-left override in the name", `{"client_name":"Good App\u202egnp.exe",` + ok + `}`, "invalid_client_metadata", "client_name"},
			{"a right-to-left override, raw", "{\"client_name\":\"Good App\u202egnp.exe\"," + ok + "}", "invalid_client_metadata", "client_name"},
			{"a left-to-right isolate in the name", `{"client_name":"App\u2066x\u2069",` + ok + `}`, "invalid_client_metadata", "client_name"},
			{"a right-to-left mark in the name", `{"client_name":"App\u200f",` + ok + `}`, "invalid_client_metadata", "client_name"},
			{"a javascript: logo_uri", `{"logo_uri":"javascript:alert(1)",` + ok + `}`, "invalid_client_metadata", "logo_uri"},
			{"a JavaScript: client_uri", `{"client_uri":"JavaScript:alert(1)",` + ok + `}`, "invalid_client_metadata", "client_uri"},
			{"a data: logo_uri", `{"logo_uri":"data:image/svg+xml;base64,PHN2Zz4=",` + ok + `}`, "invalid_client_metadata", "logo_uri"},
			{"a vbscript: client_uri", `{"client_uri":"vbscript:msgbox",` + ok + `}`, "invalid_client_metadata", "client_uri"},
			{"a javascript: tos_uri", `{"tos_uri":"javascript:x",` + ok + `}`, "invalid_client_metadata", "tos_uri"},
			{"a relative policy_uri", `{"policy_uri":"/policy",` + ok + `}`, "invalid_client_metadata", "policy_uri"},
			{"two objects back to back", `{` + ok + `}{` + ok + `}`, "invalid_client_metadata", "one JSON object"},
			{"an object then garbage", `{` + ok + `} x`, "invalid_client_metadata", "one JSON object"},
			{"invalid UTF-8 in a redirect URI", "{\"redirect_uris\":[\"https://app.example/c\xffb\"]}", "invalid_redirect_uri", "redirect_uris[0]"},
			{"a lone surrogate in a redirect URI", `{"redirect_uris":["https://app.example/c\ud800b"]}`, "invalid_redirect_uri", "redirect_uris[0]"},
			{"NUL in a redirect URI", `{"redirect_uris":["https://app.example/c\u0000b"]}`, "invalid_redirect_uri", "redirect_uris[0]"},
			{"a bidi control in a redirect URI", `{"redirect_uris":["https://app.example/c\u202eb"]}`, "invalid_redirect_uri", "redirect_uris[0]"},
			{"NUL in the name", `{"client_name":"a\u0000b",` + ok + `}`, "invalid_client_metadata", "client_name"},
			{"a zero-width space in the name", `{"client_name":"Per\u200bform",` + ok + `}`, "invalid_client_metadata", "U+200B"},
			{"a zero-width joiner in the name", `{"client_name":"Claude\u200dCode",` + ok + `}`, "invalid_client_metadata", "U+200D"},
			{"a byte order mark in the name", `{"client_name":"\ufeffPerform",` + ok + `}`, "invalid_client_metadata", "U+FEFF"},
			{"a newline in the name", `{"client_name":"Perform\nApproved",` + ok + `}`, "invalid_client_metadata", "U+000A"},
			{"a 10,000-character name", `{"client_name":"` + strings.Repeat("a", 10000) + `",` + ok + `}`, "invalid_client_metadata", "at most 100 characters"},
			{"invalid UTF-8 in the name", "{\"client_name\":\"a\xc3b\"," + ok + "}", "invalid_client_metadata", "client_name"},
			{"an escape character in contacts", `{"contacts":["a\u001b[2J"],` + ok + `}`, "invalid_client_metadata", "contacts[0]"},
			{"NUL in a member name", `{"x\u0000":1,` + ok + `}`, "invalid_client_metadata", "name"},
			{"an array, not an object", `[` + ok + `]`, "invalid_client_metadata", "object"},
		} {
			status, out := e.registerRaw(c.body, "")
			desc := fmt.Sprint(out["error_description"])
			if status != http.StatusBadRequest || out["error"] != c.code || !strings.Contains(desc, c.says) || !strings.HasSuffix(desc, ".") {
				t.Errorf("%s: %d %v; want 400 %s saying %q", c.name, status, out, c.code, c.says)
			}
		}
		// A name in Hebrew, with its own right-to-left text, is fine.
		if status, out := e.registerRaw(`{"client_name":"האפליקציה שלי",`+ok+`}`, ""); status != http.StatusCreated {
			t.Fatalf("a Hebrew name: %d %v", status, out)
		}
	})
}

// With a shared limiter (Redis, as Mount sets it up when the server has
// one), two instances count one address's registrations together.
func TestRegistrationLimitShared(t *testing.T) {
	opts, err := redis.ParseURL(storetest.RedisURL(t))
	must(t, err)
	rc := redis.NewClient(opts)
	t.Cleanup(func() { rc.Close() })
	limiter := ratelimit.NewRedis(rc, 3, time.Hour).WithPrefix("perform:test:oauth-register:" + ids.New(ids.Request) + ":")
	st := storetest.OpenSQLite(t)
	shared := func(o *oauth.Options) { o.RegistrationLimiter = limiter }
	a, b := newEnv(t, st, shared), newEnv(t, st, shared)
	a.register("https://app.example/1", "198.51.100.1:1")
	b.register("https://app.example/2", "198.51.100.1:2")
	a.register("https://app.example/3", "198.51.100.1:3")
	if status, out := b.registerRaw(`{"redirect_uris":["https://app.example/4"]}`, "198.51.100.1:4"); status != http.StatusTooManyRequests {
		t.Fatalf("the 4th registration across two instances: %d %v", status, out)
	}
}

// With the server's Redis down, the registration limit still holds per
// instance, as every other Redis limit does: Mount counts in memory while
// Redis does not answer, so of 25 registrations from one address the 21st
// is refused.
func TestRegistrationLimitWithRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there: every count in Redis fails at once
	rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { rc.Close() })
	st := storetest.OpenSQLite(t)
	mux := http.NewServeMux()
	oauth.Mount(oauth.Host{Store: st, Redis: rc, Handle: func(pattern string, h http.Handler, _ bool) { mux.Handle(pattern, h) }}, nil, oauth.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(auth.WithClientAddr(r.Context(), "203.0.113.9:4000")))
	}))
	t.Cleanup(srv.Close)
	created := 0
	for i := range 25 {
		res, err := http.Post(srv.URL+"/register", "application/json", strings.NewReader(fmt.Sprintf(`{"client_name":"App","redirect_uris":["https://app.example/cb%d"],"token_endpoint_auth_method":"none"}`, i)))
		must(t, err)
		res.Body.Close()
		switch {
		case res.StatusCode == http.StatusCreated:
			created++
		case res.StatusCode == http.StatusTooManyRequests && i >= 20:
		default:
			t.Fatalf("registration %d with Redis down: %d", i+1, res.StatusCode)
		}
	}
	if created != 20 {
		t.Fatalf("%d of 25 registrations were accepted with Redis down; the limit is 20", created)
	}
}

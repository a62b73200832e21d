package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/auth"
)

// recording is a link of the authenticator chain that notes its name on
// every request, then asks the link it wraps.
type recording struct {
	name  string
	next  auth.Authenticator
	mu    *sync.Mutex
	calls *[]string
}

func (r recording) Authenticate(ctx context.Context, req *http.Request) (*auth.Principal, error) {
	r.mu.Lock()
	*r.calls = append(*r.calls, r.name)
	r.mu.Unlock()
	return r.next.Authenticate(ctx, req)
}

// TestAuthnsRunBeforeEveryPlugin: the authenticator chain (WithAuthn) is
// built before any plug-in runs, whatever the order of the options, so a
// plug-in given first (/mcp here) and the lane both authenticate with the
// chain's last link; the links wrap in the order given.
func TestAuthnsRunBeforeEveryPlugin(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	link := func(name string) Authn {
		return func(_ *Parts, inner auth.Authenticator) (auth.Authenticator, error) {
			return recording{name: name, next: inner, mu: &mu, calls: &calls}, nil
		}
	}
	var seen auth.Authenticator
	mcp := func(p *Parts) error {
		seen = p.Authenticator()
		return mountGatedMCP(p)
	}
	s := newServer(t, testConfig(t), WithPlugin(mcp), WithAuthn(link("first")), WithAuthn(link("second")))
	if r, ok := seen.(recording); !ok || r.name != "second" {
		t.Fatalf("the plug-in given before the Authns saw %T %+v; want the chain's last link", seen, seen)
	}
	key := studioKey(t, s.Store(), "chain")

	if rec := postMCP(t, s, "192.0.2.1:1234", key, listTagsCall); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"result"`) {
		t.Fatalf("/mcp through the chain: %d %s", rec.Code, rec.Body)
	}
	mu.Lock()
	gotMCP := strings.Join(calls, ",")
	calls = nil
	mu.Unlock()
	if gotMCP != "second,first" {
		t.Fatalf("/mcp asked the links %q; want second,first (each wraps the one before)", gotMCP)
	}

	req := httptest.NewRequest("GET", "/v1/automation/validate", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	mu.Lock()
	gotLane := strings.Join(calls, ",")
	mu.Unlock()
	if rec.Code != 200 || gotLane != "second,first" {
		t.Fatalf("the lane answered %d and asked the links %q; want 200 through second,first", rec.Code, gotLane)
	}
}

// TestAuthnFailuresStopNew: an Authn that fails, or answers no
// authenticator, stops New with a sentence.
func TestAuthnFailuresStopNew(t *testing.T) {
	t.Parallel()
	failing := func(*Parts, auth.Authenticator) (auth.Authenticator, error) {
		return nil, errors.New("the sign-in needs PERFORM_PUBLIC_URL")
	}
	if _, err := New(context.Background(), testConfig(t), nil, WithAuthn(failing)); err == nil || !strings.Contains(err.Error(), "PERFORM_PUBLIC_URL") {
		t.Fatalf("a failing Authn must stop New: %v", err)
	}
	none := func(*Parts, auth.Authenticator) (auth.Authenticator, error) { return nil, nil }
	if _, err := New(context.Background(), testConfig(t), nil, WithAuthn(none)); err == nil || !strings.Contains(err.Error(), "answer the one it was given") {
		t.Fatalf("an Authn answering no authenticator must stop New: %v", err)
	}
}

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/browsertest"
	"github.com/otherwise/perform/internal/testkit"
)

// TestOAuthInBrowser runs the pages in headless Chromium: the app sends
// the browser to /authorize, the person signs in by code, approves, and
// lands on the app's redirect with a code; a second app is denied; the
// first is disconnected on the connected apps page, and its token stops
// working at once.
func TestOAuthInBrowser(t *testing.T) {
	t.Parallel()
	w := newASWorld(t, sqliteURL(t))
	br := browsertest.New(t)
	app := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		fmt.Fprintf(rw, "<!doctype html><p>app callback code=%s error=%s state=%s</p>", q.Get("code"), q.Get("error"), q.Get("state"))
	}))
	defer app.Close()
	callback := app.URL + "/callback"
	clientA := w.publicClient("http://127.0.0.1/callback") // any loopback port
	clientB := w.publicClient("http://127.0.0.1/callback")

	verifier, ch := pkce()
	params := authParams(clientA, callback, ch, "")
	br.Open(w.url + "/authorize?" + params.Encode())
	if u := br.URL(); !strings.HasPrefix(u, w.url+"/login?next=") {
		t.Fatalf("signed out, /authorize went to %s", u)
	}
	w.browserSignIn(br, "050-111-0009")
	br.MustShow("Test App", strings.TrimPrefix(app.URL, "http://"), "dynamic registration", "See the studio's trainees")
	br.Click(`button[value="approve"]`)
	landed, err := url.Parse(br.URL())
	if err != nil || !strings.HasPrefix(br.URL(), callback+"?") || landed.Query().Get("state") != params.Get("state") || landed.Query().Get("iss") != w.url {
		t.Fatalf("after approving: %s", br.URL())
	}
	code := landed.Query().Get("code")
	status, tok := w.exchange(clientA, code, callback, verifier)
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, tok)
	}

	_, ch2 := pkce()
	p2 := authParams(clientB, callback, ch2, "studio:read")
	br.Open(w.url + "/authorize?" + p2.Encode())
	br.Click(`button[value="deny"]`)
	br.MustShow("error=access_denied", "state="+p2.Get("state"))

	br.Open(w.url + "/apps")
	br.MustShow("Connected apps", "Test App", "See the studio's trainees", "Add and change trainees")
	at := tok["access_token"].(string)
	if status, _, _ := w.mcpStatus(at, toolsList); status != 200 {
		t.Fatalf("before disconnecting: %d", status)
	}
	br.Click(`form[action^="/apps/"] button`)
	br.MustShow("disconnected", "No apps are connected")
	if status, _, _ := w.mcpStatus(at, toolsList); status != 401 {
		t.Fatalf("the next /mcp request after disconnecting: %d", status)
	}
}

// browserSignIn signs br in on the sign-in page it is on, with the code
// the server writes to its log.
func (w *asWorld) browserSignIn(br *browsertest.Browser, phone string) {
	w.t.Helper()
	before := len(testkit.SentCodes(w.logs.String()))
	br.Type("#phone", phone)
	br.Click("button[type=submit]")
	br.Type("#code", w.waitCode(before))
	br.Click("button[type=submit]")
}

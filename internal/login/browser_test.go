package login_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/browsertest"
)

// TestBrowserSignIn signs in by code in headless Chromium: the protected
// page sends the browser to sign in, the code comes from the fake
// SmartSend, and the browser lands back where it was going.
func TestBrowserSignIn(t *testing.T) {
	e := newEnv(t, openSQLite(t), envOpts{})
	w := e.newWorld()
	br := browsertest.New(t)

	br.Open(e.srv.URL + "/private?from=browser")
	if u := br.URL(); !strings.HasPrefix(u, e.srv.URL+"/login?next=") {
		t.Fatalf("signed out, /private went to %s", u)
	}
	br.Type("#phone", national(*w.coach.Phone))
	br.Click("button[type=submit]")
	if u := br.URL(); u != e.srv.URL+"/login/code" {
		t.Fatalf("after the phone: %s", u)
	}
	br.MustShow("…1111", "6-digit code")
	br.Type("#code", e.codeFor(*w.coach.Phone, 1))
	br.Click("button[type=submit]")
	if u := br.URL(); u != e.srv.URL+"/private?from=browser" {
		t.Fatalf("after the code: %s", u)
	}
	br.MustShow("hello coach " + w.coach.ID)

	// Signed in, the sign-in page names the coach, and signs out.
	br.Open(e.srv.URL + "/login")
	br.MustShow("דנה לוי", "Sign out")
	br.Click("button[type=submit]")
	br.MustShow("Send me a code")
	br.Open(e.srv.URL + "/private")
	if u := br.URL(); !strings.HasPrefix(u, e.srv.URL+"/login?next=") {
		t.Fatalf("signed out again, /private went to %s", u)
	}
}

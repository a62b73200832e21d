package login_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/otherwise/perform/internal/browsertest"
	"github.com/otherwise/perform/internal/domain"
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

// TestBrowserChoosesStudio: a phone on two studios' records picks one in
// Chromium after the code, from a list that names each studio.
func TestBrowserChoosesStudio(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()
	other := domain.Studio{Name: "סטודיו שני", Slug: "second-" + strings.ToLower(randomSuffix())}
	must(t, st.CreateStudio(ctx, &other))
	tr := domain.Trainee{FirstName: "דנה", LastName: "לוי", Phone: *w.coach.Phone}
	must(t, st.Studio(other.ID).CreateTrainee(ctx, &tr))
	br := browsertest.New(t)

	br.Open(e.srv.URL + "/login?next=%2Fprivate")
	br.Type("#phone", *w.coach.Phone)
	br.Click("button[type=submit]")
	br.Type("#code", e.codeFor(*w.coach.Phone, 1))
	br.Click("button[type=submit]")
	if u := br.URL(); u != e.srv.URL+"/login/choose" {
		t.Fatalf("after the code: %s", u)
	}
	br.MustShow(w.studio.Name, "סטודיו שני", "coach", "trainee")
	if err := chromedp.Do(br.Context(), chromedp.Click(chromedp.CSS(`input[value="`+tr.ID+`"]`))); err != nil {
		t.Fatal(err)
	}
	br.Click("button[type=submit]")
	if u := br.URL(); u != e.srv.URL+"/private" {
		t.Fatalf("after the choice: %s", u)
	}
	br.MustShow("hello trainee " + tr.ID + " of " + other.ID)
}

package oauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

var ctx = context.Background()

// t0 is the tests' clock start.
var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// testCSRF is the fake browser's CSRF token.
const testCSRF = "csrf-of-the-test-browser"

// addrHeader sets the client address a request comes from (the server's
// trusted-proxy step would, in production).
const addrHeader = "X-Test-Client-Addr"

// fakeBrowser is a browser always signed in as one coach.
type fakeBrowser struct{ p oauth.Person }

func (b fakeBrowser) Person(*http.Request) (oauth.Person, bool) { return b.p, true }
func (b fakeBrowser) RequireSignIn(http.ResponseWriter, *http.Request) (oauth.Person, bool) {
	return b.p, true
}
func (b fakeBrowser) CSRFToken(*http.Request) string { return testCSRF }
func (b fakeBrowser) CheckCSRF(r *http.Request) bool { return r.PostFormValue("csrf") == testCSRF }

// env is the authorization server on a real store behind a real HTTP
// server on 127.0.0.1, with a coach signed in on every browser.
type env struct {
	t     *testing.T
	st    store.Store
	srv   *httptest.Server
	clock *storetest.FixedClock
	http  *http.Client // follows no redirects
}

func newEnv(t *testing.T, st store.Store, edit ...func(*oauth.Options)) *env {
	t.Helper()
	e := &env{t: t, st: st, clock: storetest.NewFixedClock(t0)}
	studio := domain.Studio{Name: "Studio", Slug: "s-" + strings.ToLower(ids.New(ids.Request)[20:])} // the random part: studios made in one millisecond differ
	must(t, st.CreateStudio(ctx, &studio))
	coach := domain.Coach{Name: "Dana", Active: true}
	must(t, st.Studio(studio.ID).CreateCoach(ctx, &coach))
	// The server gets only what oauth.Store names (no other method of st
	// to reach through a type assertion), so every test here holds it to
	// that interface.
	o := oauth.Options{Store: struct{ oauth.Store }{st}, Browser: fakeBrowser{oauth.Person{StudioID: studio.ID, Kind: "coach", SubjectID: coach.ID, Name: "Dana"}}, Now: e.clock.Now}
	for _, f := range edit {
		f(&o)
	}
	as := oauth.New(o)
	mux := http.NewServeMux()
	as.Register(mux)
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get(addrHeader); a != "" {
			r = r.WithContext(auth.WithClientAddr(r.Context(), a))
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	e.http = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return e
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// engines runs f on a fresh store of each engine.
func engines(t *testing.T, f func(t *testing.T, st store.Store)) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) { f(t, open(t)) })
	}
}

// send sends a request; addr, when set, is the client address it comes from.
func (e *env) send(req *http.Request, addr string) (int, string, http.Header) {
	e.t.Helper()
	if addr != "" {
		req.Header.Set(addrHeader, addr)
	}
	res, err := e.http.Do(req)
	must(e.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(e.t, err)
	return res.StatusCode, string(b), res.Header
}

// post sends a form to path.
func (e *env) post(path string, form url.Values) (int, string, http.Header) {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+path, strings.NewReader(form.Encode()))
	must(e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.send(req, "")
}

// registerRaw posts body to /register from addr ("" for the server's own view).
func (e *env) registerRaw(body, addr string) (int, map[string]any) {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+"/register", strings.NewReader(body))
	must(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	status, raw, _ := e.send(req, addr)
	var out map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		e.t.Fatalf("/register answered %d and not JSON: %q", status, raw)
	}
	return status, out
}

// register registers a public client with one redirect URI and answers its id.
func (e *env) register(redirect, addr string) string {
	e.t.Helper()
	raw, _ := json.Marshal(map[string]any{"client_name": "Test App", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	status, out := e.registerRaw(string(raw), addr)
	if status != http.StatusCreated {
		e.t.Fatalf("register: %d %v", status, out)
	}
	return out["client_id"].(string)
}

// pkce is a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func authParams(clientID, redirect, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-1"}}
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// grant takes a client through the consent page and the code exchange,
// and answers the token response.
func (e *env) grant(clientID, redirect string) map[string]any {
	e.t.Helper()
	verifier, challenge := pkce()
	req, _ := http.NewRequest("GET", e.srv.URL+"/authorize?"+authParams(clientID, redirect, challenge).Encode(), nil)
	status, page, hdr := e.send(req, "")
	var loc string
	switch status {
	case http.StatusOK:
		form := url.Values{"decision": {"approve"}}
		for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
			form.Add(m[1], htmlUnescape(m[2]))
		}
		st, body, h := e.post("/authorize", form)
		if st != http.StatusFound {
			e.t.Fatalf("consent: %d %s", st, body)
		}
		loc = h.Get("Location")
	case http.StatusFound:
		loc = hdr.Get("Location")
	default:
		e.t.Fatalf("/authorize: %d %s", status, page)
	}
	u, err := url.Parse(loc)
	must(e.t, err)
	code := u.Query().Get("code")
	if code == "" {
		e.t.Fatalf("no code in %s", loc)
	}
	st, body, _ := e.post("/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}, "client_id": {clientID}})
	if st != http.StatusOK {
		e.t.Fatalf("/token: %d %s", st, body)
	}
	var out map[string]any
	must(e.t, json.Unmarshal([]byte(body), &out))
	return out
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`).Replace(s)
}

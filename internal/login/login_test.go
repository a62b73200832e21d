package login_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/store"
)

// national is how a person types an Israeli E.164 number: "053-0011111".
func national(e164 string) string { return "0" + e164[4:6] + "-" + e164[6:] }

func TestSignInByCode(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{})
		w := e.newWorld()
		b := e.browser()

		// Without a session, a protected page sends the browser to sign in
		// and keeps where it was going.
		a := b.get("/private?x=1&y=%D7%90")
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login?next="+url.QueryEscape("/private?x=1&y=%D7%90") {
			t.Fatalf("GET /private signed out = %d %q", a.status, a.header.Get("Location"))
		}
		page := b.get(a.header.Get("Location"))
		if page.status != http.StatusOK || !strings.Contains(page.body, `name="next" value="/private?x=1&amp;y=%D7%90"`) {
			t.Fatalf("sign-in page = %d, want the next field: %s", page.status, page.body)
		}
		if got := page.header.Get("Cache-Control"); got != "no-store" {
			t.Fatalf("sign-in page Cache-Control = %q", got)
		}
		csrf := csrfIn(t, page)
		a = b.post("/login", url.Values{"csrf": {csrf}, "phone": {national(*w.coach.Phone)}, "next": {"/private?x=1&y=%D7%90"}})
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login/code" {
			t.Fatalf("POST /login = %d %q: %s", a.status, a.header.Get("Location"), a.body)
		}
		code := b.get("/login/code")
		if code.status != http.StatusOK || !strings.Contains(code.body, "…1111") || !strings.Contains(code.body, `name="code"`) {
			t.Fatalf("code page = %d: %s", code.status, code.body)
		}
		sent := e.codeFor(*w.coach.Phone, 1)
		if strings.Contains(code.body, sent) {
			t.Fatal("the code is on the page")
		}
		if strings.Contains(e.log.String(), sent) {
			t.Fatalf("with a gateway, the code is in the log: %s", e.log.String())
		}
		// The code may be typed with spaces.
		a = b.submitCode(csrfIn(t, code), sent[:3]+" "+sent[3:])
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/private?x=1&y=%D7%90" {
			t.Fatalf("POST /login/code = %d %q: %s", a.status, a.header.Get("Location"), a.body)
		}
		a = b.get("/private?x=1")
		want := "hello coach " + w.coach.ID + " of " + w.studio.ID
		if a.status != http.StatusOK || !strings.HasPrefix(a.body, want) {
			t.Fatalf("GET /private signed in = %d %q, want %q", a.status, a.body, want)
		}
		// The signed-in page names the person, right-to-left safe.
		a = b.get("/login")
		if a.status != http.StatusOK || !strings.Contains(a.body, `<strong><bdi dir="auto">דנה לוי</bdi></strong>`) || !strings.Contains(a.body, `<bdi dir="auto">`+w.studio.Name+`</bdi>`) {
			t.Fatalf("signed-in page = %d: %s", a.status, a.body)
		}
		// Signed in, /login?next= goes straight on.
		if a := b.get("/login?next=%2Fprivate"); a.status != http.StatusSeeOther || a.header.Get("Location") != "/private" {
			t.Fatalf("GET /login?next= signed in = %d %q", a.status, a.header.Get("Location"))
		}
		// The code worked once: the sign-in is gone.
		if a := b.submitCode(csrfIn(t, code), sent); a.status != http.StatusForbidden && a.status != http.StatusBadRequest {
			t.Fatalf("the code again = %d, want refused", a.status)
		}

		// A trainee signs in the same way, with the number typed as E.164.
		b2 := e.browser()
		a = b2.signIn(w.trainee.Phone, "")
		if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login" {
			t.Fatalf("trainee sign-in = %d %q", a.status, a.header.Get("Location"))
		}
		if a := b2.get("/private"); !strings.HasPrefix(a.body, "hello trainee "+w.trainee.ID) {
			t.Fatalf("trainee /private = %q", a.body)
		}
	})
}

func TestCookieFlags(t *testing.T) {
	st := openSQLite(t)
	for _, tc := range []struct {
		publicURL, session, signin string
		secure                     bool
	}{
		{"", "perform_session", "perform_signin", false},
		{"http://127.0.0.1:8080", "perform_session", "perform_signin", false},
		{"https://perform.example", "__Host-perform_session", "__Host-perform_signin", true},
	} {
		t.Run(tc.publicURL, func(t *testing.T) {
			e := newEnv(t, st, envOpts{publicURL: tc.publicURL})
			w := e.newWorld()
			// Straight to the handler: a __Host- cookie would not come back
			// over the test's plain http, and the header is what is checked.
			mux := http.NewServeMux()
			e.svc.Register(mux)
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest("GET", "/login", nil))
			signin := cookieNamed(t, rec.Result().Cookies(), tc.signin)
			checkFlags(t, signin, tc.secure)
			csrf := csrfIn(t, answer{body: rec.Body.String()})

			post := func(path string, form url.Values, cookies ...*http.Cookie) *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				for _, c := range cookies {
					r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
				}
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, r)
				return rec
			}
			if rec := post("/login", url.Values{"csrf": {csrf}, "phone": {*w.coach.Phone}}, signin); rec.Code != http.StatusSeeOther {
				t.Fatalf("POST /login = %d: %s", rec.Code, rec.Body)
			}
			code := e.codeFor(*w.coach.Phone, 1)
			rec = post("/login/code", url.Values{"csrf": {csrf}, "code": {code}}, signin)
			if rec.Code != http.StatusSeeOther {
				t.Fatalf("POST /login/code = %d: %s", rec.Code, rec.Body)
			}
			session := cookieNamed(t, rec.Result().Cookies(), tc.session)
			checkFlags(t, session, tc.secure)
			if session.MaxAge != int((7 * 24 * time.Hour).Seconds()) {
				t.Fatalf("session Max-Age = %d, want 7 days", session.MaxAge)
			}
			if cleared := cookieNamed(t, rec.Result().Cookies(), tc.signin); cleared.MaxAge >= 0 || cleared.Value != "" {
				t.Fatalf("the sign-in cookie was not cleared: %+v", cleared)
			}
			if e.svc.SessionCookieName() != tc.session {
				t.Fatalf("SessionCookieName = %q", e.svc.SessionCookieName())
			}
		})
	}
}

func cookieNamed(t *testing.T, cs []*http.Cookie, name string) *http.Cookie {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no cookie %s among %v", name, cs)
	return nil
}

func checkFlags(t *testing.T, c *http.Cookie, secure bool) {
	t.Helper()
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" || c.Secure != secure {
		t.Fatalf("cookie %s: HttpOnly=%v SameSite=%v Path=%q Domain=%q Secure=%v; want HttpOnly, Lax, /, no domain, Secure=%v",
			c.Name, c.HttpOnly, c.SameSite, c.Path, c.Domain, c.Secure, secure)
	}
	if len(c.Value) < 43 {
		t.Fatalf("cookie %s value %q is shorter than 256 bits", c.Name, c.Value)
	}
}

func TestCodeExpires(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()

	// At 9:59 the code still works.
	b := e.browser()
	_, csrf := b.startSignIn(*w.coach.Phone, "")
	code := e.codeFor(*w.coach.Phone, 1)
	e.clock.Advance(10*time.Minute - time.Second)
	if a := b.submitCode(csrf, code); a.status != http.StatusSeeOther {
		t.Fatalf("the code at 9:59 = %d: %s", a.status, a.body)
	}

	// At 10:00 it does not.
	b = e.browser()
	_, csrf = b.startSignIn(*w.coach.Phone, "")
	code = e.codeFor(*w.coach.Phone, 2)
	e.clock.Advance(10 * time.Minute)
	a := b.submitCode(csrf, code)
	if a.status != http.StatusBadRequest || !strings.Contains(a.body, "no longer works") {
		t.Fatalf("the code at 10:00 = %d: %s", a.status, a.body)
	}
	if a := b.get("/login/code"); a.status != http.StatusSeeOther || a.header.Get("Location") != "/login" {
		t.Fatalf("the code page after expiry = %d %q", a.status, a.header.Get("Location"))
	}
	if _, ok := e.svc.Person(requestWith(b)); ok {
		t.Fatal("signed in with an expired code")
	}
}

// requestWith is a request carrying b's cookies, for Person.
func requestWith(b *browser) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	u, _ := url.Parse(b.e.srv.URL)
	for _, c := range b.c.Jar.Cookies(u) {
		r.AddCookie(c)
	}
	return r
}

func TestFiveTries(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()

	// Four wrong codes, then the right one: signed in.
	b := e.browser()
	_, csrf := b.startSignIn(*w.coach.Phone, "")
	code := e.codeFor(*w.coach.Phone, 1)
	for i := 1; i <= 4; i++ {
		a := b.submitCode(csrf, wrong(code))
		if want := fmt.Sprintf("%d tries left", 5-i); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, want) {
			t.Fatalf("wrong code #%d = %d, want 422 with %q: %s", i, a.status, want, a.body)
		}
	}
	if a := b.submitCode(csrf, code); a.status != http.StatusSeeOther {
		t.Fatalf("the right code on the 5th try = %d: %s", a.status, a.body)
	}

	// Five wrong codes: the code is dead, the right one fails after.
	b = e.browser()
	_, csrf = b.startSignIn(*w.coach.Phone, "")
	code = e.codeFor(*w.coach.Phone, 2)
	for i := 1; i <= 5; i++ {
		a := b.submitCode(csrf, wrong(code))
		if i == 5 && (a.status != http.StatusBadRequest || !strings.Contains(a.body, "no longer works")) {
			t.Fatalf("the 5th wrong code = %d: %s", a.status, a.body)
		}
	}
	if a := b.submitCode(csrf, code); a.status != http.StatusBadRequest {
		t.Fatalf("the right code after five wrong ones = %d: %s", a.status, a.body)
	}
	if _, ok := e.svc.Person(requestWith(b)); ok {
		t.Fatal("signed in after five wrong codes")
	}
}

func wrong(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

func TestThrottlePerPhone(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{limits: login.Limits{PhoneCodes: 2, PhoneWindow: time.Hour}})
	w := e.newWorld()
	unknown := newPhone("1111")
	for _, ph := range []string{*w.coach.Phone, unknown} {
		for i := 1; i <= 2; i++ {
			if a, _ := e.browser().startSignIn(ph, ""); a.status != http.StatusSeeOther {
				t.Fatalf("%s: request #%d = %d", ph, i, a.status)
			}
		}
		// The third, from another browser too, is refused, whether or not
		// the number is on a record.
		a, _ := e.browser().startSignIn(national(ph), "")
		if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "Too many sign-in attempts") {
			t.Fatalf("%s: the third code = %d (Retry-After %q): %s", ph, a.status, a.header.Get("Retry-After"), a.body)
		}
	}
	if n := e.sentTo(*w.coach.Phone); n != 2 {
		t.Fatalf("%d codes were sent, want 2", n)
	}
	// Another number is not held back.
	if a, _ := e.browser().startSignIn(w.trainee.Phone, ""); a.status != http.StatusSeeOther {
		t.Fatalf("another phone = %d", a.status)
	}
	// The next window lets the phone in again.
	e.clock.Advance(time.Hour)
	if a := e.browser().signIn(*w.coach.Phone, ""); a.status != http.StatusSeeOther {
		t.Fatalf("after the window = %d: %s", a.status, a.body)
	}
}

func TestThrottlePerAddress(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{limits: login.Limits{AddrStarts: 3, AddrTries: 4, AddrWindow: 15 * time.Minute}})
	w := e.newWorld()
	mux := http.NewServeMux()
	e.svc.Register(mux)
	// from posts as a browser at addr would (its own sign-in cookie).
	from := func(addr, path string, form url.Values) *httptest.ResponseRecorder {
		g := httptest.NewRequest("GET", "/login", nil)
		g.RemoteAddr = addr
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, g)
		c := rec.Result().Cookies()[0]
		form.Set("csrf", csrfIn(t, answer{body: rec.Body.String()}))
		r := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.RemoteAddr = addr
		r.AddCookie(c)
		rec = httptest.NewRecorder()
		mux.ServeHTTP(rec, r)
		return rec
	}
	for i := 1; i <= 3; i++ {
		if rec := from("10.1.1.1:"+itoa(4000+i), "/login", url.Values{"phone": {newPhone()}}); rec.Code != http.StatusSeeOther {
			t.Fatalf("phone #%d from one address = %d", i, rec.Code)
		}
	}
	// The port does not make another client.
	if rec := from("10.1.1.1:5000", "/login", url.Values{"phone": {*w.coach.Phone}}); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("the 4th phone from one address = %d, want 429", rec.Code)
	}
	if rec := from("10.1.1.2:4000", "/login", url.Values{"phone": {newPhone()}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("another address = %d", rec.Code)
	}
	// Code tries are counted per address too, across browsers.
	for i := 1; i <= 4; i++ {
		if rec := from("10.2.2.2:1", "/login/code", url.Values{"code": {"123456"}}); rec.Code == http.StatusTooManyRequests {
			t.Fatalf("try #%d from one address was throttled", i)
		}
	}
	if rec := from("10.2.2.2:1", "/login/code", url.Values{"code": {"123456"}}); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("the 5th try from one address = %d, want 429", rec.Code)
	}
	e.clock.Advance(15 * time.Minute)
	if rec := from("10.1.1.1:1", "/login", url.Values{"phone": {newPhone()}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("after the window = %d", rec.Code)
	}
}

func TestNoEnumeration(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{})
		w := e.newWorld()
		unknown := newPhone("1111") // the same last digits as the coach's
		run := func(ph string) (answer, answer, answer) {
			b := e.browser()
			post, csrf := b.startSignIn(national(ph), "/private")
			page := b.get("/login/code")
			try := b.submitCode(csrf, "000000")
			return post, normalise(page, csrf), normalise(try, csrf)
		}
		kp, kc, kt := run(*w.coach.Phone)
		up, uc, ut := run(unknown)
		for _, pair := range [][2]answer{{kp, up}, {kc, uc}, {kt, ut}} {
			k, u := pair[0], pair[1]
			if k.status != u.status || k.body != u.body || !sameHeaders(k.header, u.header) {
				t.Fatalf("a known and an unknown phone got different answers:\n%d %v\n%s\n---\n%d %v\n%s", k.status, k.header, k.body, u.status, u.header, u.body)
			}
		}
		if n := e.sentTo(unknown); n != 0 {
			t.Fatalf("%d messages went to a number on no record", n)
		}
		if n := e.sentTo(*w.coach.Phone); n != 1 {
			t.Fatalf("%d messages went to the coach, want 1", n)
		}
	})
}

// normalise blanks the browser's own CSRF token, the one thing that
// differs between two browsers' pages.
func normalise(a answer, csrf string) answer {
	a.body = strings.ReplaceAll(a.body, csrf, "CSRF")
	return a
}

func sameHeaders(a, b http.Header) bool {
	skip := map[string]bool{"Date": true}
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if skip[k] {
			continue
		}
		if strings.Join(v, "\n") != strings.Join(b[k], "\n") {
			return false
		}
	}
	return true
}

func TestCSRF(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()
	b := e.browser()
	page := b.get("/login")
	csrf := csrfIn(t, page)
	for name, form := range map[string]url.Values{
		"no token":    {"phone": {*w.coach.Phone}},
		"wrong token": {"phone": {*w.coach.Phone}, "csrf": {flip(csrf)}},
	} {
		if a := b.post("/login", form); a.status != http.StatusForbidden || !strings.Contains(a.body, "expired") {
			t.Fatalf("POST /login with %s = %d: %s", name, a.status, a.body)
		}
	}
	// A browser without the sign-in cookie is refused even with a token.
	if a := e.browser().post("/login", url.Values{"phone": {*w.coach.Phone}, "csrf": {csrf}}); a.status != http.StatusForbidden {
		t.Fatalf("POST /login without the cookie = %d", a.status)
	}
	if n := e.sentTo(*w.coach.Phone); n != 0 {
		t.Fatalf("a refused form sent %d codes", n)
	}
	_, csrf = b.startSignIn(*w.coach.Phone, "")
	code := e.codeFor(*w.coach.Phone, 1)
	if a := b.submitCode("", code); a.status != http.StatusForbidden {
		t.Fatalf("POST /login/code without a token = %d", a.status)
	}
	if a := b.submitCode(csrf, code); a.status != http.StatusSeeOther {
		t.Fatalf("POST /login/code = %d: %s", a.status, a.body)
	}

	// The session's token guards the site's own forms and logout.
	private := b.get("/private")
	token := private.body[strings.Index(private.body, "csrf=")+5:]
	if token == "" || token == csrf {
		t.Fatalf("the session's CSRF token %q: want its own", token)
	}
	for name, form := range map[string]url.Values{"no token": {}, "the sign-in form's token": {"csrf": {csrf}}, "a wrong token": {"csrf": {flip(token)}}} {
		if a := b.post("/private", form); a.status != http.StatusForbidden {
			t.Fatalf("POST /private with %s = %d", name, a.status)
		}
		if a := b.post("/logout", form); a.status != http.StatusForbidden {
			t.Fatalf("POST /logout with %s = %d", name, a.status)
		}
	}
	if a := b.post("/private", url.Values{"csrf": {token}}); a.status != http.StatusOK || a.body != "accepted" {
		t.Fatalf("POST /private with the token = %d %q", a.status, a.body)
	}
	// Another session's token does not pass.
	b2 := e.browser()
	b2.signIn(w.trainee.Phone, "")
	other := b2.get("/private")
	if a := b.post("/private", url.Values{"csrf": {other.body[strings.Index(other.body, "csrf=")+5:]}}); a.status != http.StatusForbidden {
		t.Fatalf("POST /private with another session's token = %d", a.status)
	}
}

func TestLogout(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()
	b := e.browser()
	b.signIn(*w.coach.Phone, "")
	old := b.cookie("perform_session")
	page := b.get("/login")
	a := b.post("/logout", url.Values{"csrf": {csrfIn(t, page)}})
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/login" {
		t.Fatalf("POST /logout = %d %q", a.status, a.header.Get("Location"))
	}
	if b.cookie("perform_session") != nil {
		t.Fatal("the session cookie is still set")
	}
	// The old cookie, replayed, is no session: its row is gone.
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(old)
	if _, ok := e.svc.Person(r); ok {
		t.Fatal("the logged-out cookie still signs in")
	}
}

func TestSessionLifetime(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{})
	w := e.newWorld()

	// Idle for 12 hours: over.
	b := e.browser()
	b.signIn(*w.coach.Phone, "")
	e.clock.Advance(12*time.Hour - time.Second)
	if _, ok := e.svc.Person(requestWith(b)); !ok {
		t.Fatal("the session ended before 12 idle hours")
	}
	e.clock.Advance(12*time.Hour - time.Second)
	if _, ok := e.svc.Person(requestWith(b)); !ok {
		t.Fatal("a used session ended 12 hours after sign-in, not after 12 idle hours")
	}
	e.clock.Advance(12 * time.Hour)
	if _, ok := e.svc.Person(requestWith(b)); ok {
		t.Fatal("the session outlived 12 idle hours")
	}

	// Used every 11 hours, it still ends 7 days after sign-in.
	b = e.browser()
	b.signIn(w.trainee.Phone, "")
	start := e.clock.Now()
	for e.clock.Now().Sub(start) < 7*24*time.Hour-11*time.Hour {
		e.clock.Advance(11 * time.Hour)
		if _, ok := e.svc.Person(requestWith(b)); !ok {
			t.Fatalf("the session ended after %v of use", e.clock.Now().Sub(start))
		}
	}
	e.clock.Set(start.Add(7 * 24 * time.Hour))
	if _, ok := e.svc.Person(requestWith(b)); ok {
		t.Fatal("the session outlived 7 days")
	}

	// A coach made inactive is signed out at once.
	b = e.browser()
	b.signIn(*w.coach.Phone, "")
	w.coach.Active = false
	must(t, st.Studio(w.studio.ID).UpdateCoach(ctx, &w.coach))
	if _, ok := e.svc.Person(requestWith(b)); ok {
		t.Fatal("an inactive coach is still signed in")
	}
}

func TestNextRefusesOtherSites(t *testing.T) {
	st := openSQLite(t)
	e := newEnv(t, st, envOpts{limits: login.Limits{PhoneCodes: 100}})
	w := e.newWorld()
	for _, next := range []string{"//evil.com", "https://evil.com", `/\evil.com`, `/\/evil.com`, "///evil.com", "http:/evil.com", "javascript:alert(1)", "evil.com", "/%0d%0aSet-Cookie:x=1", "/ok\r\nLocation: //evil.com", "/%2F%2Fevil.com"} {
		t.Run(next, func(t *testing.T) {
			b := e.browser()
			page := b.get("/login?next=" + url.QueryEscape(next))
			if strings.ContainsAny(next, "\r\n") {
				// A control character breaks the text rule: refused outright.
				if page.status != http.StatusBadRequest || strings.Contains(page.body, "evil") {
					t.Fatalf("next=%q: %d %s", next, page.status, page.body)
				}
				return
			}
			if strings.Contains(page.body, "evil") {
				t.Fatalf("the page keeps next=%q: %s", next, page.body)
			}
			a, csrf := b.startSignIn(*w.coach.Phone, next)
			if a.status != http.StatusSeeOther {
				t.Fatalf("POST /login = %d", a.status)
			}
			a = b.submitCode(csrf, e.codeFor(*w.coach.Phone, e.sentTo(*w.coach.Phone)))
			loc := a.header.Get("Location")
			if a.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.Contains(loc, `\`) || strings.Contains(loc, "evil") {
				t.Fatalf("next=%q sent the browser to %q", next, loc)
			}
			u, err := url.Parse(e.srv.URL + "/x")
			must(t, err)
			if target, err := u.Parse(loc); err != nil || target.Host != u.Host {
				t.Fatalf("next=%q: %q resolves to host %v", next, loc, target)
			}
		})
	}
}

func TestCleanNext(t *testing.T) {
	for in, want := range map[string]string{
		"/authorize?client_id=a&state=b": "/authorize?client_id=a&state=b",
		"/private":                       "/private",
		"/a%20b?q=%D7%90":                "/a%20b?q=%D7%90",
		"":                               "",
		"//evil.com":                     "",
		"https://evil.com":               "",
		`/\evil.com`:                     "",
		"/login?next=/x":                 "",
		"/login/code":                    "",
		"/logout":                        "",
		"/%2F%2Fevil.com":                "",
		"/x\x00":                         "",
		"/" + strings.Repeat("a", 5000):  "",
	} {
		if got := login.CleanNext(in); got != want {
			t.Errorf("CleanNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzCleanNext(f *testing.F) {
	for _, s := range []string{"/authorize?x=1", "//evil.com", `/\evil.com`, "https://evil.com", "/%2F%2Fx", "/a/../..//b", "/?a=//b"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://perform.example/login")
	f.Fuzz(func(t *testing.T, in string) {
		out := login.CleanNext(in)
		if out == "" {
			return
		}
		if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") || strings.ContainsAny(out, "\\\r\n\t") {
			t.Fatalf("CleanNext(%q) = %q", in, out)
		}
		target, err := base.Parse(out)
		if err != nil || target.Host != base.Host || target.Scheme != base.Scheme {
			t.Fatalf("CleanNext(%q) = %q leaves the site: %v %v", in, out, target, err)
		}
		if again := login.CleanNext(out); again != out {
			t.Fatalf("CleanNext is not stable: %q -> %q -> %q", in, out, again)
		}
	})
}

// flip changes a token's first character.
func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

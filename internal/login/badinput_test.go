package login_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/store"
)

// Every field of every sign-in form and query answers 400 with the text
// rule's sentence when it holds NUL, a byte that is not UTF-8 or another
// control character, on both engines: never 500, never stored, never sent on.
func TestBadInputSweep(t *testing.T) {
	engines(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOpts{limits: login.Limits{PhoneCodes: 100, AddrStarts: 100, AddrTries: 100}})
		w := e.newWorld()
		bad := map[string]string{"NUL": "a\x00b", "invalid UTF-8": "a\xffb", "ESC": "a\x1b[2Jb", "CR": "a\rb", "C1": "a\u0085b"}
		refused := func(what string, a answer) {
			t.Helper()
			if a.status != http.StatusBadRequest || !strings.Contains(a.body, "must be text of valid UTF-8") {
				t.Errorf("%s: %d; want 400 with the text rule's sentence: %.300s", what, a.status, a.body)
			}
		}
		for badName, v := range bad {
			b := e.browser()
			page := b.get("/login")
			csrf := csrfIn(t, page)
			refused("GET /login next "+badName, b.get("/login?next="+url.QueryEscape("/authorize?x="+v)))
			refused("GET /login code "+badName, b.get("/login/code?x="+url.QueryEscape(v)))
			refused("GET /login/choose "+badName, b.get("/login/choose?x="+url.QueryEscape(v)))
			login := url.Values{"csrf": {csrf}, "phone": {national(*w.coach.Phone)}, "next": {"/apps"}}
			for field := range login {
				form := cloneWith(login, field, v)
				refused("POST /login "+field+" "+badName, b.post("/login", form))
			}
			refused("POST /login a bad name "+badName, b.post("/login", cloneWith(login, "x"+v, "1")))
			// A real sign-in underway: the code and choose forms.
			a := b.post("/login", login)
			if a.status != http.StatusSeeOther {
				t.Fatalf("POST /login: %d %s", a.status, a.body)
			}
			code := url.Values{"csrf": {csrfIn(t, b.get("/login/code"))}, "code": {"123456"}}
			for field := range code {
				refused("POST /login/code "+field+" "+badName, b.post("/login/code", cloneWith(code, field, v)))
			}
			choose := url.Values{"csrf": {code.Get("csrf")}, "person": {w.coach.ID}}
			for field := range choose {
				refused("POST /login/choose "+field+" "+badName, b.post("/login/choose", cloneWith(choose, field, v)))
			}
			refused("POST /logout csrf "+badName, b.post("/logout", url.Values{"csrf": {v}}))
		}
		// Nothing bad was counted as a try: the right code still signs in.
		b := e.browser()
		if a := b.signIn(*w.coach.Phone, ""); a.status != http.StatusSeeOther {
			t.Fatalf("signing in after the sweep: %d %s", a.status, a.body)
		}
	})
}

func cloneWith(v url.Values, field, value string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set(field, value)
	return out
}

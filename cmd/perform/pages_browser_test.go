package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/browsertest"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/webui"
)

// The sizes every page is checked at: a desktop and a phone.
var pageSizes = []struct {
	name          string
	width, height int
}{{"desktop", 1280, 900}, {"phone", 390, 844}}

// TestPagesInBrowser walks every browser page in Hebrew and in English,
// in headless Chromium, at a desktop's and a phone's width: the front
// page, privacy, terms, sign-in, the code (and a wrong one), the consent, signed in and
// connected apps. On each it checks the language and direction, that
// nothing scrolls sideways, that every button and field stays inside its
// card and is at least 44 px high, and the page's key sentences; and it
// keeps a screenshot of each in $PERFORM_SCREENSHOTS when it is set.
func TestPagesInBrowser(t *testing.T) {
	t.Parallel()
	w := newASWorld(t, sqliteURL(t))
	app := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, "<!doctype html><p>app callback code=%s</p>", r.URL.Query().Get("code"))
	}))
	defer app.Close()
	shots := browsertest.ScreenshotDir()
	if shots != "" {
		t.Logf("screenshots in %s", shots)
	}

	for _, l := range webui.Langs {
		t.Run(string(l), func(t *testing.T) {
			br := browsertest.New(t)
			text := func(key string, args ...any) string { return webui.Text(l, key, args...) }
			check := func(page string, want ...string) {
				t.Helper()
				for _, size := range pageSizes {
					br.Size(size.width, size.height)
					got := br.CheckLayout()
					if got.Lang != string(l) || got.Dir != l.Dir() {
						t.Errorf("%s at %s: lang=%q dir=%q, want %q %q", page, size.name, got.Lang, got.Dir, l, l.Dir())
					}
					if got.ScrollWidth > got.InnerWidth {
						t.Errorf("%s at %s scrolls sideways: %d px wide in a %d px window", page, size.name, got.ScrollWidth, got.InnerWidth)
					}
					for _, p := range got.Problems {
						t.Errorf("%s at %s: %s", page, size.name, p)
					}
					br.Screenshot(shots, fmt.Sprintf("%s-%s-%s", page, l, size.name))
				}
				br.MustShow(want...)
			}

			// The switch's link sets the language, and the cookie keeps it.
			br.Open(w.url + "/?lang=" + string(l))
			check("home", text("home.url"), w.url+"/mcp", text("home.connect"), text("nav.privacy"))
			if got := browsertest.Eval[string](br, `document.getElementById("mcp-url").innerText`); got != w.url+"/mcp" {
				t.Errorf("the front page's MCP address = %q, want %q", got, w.url+"/mcp")
			}
			br.Open(w.url + "/privacy")
			check("privacy", text("title.privacy"), "Anthropic", "[REDACTED]")
			br.Open(w.url + "/terms")
			check("terms", text("title.terms"))

			// A wrong address: a page in both languages, this one first,
			// each in its own direction, with a way home.
			br.Open(w.url + "/no/such/page")
			check("notfound", text("title.notfound"), "/no/such/page", text("notfound.home"),
				webui.Text(otherLang(l), "title.notfound"), webui.Text(otherLang(l), "notfound.home"))
			if got := browsertest.Eval[string](br, `(document.querySelector("section.other") || {}).dir || ""`); got != otherLang(l).Dir() {
				t.Errorf("the 404 page's other language reads %q, want %q", got, otherLang(l).Dir())
			}
			br.Click(`main p.go a`)
			if got := br.URL(); strings.TrimSuffix(got, "/") != w.url {
				t.Errorf("the 404 page's way home went to %s", got)
			}

			// An app asks for a trainee's training memory: sign in, consent.
			client := w.publicClient("http://127.0.0.1/callback")
			verifier, ch := pkce()
			br.Open(w.url + "/authorize?" + authParams(client, app.URL+"/callback", ch, "training:read health:write").Encode())
			check("signin", text("login.intro"), text("login.send"))
			before := len(testkit.SentCodes(w.logs.String()))
			br.Type("#phone", "050-111-0001")
			br.Click("button[type=submit]")
			check("code", text("login.code"), "…0001")
			// The phone reads left to right in either language.
			if got := browsertest.Eval[string](br, `(document.querySelector("main p bdi[dir=ltr]") || {}).innerText || ""`); !strings.HasSuffix(got, "0001") {
				t.Errorf("the code page's phone is not in a left-to-right isolate: %q", got)
			}
			code := w.waitCode(before)
			// A wrong code first: the code page again, saying so.
			wrong := string('0'+(code[0]-'0'+1)%10) + code[1:]
			br.Type("#code", wrong)
			br.Click("button[type=submit]")
			check("code-wrong", text("login.err.wrong", 4))
			br.Type("#code", code)
			br.Click("button[type=submit]")
			her := webui.Role(l, "trainee", "female")
			check("consent", "Test App", "נועה", her, text("consent.able"),
				webui.ScopeWords(l, "training:read"), webui.ScopeWords(l, "health:write"), text("consent.allow"))
			if strings.Contains(br.Text(), "training:read") {
				t.Error("the consent page shows the scope's code, not only its words")
			}
			mustNotCallHer(t, br, "consent")
			// The switch on the consent page keeps the app's request: the
			// same consent in the other language, and back.
			for _, to := range []webui.Lang{otherLang(l), l} {
				br.Click(`header nav a[lang="` + string(to) + `"]`)
				if got := browsertest.Eval[string](br, `document.documentElement.lang`); got != string(to) {
					t.Fatalf("the switch to %s gave lang=%q", to, got)
				}
				br.MustShow("Test App", webui.Text(to, "consent.allow"), webui.ScopeWords(to, "health:write"))
			}
			br.Click(`button[value="approve"]`)
			landed, err := url.Parse(br.URL())
			must(t, err)
			if status, tok := w.exchange(client, landed.Query().Get("code"), app.URL+"/callback", verifier); status != 200 {
				t.Fatalf("exchange: %d %v", status, tok)
			}

			br.Open(w.url + "/login")
			check("signedin", "נועה", her, text("login.signout"))
			mustNotCallHer(t, br, "signed in")

			// The Hebrew run shows the default zone (Asia/Jerusalem); the
			// English one a zone the studio set.
			zone := w.studioA.TimeZone()
			if l == webui.English {
				must(t, w.st.UpdateStudioSettings(context.Background(), w.studioA.ID, json.RawMessage(`{"timeZone":"America/New_York"}`)))
				ny, err := time.LoadLocation("America/New_York")
				must(t, err)
				zone = ny
			}
			br.Open(w.url + "/apps")
			grants, err := w.st.OAuth().PersonOAuthGrants(context.Background(), w.studioA.ID, w.trainee.ID)
			must(t, err)
			if len(grants) == 0 {
				t.Fatal("no grant after approving")
			}
			check("apps", text("title.apps"), "Test App", webui.ScopeWords(l, "health:write"),
				webui.Time(l, grants[0].CreatedAt, zone), text("apps.disconnect"))
			// Connected apps has a way back to the account and a way out.
			if !br.Has(`main a[href="/login"]`) || !br.Has(`main form[action="/logout"] button`) {
				t.Error("connected apps has no link back to the account or no sign-out")
			}
			br.MustShow(text("apps.account"), text("login.signout"))
			if s := br.Text(); strings.Contains(s, "UTC") || strings.Contains(s, "health:write") {
				t.Errorf("connected apps shows UTC or a scope's code:\n%s", s)
			}
		})
	}
}

// mustNotCallHer fails when the page calls נועה, a woman, by a man's
// role word (or by the form that names both, as if her gender were not
// on her record).
func mustNotCallHer(t *testing.T, br *browsertest.Browser, page string) {
	t.Helper()
	text := br.Text()
	for _, word := range []string{"מתאמן ", "מתאמן,", "מתאמן)", "מתאמן/ת", "מאמן "} {
		if strings.Contains(text, word) {
			t.Errorf("the %s page calls her %q:\n%s", page, strings.TrimSpace(word), text)
		}
	}
}

func otherLang(l webui.Lang) webui.Lang {
	if l == webui.Hebrew {
		return webui.English
	}
	return webui.Hebrew
}

// waitCode is the sign-in code the server logs after the before-th (a
// goroutine writes it).
func (w *asWorld) waitCode(before int) string {
	w.t.Helper()
	for range 500 {
		if all := testkit.SentCodes(w.logs.String()); len(all) > before {
			return all[len(all)-1].Code
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.t.Fatal("no sign-in code reached the log")
	return ""
}

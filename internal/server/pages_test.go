package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Result(), string(body)
}

// TestRootKeepsJSON: a client that does not ask for a page (no Accept,
// */*, application/json, what curl and SDKs send) gets the JSON it always
// got, byte for byte the same document; a browser gets the front page.
func TestRootKeepsJSON(t *testing.T) {
	t.Parallel()
	s := newServer(t, testConfig(t))
	want := map[string]any{"ok": true, "name": "Perform", "lane": "/v1/automation", "openapi": "/v1/automation/openapi.json",
		"health": "/healthz", "ready": "/readyz", "metrics": "/metrics"}
	for _, accept := range []string{"", "*/*", "application/json", "application/json, text/plain, */*"} {
		res, body := get(t, s.Handler(), "/", map[string]string{"Accept": accept, "Accept-Language": "he"})
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil || res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || !reflect.DeepEqual(got, want) {
			t.Errorf("Accept %q: %d %s %s", accept, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	res, body := get(t, s.Handler(), "/", map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.Contains(body, `<html lang="he" dir="rtl">`) || !strings.Contains(body, "http://example.com/mcp") {
		t.Errorf("a browser at /: %d %s", res.StatusCode, body)
	}
}

// TestFrontPageAddress: the front page names the /mcp address at
// PERFORM_PUBLIC_URL, in the language asked for, and the default language
// is PERFORM_DEFAULT_LANGUAGE's.
func TestFrontPageAddress(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.PublicURL = "https://perform.example"
	cfg.DefaultLanguage = "en"
	s := newServer(t, cfg)
	_, body := get(t, s.Handler(), "/", map[string]string{"Accept": "text/html"})
	if !strings.Contains(body, `<code class="url" id="mcp-url">https://perform.example/mcp</code>`) || !strings.Contains(body, `lang="en" dir="ltr"`) ||
		!strings.Contains(body, "Connect an AI app") {
		t.Errorf("the front page: %s", body)
	}
	// No sign-in is mounted on this server: the page does not offer it.
	if strings.Contains(body, `href="/login"`) {
		t.Errorf("the front page offers a sign-in the server does not serve: %s", body)
	}
	_, body = get(t, s.Handler(), "/?lang=he", map[string]string{"Accept": "text/html"})
	if !strings.Contains(body, `lang="he" dir="rtl"`) || !strings.Contains(body, "כתובת ה־MCP של השרת") {
		t.Errorf("the front page in Hebrew: %s", body)
	}
}

// TestPrivacyAndTerms: Perform's own text in either language, or the
// studio's (PERFORM_PRIVACY_FILE, PERFORM_TERMS_FILE), escaped and in
// its own direction.
func TestPrivacyAndTerms(t *testing.T) {
	t.Parallel()
	s := newServer(t, testConfig(t))
	for path, want := range map[string][2]string{
		"/privacy": {"The WhatsApp assistant (coaches)", "העוזר בוואטסאפ (למאמנים)"},
		"/terms":   {"Apps you connect", "אפליקציות שמחברים"},
	} {
		res, en := get(t, s.Handler(), path, map[string]string{"Accept-Language": "en-US"})
		_, he := get(t, s.Handler(), path, map[string]string{"Accept-Language": "he-IL"})
		if res.StatusCode != 200 || !strings.Contains(en, want[0]) || !strings.Contains(he, want[1]) || !strings.Contains(he, `dir="rtl"`) {
			t.Errorf("%s: %d\n%s\n%s", path, res.StatusCode, en, he)
		}
	}

	cfg := testConfig(t)
	cfg.PrivacyText = "# מה נשמר\nהסטודיו שומר <script>alert(1)</script> רק את מה שצריך.\n\n- שמות\n- טלפונים"
	cfg.TermsText = "Our own terms."
	s = newServer(t, cfg)
	_, body := get(t, s.Handler(), "/privacy", map[string]string{"Accept-Language": "en"})
	for _, want := range []string{`<h2 dir="auto">מה נשמר</h2>`, `&lt;script&gt;alert(1)&lt;/script&gt;`, `<ul dir="auto"><li>שמות</li><li>טלפונים</li></ul>`, "This text is the studio&#39;s own."} {
		if !strings.Contains(body, want) {
			t.Errorf("the studio's privacy text lacks %q: %s", want, body)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "Anthropic") {
		t.Errorf("the studio's privacy text is not alone or not escaped: %s", body)
	}
	_, body = get(t, s.Handler(), "/terms", map[string]string{"Accept-Language": "he"})
	if !strings.Contains(body, `<p dir="auto">Our own terms.</p>`) || !strings.Contains(body, "הנוסח הזה הוא של הסטודיו עצמו.") {
		t.Errorf("the studio's terms: %s", body)
	}
}

package webui

import (
	"html/template"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestFromAcceptLanguage(t *testing.T) {
	for _, c := range []struct {
		header string
		want   Lang
		ok     bool
	}{
		{"", "", false},
		{"he-IL", Hebrew, true},
		{"he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7", Hebrew, true},
		{"en-US,en;q=0.9,he;q=0.8", English, true},
		{"en-GB;q=0.5, he;q=0.6", Hebrew, true},
		{"fr-FR,fr;q=0.9,en;q=0.8", English, true},
		{"fr-FR,de", "", false},
		{"*", "", false},
		{"iw", Hebrew, true},                  // Hebrew's old code
		{"HE-il", Hebrew, true},               // any case
		{"he;q=0, en;q=0.1", English, true},   // 0 refuses
		{"he;q=0", "", false},                 // refused, nothing else
		{"he;q=0.5, he-IL;q=0", "", false},    // refused in any form
		{"en;q=0.5, he;q=0.5", English, true}, // a tie: the earlier
		{"en;q=1.5, he;q=0.2", Hebrew, true},  // a weight over 1 is no weight
		{"en;q=abc, he", Hebrew, true},        // nor is a word
		{"en;Q=0.9, he;q=0.8", English, true}, // Q in capitals
		{"  he  ;  q=0.7 , en ; q=0.6", Hebrew, true},
		{"en-US;q=0.001, he;q=0.000", English, true},
		{"english, hebrew", "", false},
		{strings.Repeat("x-foo, ", 400) + "he", "", false}, // past the 1 KiB read
	} {
		got, ok := FromAcceptLanguage(c.header)
		if got != c.want || ok != c.ok {
			t.Errorf("FromAcceptLanguage(%q) = %q %v, want %q %v", c.header, got, ok, c.want, c.ok)
		}
	}
}

// FuzzFromAcceptLanguage: any header gives a language the pages speak or
// none, the same each time, and only one the header names.
func FuzzFromAcceptLanguage(f *testing.F) {
	for _, s := range []string{"", "he-IL,he;q=0.9,en;q=0.8", "en;q=0", "*;q=0.1", "he;q=1.000", "iw,en;q=.5", ";;,,q=", "he;q=0.\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		l, ok := FromAcceptLanguage(header)
		if l2, ok2 := FromAcceptLanguage(header); l2 != l || ok2 != ok {
			t.Fatalf("not the same twice: %q %v then %q %v", l, ok, l2, ok2)
		}
		if !ok {
			if l != "" {
				t.Fatalf("no language, yet %q", l)
			}
			return
		}
		if !slices.Contains(Langs, l) {
			t.Fatalf("%q is not a language of the pages", l)
		}
		h := strings.ToLower(header)
		if l == Hebrew && !strings.Contains(h, "he") && !strings.Contains(h, "iw") || l == English && !strings.Contains(h, "en") {
			t.Fatalf("%q from a header that does not name it: %q", l, header)
		}
	})
}

func TestLanguageOrder(t *testing.T) {
	req := func(target, cookie, accept string) *http.Request {
		r := httptest.NewRequest("GET", target, nil)
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
		}
		if accept != "" {
			r.Header.Set("Accept-Language", accept)
		}
		return r
	}
	var got Lang
	capture := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = Language(r) })
	for _, c := range []struct {
		name      string
		r         *http.Request
		def, want Lang
	}{
		{"the parameter first", req("/?lang=en", "he", "he"), Hebrew, English},
		{"then the cookie", req("/", "en", "he"), Hebrew, English},
		{"then Accept-Language", req("/", "", "en-US"), Hebrew, English},
		{"then the default", req("/", "", "fr"), Hebrew, Hebrew},
		{"the default English", req("/", "", ""), English, English},
		{"a bad parameter is no choice", req("/?lang=xx", "", "he"), English, Hebrew},
		{"a bad cookie is no choice", req("/", "fr", ""), Hebrew, Hebrew},
	} {
		WithDefault(capture, c.def).ServeHTTP(httptest.NewRecorder(), c.r)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// Outside WithDefault, the fallback.
	if l := Language(req("/", "", "")); l != Fallback {
		t.Errorf("no default: %q", l)
	}
}

var testPage = NewPage(`{{define "content"}}<p id="p">{{t "login.sent" (ltr .Phone) .Minutes}}</p><p>{{t "apps.who" (auto .Name)}}</p>{{end}}`)

func TestRender(t *testing.T) {
	data := struct {
		Phone, Name string
		Minutes     int
	}{"…4567", `<script>alert(1)</script>`, 10}
	for _, c := range []struct {
		target, accept string
		lang, dir      string
		has            []string
	}{
		{"/login/code?lang=he", "", "he", "rtl", []string{`<bdi dir="ltr">…4567</bdi>`, "10 דקות", `href="/login/code?lang=en"`, "<title>כניסה · Perform</title>"}},
		{"/login/code", "en", "en", "ltr", []string{`If <bdi dir="ltr">…4567</bdi> is on`, "for 10 minutes", `href="/login/code?lang=he"`, "<title>Sign in · Perform</title>"}},
	} {
		r := httptest.NewRequest("GET", c.target, nil)
		r.Header.Set("Accept-Language", c.accept)
		rec := httptest.NewRecorder()
		Render(rec, r, http.StatusOK, testPage, data, "title.signin")
		body := rec.Body.String()
		if !strings.Contains(body, `<html lang="`+c.lang+`" dir="`+c.dir+`">`) || rec.Header().Get("Content-Language") != c.lang {
			t.Errorf("%s: not lang=%s dir=%s: %s", c.target, c.lang, c.dir, body)
		}
		for _, want := range c.has {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q: %s", c.target, want, body)
			}
		}
		if strings.Contains(body, "<script>") || !strings.Contains(body, `<bdi dir="auto">&lt;script&gt;`) {
			t.Errorf("%s: a typed name is not escaped in its own isolate: %s", c.target, body)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-store"} {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s: %s is %q; want %q", c.target, k, got, v)
			}
		}
		cookies := rec.Result().Cookies()
		set := len(cookies) == 1 && cookies[0].Name == CookieName && cookies[0].Value == c.lang && cookies[0].HttpOnly
		if set != strings.Contains(c.target, "lang=") {
			t.Errorf("%s: cookies %v", c.target, cookies)
		}
	}
}

// TestSwitchKeepsOnlyLocalNext: the switch's link repeats the page's
// query, but a next= that leaves the site is dropped.
func TestSwitchKeepsOnlyLocalNext(t *testing.T) {
	for target, want := range map[string]string{
		"/login?next=%2Fauthorize%3Fclient_id%3Dx": "/login?lang=en&next=%2Fauthorize%3Fclient_id%3Dx",
		"/login?next=%2F%2Fevil.com":               "/login?lang=en",
		"/login?next=https%3A%2F%2Fevil.com":       "/login?lang=en",
		"/authorize?client_id=a&state=b":           "/authorize?client_id=a&lang=en&state=b",
	} {
		if got := switchURL(httptest.NewRequest("GET", target, nil), English); got != want {
			t.Errorf("switch of %s = %s, want %s", target, got, want)
		}
	}
	if got := switchURL(httptest.NewRequest("POST", "/login/code?x=1", nil), Hebrew); got != "/login/code?lang=he" {
		t.Errorf("switch of a POST = %s", got)
	}
}

var verb = regexp.MustCompile(`%(\[\d\])?[sdv]`)

// TestCatalogue: both languages say every message, with the same
// arguments, and the Hebrew is Hebrew.
func TestCatalogue(t *testing.T) {
	verbs := func(m string) []string {
		var out []string
		for i, v := range verb.FindAllString(m, -1) {
			if !strings.Contains(v, "[") { // %s is %[i+1]s
				v = "%[" + string(rune('1'+i)) + "]" + v[1:]
			}
			out = append(out, v)
		}
		slices.Sort(out)
		return out
	}
	for key, en := range catalogue[English] {
		he, ok := catalogue[Hebrew][key]
		if !ok {
			t.Errorf("%s has no Hebrew", key)
			continue
		}
		if !slices.Equal(verbs(en), verbs(he)) {
			t.Errorf("%s: English takes %v, Hebrew %v", key, verbs(en), verbs(he))
		}
		hebrew := strings.IndexFunc(he, func(r rune) bool { return unicode.Is(unicode.Hebrew, r) }) >= 0
		if !hebrew && key != "title.home" && key != "time.format" {
			t.Errorf("%s: the Hebrew %q has no Hebrew letter", key, he)
		}
	}
	for key := range catalogue[Hebrew] {
		if _, ok := catalogue[English][key]; !ok {
			t.Errorf("%s has no English", key)
		}
	}
}

func TestTextAndHTML(t *testing.T) {
	if got := Text(Hebrew, "login.err.phone", LTR("050-123-4567"), LTR("+972 50 123 4567")); !strings.Contains(got, "\u2066+972 50 123 4567\u2069") {
		t.Errorf("an LTR argument in plain text is not isolated: %q", got)
	}
	if got := Text(Hebrew, "title.connect", Name("Test App")); got != "לחבר את \u2068Test App\u2069?" {
		t.Errorf("a name in a title: %q", got)
	}
	if got := HTML(English, "apps.who", "<b>&"); got != template.HTML("Signed in as &lt;b&gt;&amp;.") {
		t.Errorf("a plain argument is not escaped: %q", got)
	}
	if got := ScopeWords(Hebrew, "training:read"); got != catalogue[Hebrew]["scope.training:read"] {
		t.Errorf("scope words: %q", got)
	}
	if got := ScopeWords(Hebrew, "made:up"); got != "made:up" {
		t.Errorf("an unknown scope: %q", got)
	}
}

func TestTime(t *testing.T) {
	jerusalem, err := time.LoadLocation("Asia/Jerusalem")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	at := time.Date(2026, 12, 4, 22, 30, 0, 0, time.UTC) // already the 5th in Israel
	if got := Time(English, at, jerusalem); got != "5 Dec 2026, 00:30" {
		t.Errorf("English: %q", got)
	}
	if got := Time(Hebrew, at, jerusalem); got != "5 בדצמבר 2026, 00:30" {
		t.Errorf("Hebrew: %q", got)
	}
	if got := Time(English, at, nil); got != "4 Dec 2026, 22:30" {
		t.Errorf("no zone: %q", got)
	}
}

func TestWantsHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		"": false, "*/*": false, "application/json": false,
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8": true,
		"TEXT/HTML": true, "application/json, text/html;q=0.1": true, "text/html;q=0": false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Accept", accept)
		if got := WantsHTML(r); got != want {
			t.Errorf("Accept %q: %v, want %v", accept, got, want)
		}
	}
}

func TestParseDoc(t *testing.T) {
	d, err := ParseDoc("First line\nsame paragraph.\r\n\n# Heading\n- one\n- two <b>\nAfter the list.\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{{Text: "First line same paragraph."}, {Heading: "Heading"}, {Items: []string{"one", "two <b>"}}, {Text: "After the list."}}
	if len(d.Blocks) != len(want) {
		t.Fatalf("blocks %+v", d.Blocks)
	}
	for i := range want {
		if d.Blocks[i].Heading != want[i].Heading || d.Blocks[i].Text != want[i].Text || !slices.Equal(d.Blocks[i].Items, want[i].Items) {
			t.Errorf("block %d = %+v, want %+v", i, d.Blocks[i], want[i])
		}
	}
	for name, text := range map[string]string{
		"empty": " \n\n", "not UTF-8": "a\xffb", "a NUL": "a\x00b", "a control": "a\x1bb",
		"too long": strings.Repeat("a", MaxDocBytes+1),
	} {
		if _, err := ParseDoc(text); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	// Perform's own texts read, in both languages.
	for _, name := range []string{"privacy", "terms"} {
		for _, l := range Langs {
			if len(DefaultDoc(name, l).Blocks) < 5 {
				t.Errorf("%s in %s is short", name, l)
			}
		}
	}
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/authorize?client_id=x": "/authorize?client_id=x", "/apps": "/apps",
		"": "", "//evil.com": "", "https://evil.com": "", `/\evil.com`: "", "/%2F%2Fevil.com": "",
		"evil.com": "", "javascript:alert(1)": "", "/ok\r\nx": "", "http:/evil.com": "",
	} {
		if got := LocalPath(in); got != want {
			t.Errorf("LocalPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOnlyRenderWritesPages: no package but this one sets an HTML content
// type, so every page carries Render's headers (nosniff, no framing, no
// caching). The MCP apps' views are resources read over MCP, not pages.
func TestOnlyRenderWritesPages(t *testing.T) {
	for _, root := range []string{"../../internal", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			if dir := filepath.ToSlash(filepath.Dir(path)); strings.HasSuffix(dir, "internal/webui") || strings.HasSuffix(dir, "internal/views") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err == nil && strings.Contains(string(src), `"text/html`) {
				t.Errorf("%s writes an HTML content type itself: render the page with webui.Render", path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

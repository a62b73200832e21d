package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBrowserNotFound: a wrong address opened in a browser is a small page
// in Hebrew and English, the browser's language first and in its
// direction, with a link home; a client that reads JSON (no Accept, */*,
// JSON, or JSON preferred over HTML) gets the JSON 404 it always got, and
// so does a browser's POST.
func TestBrowserNotFound(t *testing.T) {
	t.Parallel()
	s := newServer(t, testConfig(t))
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, c := range []struct{ lang, dir, first, second string }{
		{"he", "rtl", "הדף לא נמצא", "Page not found"},
		{"en", "ltr", "Page not found", "הדף לא נמצא"},
	} {
		res, body := get(t, s.Handler(), "/no/such/page", map[string]string{"Accept": browser, "Accept-Language": c.lang})
		if res.StatusCode != 404 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("a browser in %s: %d %s", c.lang, res.StatusCode, res.Header.Get("Content-Type"))
		}
		i, j := strings.Index(body, c.first), strings.Index(body, c.second)
		if !strings.Contains(body, `<html lang="`+c.lang+`" dir="`+c.dir+`">`) || i < 0 || j < i || !strings.Contains(body, `<a href="/">`) ||
			!strings.Contains(body, `<meta name="viewport" content="width=device-width, initial-scale=1">`) || !strings.Contains(body, `<bdi dir="ltr">/no/such/page</bdi>`) {
			t.Errorf("a browser in %s got:\n%s", c.lang, body)
		}
	}
	for _, accept := range []string{"", "*/*", "application/json", "application/json, text/html;q=0.5"} {
		res, body := get(t, s.Handler(), "/no/such/page", map[string]string{"Accept": accept})
		var got struct {
			OK    bool                  `json:"ok"`
			Error struct{ Code string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil || res.StatusCode != 404 || got.OK || got.Error.Code != "NOT_FOUND" {
			t.Errorf("Accept %q: %d %s", accept, res.StatusCode, body)
		}
	}
}

package webui

import (
	"context"
	"net/http"
	"strings"
)

// Lang is a language the pages speak.
type Lang string

// The languages.
const (
	Hebrew  Lang = "he"
	English Lang = "en"
)

// Langs are every language the pages speak, in the order the switch lists them.
var Langs = []Lang{Hebrew, English}

// Dir is the writing direction of l: rtl for Hebrew.
func (l Lang) Dir() string {
	if l == Hebrew {
		return "rtl"
	}
	return "ltr"
}

// ParseLang reads a language setting or parameter ("he", "en", any case,
// a region such as "he-IL" allowed; "iw" is Hebrew's old code) and
// reports whether it is one the pages speak.
func ParseLang(s string) (Lang, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, "-_"); i >= 0 {
		s = s[:i]
	}
	switch s {
	case "he", "iw":
		return Hebrew, true
	case "en":
		return English, true
	}
	return "", false
}

// maxAcceptLanguage bounds the header Language reads: longer ones are read
// up to it (a real browser sends well under 200 bytes).
const maxAcceptLanguage = 1024

// FromAcceptLanguage picks the language of an Accept-Language header
// (RFC 9110 section 12.5.4): the supported language with the highest
// weight, the earlier on a tie; a weight of 0 refuses a language. It
// reports false when the header names none the pages speak ("*" names
// none: it leaves the choice to the server's default).
func FromAcceptLanguage(header string) (Lang, bool) {
	if len(header) > maxAcceptLanguage {
		header = header[:maxAcceptLanguage]
	}
	best, bestQ := Lang(""), -1
	refused := map[Lang]bool{}
	for part := range strings.SplitSeq(header, ",") {
		tag, params, _ := strings.Cut(part, ";")
		l, ok := ParseLang(tag)
		if !ok {
			continue
		}
		q := 1000
		for p := range strings.SplitSeq(params, ";") {
			k, v, found := strings.Cut(strings.TrimSpace(p), "=")
			if found && strings.EqualFold(strings.TrimSpace(k), "q") {
				q = qvalue(strings.TrimSpace(v))
			}
		}
		if q <= 0 {
			refused[l] = true
			continue
		}
		if q > bestQ {
			best, bestQ = l, q
		}
	}
	if best == "" || refused[best] {
		return "", false
	}
	return best, true
}

// qvalue reads a weight ("1", "0.8", "0.125") in thousandths; anything
// that is not a weight counts as 0, so a malformed one refuses rather
// than prefers.
func qvalue(s string) int {
	if s == "" || len(s) > 5 {
		return 0
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole != "0" && whole != "1" {
		return 0
	}
	if len(frac) > 3 {
		return 0
	}
	n := 0
	for i := range 3 {
		d := 0
		if i < len(frac) {
			if frac[i] < '0' || frac[i] > '9' {
				return 0
			}
			d = int(frac[i] - '0')
		}
		n = n*10 + d
	}
	if whole == "1" {
		if n != 0 {
			return 0
		}
		return 1000
	}
	return n
}

// CookieName is the cookie that keeps a browser's choice from the switch.
const CookieName = "perform_lang"

// Param is the query parameter that chooses the language (the switch's links).
const Param = "lang"

type defaultKey struct{}

// WithDefault makes def the language of the pages under h for a browser
// that asks for none the pages speak (the server's PERFORM_DEFAULT_LANGUAGE).
func WithDefault(h http.Handler, def Lang) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), defaultKey{}, def)))
	})
}

// Fallback is the language with no default set (a handler not under WithDefault).
const Fallback = English

// Language is the language of the page answering r: the lang parameter,
// then the cookie the switch set, then Accept-Language, then the
// server's default.
func Language(r *http.Request) Lang {
	if l, ok := ParseLang(r.URL.Query().Get(Param)); ok {
		return l
	}
	if c, err := r.Cookie(CookieName); err == nil {
		if l, ok := ParseLang(c.Value); ok {
			return l
		}
	}
	if l, ok := FromAcceptLanguage(r.Header.Get("Accept-Language")); ok {
		return l
	}
	if l, ok := r.Context().Value(defaultKey{}).(Lang); ok && l != "" {
		return l
	}
	return Fallback
}

// remember keeps a choice made with the lang parameter in the cookie, for
// a year, so the next pages (a form's answer, a redirect) keep it.
func remember(w http.ResponseWriter, r *http.Request) {
	l, ok := ParseLang(r.URL.Query().Get(Param))
	if !ok {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: string(l), Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
}

// switchURL is r's own address (a GET's path and query) with the language
// set to l, for the switch's link.
func switchURL(r *http.Request, l Lang) string {
	q := r.URL.Query()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		q = nil // a form's answer: its path, which a GET opens afresh
	}
	if q == nil {
		q = map[string][]string{}
	}
	// A page's next= is repeated only when it stays on this site.
	if n, ok := q["next"]; ok {
		if len(n) == 1 && LocalPath(n[0]) != "" {
			q.Set("next", LocalPath(n[0]))
		} else {
			q.Del("next")
		}
	}
	q.Set(Param, string(l))
	return r.URL.Path + "?" + q.Encode()
}

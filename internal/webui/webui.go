// Package webui renders Perform's few server-side pages (the front page,
// sign-in, consent, connected apps, privacy and terms): html/template, one
// layout, no front-end build, in Hebrew and English from one message
// catalogue (messages.go). Render picks the language from the request
// (Language) and sets lang and dir on the page; phone numbers, codes and
// addresses sit in dir="ltr" isolates, and text a person typed (a Hebrew
// name, say) in dir="auto", so each reads right inside either page.
package webui

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strings"
)

//go:embed layout.html
var layoutFS embed.FS

// Page is a page's template in every language: its "content" block,
// parsed beside the layout, with t and the other functions speaking that
// language.
type Page struct{ t map[Lang]*template.Template }

// NewPage parses content (which must define "content") with the layout.
func NewPage(content string) Page {
	p := Page{t: map[Lang]*template.Template{}}
	for _, l := range Langs {
		t := template.Must(template.New("layout.html").Funcs(funcs(l)).ParseFS(layoutFS, "layout.html"))
		p.t[l] = template.Must(t.Parse(content))
	}
	return p
}

// LTR is text that reads left to right whatever the page's direction: a
// phone number, a code, an address, an email. As an argument of a message
// it is wrapped in <bdi dir="ltr"> (in plain text, in Unicode's
// left-to-right isolate).
type LTR string

// Name is text a person typed (an app's or a studio's name): as a
// message's argument it reads in its own direction, in <bdi dir="auto">
// (in plain text, in Unicode's first-strong isolate), so "Test App?"
// keeps its question mark at the end of a Hebrew title.
type Name string

// funcs are the template functions of a page in l:
//
//	t "key" args…   the catalogue's message, escaped, args filled in
//	ltr s           s in a left-to-right isolate
//	link href "key" a link whose text is the message
//	scope s         what the scope lets an app do, in words
//	auto s          s (a name a person typed) in its own direction
//	strong h        h in <strong>
func funcs(l Lang) template.FuncMap {
	return template.FuncMap{
		"t":     func(key string, args ...any) template.HTML { return HTML(l, key, args...) },
		"ltr":   func(s string) template.HTML { return ltrHTML(s) },
		"link":  func(href, key string) template.HTML { return link(l, href, key) },
		"scope": func(s string) string { return ScopeWords(l, s) },
		"auto":  func(s string) template.HTML { return Auto(s) },
		"strong": func(h template.HTML) template.HTML {
			return "<strong>" + h + "</strong>"
		},
	}
}

func ltrHTML(s string) template.HTML {
	return template.HTML(`<bdi dir="ltr">` + template.HTMLEscapeString(s) + `</bdi>`)
}

// Auto is text a person typed (a name) in an isolate of its own
// direction, for a message's argument: a Hebrew name reads right inside
// an English sentence, and an English one inside a Hebrew sentence.
func Auto(s string) template.HTML {
	return template.HTML(`<bdi dir="auto">` + template.HTMLEscapeString(s) + `</bdi>`)
}

func link(l Lang, href, key string) template.HTML {
	return template.HTML(`<a href="` + template.HTMLEscapeString(href) + `">` + template.HTMLEscapeString(Text(l, key)) + `</a>`)
}

// message is the catalogue's text of key in l; a key missing from l is
// read in English, and a key missing from both is shown as itself (a
// test checks every key is in both).
func message(l Lang, key string) string {
	if m, ok := catalogue[l][key]; ok {
		return m
	}
	if m, ok := catalogue[English][key]; ok {
		return m
	}
	return key
}

// Text is the message key in l as plain text, its %-verbs filled with
// args (LTR arguments in a Unicode left-to-right isolate).
func Text(l Lang, key string, args ...any) string {
	m := message(l, key)
	if len(args) == 0 {
		return m
	}
	plain := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case LTR:
			plain[i] = "\u2066" + string(v) + "\u2069"
		case Name:
			plain[i] = "\u2068" + string(v) + "\u2069"
		case template.HTML:
			plain[i] = string(v)
		default:
			plain[i] = v
		}
	}
	return fmt.Sprintf(m, plain...)
}

// HTML is the message key in l as HTML: the catalogue's text and every
// argument escaped (an LTR argument in a <bdi dir="ltr">, a template.HTML
// one as it is).
func HTML(l Lang, key string, args ...any) template.HTML {
	m := template.HTMLEscapeString(message(l, key))
	if len(args) == 0 {
		return template.HTML(m)
	}
	safe := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case LTR:
			safe[i] = string(ltrHTML(string(v)))
		case Name:
			safe[i] = string(Auto(string(v)))
		case template.HTML:
			safe[i] = string(v)
		case string:
			safe[i] = template.HTMLEscapeString(v)
		case int, int64:
			safe[i] = v
		default:
			safe[i] = template.HTMLEscapeString(fmt.Sprint(v))
		}
	}
	return template.HTML(fmt.Sprintf(m, safe...))
}

// ScopeWords says in l what a scope lets an app do; an unknown scope is
// shown as itself.
func ScopeWords(l Lang, scope string) string {
	if _, ok := catalogue[English]["scope."+scope]; !ok {
		return scope
	}
	return Text(l, "scope."+scope)
}

// Role is the word in l for what a person is in a studio: kind is coach or
// trainee; gender female or male picks its form (מאמנת, מאמן), any other
// (other, or none on record) the form that names both (מאמן/ת).
func Role(l Lang, kind, gender string) string {
	key := "role." + kind
	if gender == "female" || gender == "male" {
		key += "." + gender
	}
	return Text(l, key)
}

// view is what the layout reads.
type view struct {
	Title  string
	Lang   Lang
	Dir    string
	Switch []switchLink
	Data   any
}

type switchLink struct {
	Lang Lang
	Name string
	Href string
}

// langNames are each language's name in itself, for the switch.
var langNames = map[Lang]string{Hebrew: "עברית", English: "English"}

// Render writes the page with status in r's language (Language): title is
// the catalogue key of its title, filled with titleArgs. A lang parameter
// is remembered in a cookie. Pages are never cached, never framed
// (clickjacking a consent page would approve a grant) and never read as
// anything but HTML (nosniff). Every HTML page Perform serves is written
// here.
func Render(w http.ResponseWriter, r *http.Request, status int, p Page, data any, title string, titleArgs ...any) {
	l := Language(r)
	v := view{Title: Text(l, title, titleArgs...), Lang: l, Dir: l.Dir(), Data: data}
	for _, o := range Langs {
		if o != l {
			v.Switch = append(v.Switch, switchLink{Lang: o, Name: langNames[o], Href: switchURL(r, o)})
		}
	}
	var buf bytes.Buffer
	if err := p.t[l].ExecuteTemplate(&buf, "layout", v); err != nil {
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	remember(w, r)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", string(l))
	h.Add("Vary", "Accept-Language, Cookie")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self' https: http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// WantsHTML reports whether r is a browser asking for a page: its Accept
// names text/html. A client that sends no Accept, */* or
// application/json is not one.
func WantsHTML(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		media, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(media), "text/html") {
			continue
		}
		// text/html;q=0 refuses a page.
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(k, "q") && qvalue(strings.TrimSpace(v)) == 0 {
				return false
			}
		}
		return true
	}
	return false
}

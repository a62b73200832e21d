// Package webui renders Perform's few server-side pages (sign-in, consent,
// connected apps): html/template, one layout, no front-end build. Text a
// person typed (a Hebrew name, say) is isolated with dir="auto" by the
// pages, so right-to-left names read correctly inside English pages.
package webui

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
)

//go:embed layout.html
var layoutFS embed.FS

var layout = template.Must(template.ParseFS(layoutFS, "layout.html"))

// Page is a page's template: its "content" block, parsed beside the layout.
type Page struct{ t *template.Template }

// NewPage parses content (which must define "content") with the layout.
func NewPage(content string) Page {
	t := template.Must(template.Must(layout.Clone()).Parse(content))
	return Page{t: t}
}

// view is what the layout reads.
type view struct {
	Title string
	Lang  string
	Dir   string
	Data  any
}

// Render writes the page with status. Pages are never cached and never
// framed (clickjacking a consent page would approve a grant).
func Render(w http.ResponseWriter, status int, p Page, title string, data any) {
	var buf bytes.Buffer
	if err := p.t.ExecuteTemplate(&buf, "layout", view{Title: title, Lang: "en", Dir: "ltr", Data: data}); err != nil {
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

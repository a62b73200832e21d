package webui

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/text"
)

// notFoundPage says, in the page's language and then in the other, that
// the address has no page, with a way home: a person who mistyped a link
// on a phone reads it in either language and taps home.
var notFoundPage = NewPage(`{{define "content"}}
<p>{{t "notfound.text" (ltr .Path)}}</p>
<p class="go">{{link "/" "notfound.home"}}</p>
{{range .Others}}<section lang="{{.Lang}}" dir="{{.Dir}}" class="other">
<h2>{{.Title}}</h2>
<p>{{.Text}}</p>
<p class="go"><a href="/?lang={{.Lang}}">{{.Home}}</a></p>
</section>{{end}}
{{end}}`)

type notFoundView struct {
	Path   string
	Others []otherNotFound
}

type otherNotFound struct {
	Lang        Lang
	Dir         string
	Title, Home string
	Text        template.HTML
}

// NotFound answers a browser's request for an address Perform has no page
// at: 404 with a short page in every language the pages speak, the
// request's language first, and a link to the front page.
func NotFound(w http.ResponseWriter, r *http.Request) {
	l := Language(r)
	path := text.Truncate(r.URL.Path, 100)
	v := notFoundView{Path: path}
	for _, o := range Langs {
		if o != l {
			v.Others = append(v.Others, otherNotFound{Lang: o, Dir: o.Dir(), Title: Text(o, "title.notfound"),
				Text: HTML(o, "notfound.text", LTR(path)), Home: Text(o, "notfound.home")})
		}
	}
	Render(w, r, http.StatusNotFound, notFoundPage, v, "title.notfound")
}

// PrefersHTML reports whether r is a browser that would rather read a
// page than JSON: its Accept names text/html (WantsHTML) at a weight no
// lower than application/json's. "text/html,…,*/*;q=0.8" is a browser;
// "application/json, text/html;q=0.5" is a client that reads JSON.
func PrefersHTML(r *http.Request) bool {
	if !WantsHTML(r) {
		return false
	}
	html, json := -1, -1
	for part := range strings.SplitSeq(r.Header.Get("Accept"), ",") {
		media, params, _ := strings.Cut(part, ";")
		q := 1000
		for p := range strings.SplitSeq(params, ";") {
			if k, v, _ := strings.Cut(strings.TrimSpace(p), "="); strings.EqualFold(k, "q") {
				q = qvalue(strings.TrimSpace(v))
			}
		}
		switch strings.ToLower(strings.TrimSpace(media)) {
		case "text/html":
			html = max(html, q)
		case "application/json":
			json = max(json, q)
		}
	}
	return html >= json
}

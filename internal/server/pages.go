package server

import (
	"fmt"
	"net/http"

	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/webui"
)

// The pages for people: the front page (GET / in a browser), /privacy and
// /terms, in the request's language (internal/webui).

// docs are the texts of /privacy and /terms: the studio's own
// (PERFORM_PRIVACY_FILE, PERFORM_TERMS_FILE) or Perform's, by language.
type docs struct {
	privacy, terms webui.Doc
	ownPrivacy     bool
	ownTerms       bool
}

func loadDocs(privacy, terms string) (docs, error) {
	var d docs
	var err error
	if privacy != "" {
		if d.privacy, err = webui.ParseDoc(privacy); err != nil {
			return d, fmt.Errorf("PERFORM_PRIVACY_FILE: %w", err)
		}
		d.ownPrivacy = true
	}
	if terms != "" {
		if d.terms, err = webui.ParseDoc(terms); err != nil {
			return d, fmt.Errorf("PERFORM_TERMS_FILE: %w", err)
		}
		d.ownTerms = true
	}
	return d, nil
}

func (s *Server) privacy(w http.ResponseWriter, r *http.Request) {
	v := webui.DocView{Doc: s.docs.privacy, Studio: s.docs.ownPrivacy}
	if !v.Studio {
		v.Doc = webui.DefaultDoc("privacy", webui.Language(r))
	}
	webui.Render(w, r, http.StatusOK, webui.DocPage, v, "title.privacy")
}

func (s *Server) terms(w http.ResponseWriter, r *http.Request) {
	v := webui.DocView{Doc: s.docs.terms, Studio: s.docs.ownTerms}
	if !v.Studio {
		v.Doc = webui.DefaultDoc("terms", webui.Language(r))
	}
	webui.Render(w, r, http.StatusOK, webui.DocPage, v, "title.terms")
}

// homeView is what the front page shows.
type homeView struct {
	MCP     string // the /mcp address clients connect to
	OpenAPI string
	SignIn  bool // the server signs people in (/login and /apps are served)
}

// home is GET / for a browser: what this server is and how to connect.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	base := s.cfg.PublicURL
	if base == "" {
		// Unset on a laptop: the address the browser used (shown, escaped,
		// never followed).
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	v := homeView{MCP: base + "/mcp", OpenAPI: base + lane.Prefix + "/openapi.json", SignIn: s.serves(http.MethodGet, "/login")}
	webui.Render(w, r, http.StatusOK, homePage, v, "title.home")
}

// serves reports whether a route other than the catch-all answers method path.
func (s *Server) serves(method, path string) bool {
	r, err := http.NewRequest(method, path, nil)
	if err != nil {
		return false
	}
	_, pattern := s.mux.Handler(r)
	return pattern != "" && pattern != "/"
}

var homePage = webui.NewPage(`{{define "content"}}
<p>{{t "home.what"}}</p>
<h2>{{t "home.connect"}}</h2>
<p>{{t "home.url"}}</p>
<code class="url" id="mcp-url">{{.MCP}}</code>
<ul>
<li>{{t "home.claude"}}</li>
<li>{{t "home.chatgpt"}}</li>
<li>{{t "home.claudecode"}} <code class="url">claude mcp add --transport http perform {{.MCP}}</code></li>
<li>{{t "home.other"}}</li>
</ul>
{{if .SignIn}}<h2>{{t "home.account"}}</h2>
<p>{{t "home.signin" (link "/login" "nav.signin")}}</p>
<p>{{t "home.apps" (link "/apps" "nav.apps")}}</p>{{end}}
<p>{{t "home.legal" (link "/privacy" "title.privacy") (link "/terms" "title.terms")}}</p>
<p class="muted">{{t "home.developers" (ltr .OpenAPI)}}</p>
{{end}}`)

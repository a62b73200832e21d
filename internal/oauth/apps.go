package oauth

import (
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/webui"
)

// appView is one connected app on the page.
type appView struct {
	ID, Client, Scopes, Created, LastUsed string
}

type appsView struct {
	Person  string
	Apps    []appView
	CSRF    string
	Revoked bool
}

// apps is GET /apps: the signed-in person's connected apps.
func (s *Server) apps(w http.ResponseWriter, r *http.Request) {
	if s.browser == nil {
		s.page(w, http.StatusServiceUnavailable, errorPage, "Sign-in is not available", errorView{Message: "Signing in is not set up on this server."})
		return
	}
	if msg := inputProblem(r); msg != "" {
		s.page(w, http.StatusBadRequest, errorPage, "This page could not be read", errorView{Message: msg})
		return
	}
	p, ok := s.browser.RequireSignIn(w, r)
	if !ok {
		return
	}
	grants, err := s.store.OAuth().PersonOAuthGrants(r.Context(), p.StudioID, p.SubjectID)
	if err != nil {
		s.internalPage(w, "listing the connected apps", err)
		return
	}
	v := appsView{Person: p.Name, CSRF: s.browser.CSRFToken(r), Revoked: r.URL.Query().Get("revoked") == "1"}
	for _, g := range grants {
		a := appView{ID: g.ID, Client: g.ClientName, Scopes: strings.Join(g.Scopes, ", "), Created: day(g.CreatedAt), LastUsed: "never"}
		if g.LastUsedAt != nil {
			a.LastUsed = day(*g.LastUsedAt)
		}
		v.Apps = append(v.Apps, a)
	}
	s.page(w, http.StatusOK, appsPage, "Connected apps", v)
}

func day(t time.Time) string { return t.UTC().Format("2 Jan 2006 15:04 UTC") }

// revokeApp is POST /apps/{grant}/revoke: the grant and its tokens end at
// once (the next /mcp request with them is 401) and its consent is
// forgotten, so connecting again asks again.
func (s *Server) revokeApp(w http.ResponseWriter, r *http.Request) {
	if s.browser == nil {
		s.page(w, http.StatusServiceUnavailable, errorPage, "Sign-in is not available", errorView{Message: "Signing in is not set up on this server."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.page(w, http.StatusBadRequest, errorPage, "This form could not be read", errorView{Message: "Open Connected apps again and retry."})
		return
	}
	if msg := inputProblem(r); msg != "" {
		s.page(w, http.StatusBadRequest, errorPage, "This form could not be read", errorView{Message: msg})
		return
	}
	p, ok := s.browser.Person(r)
	if !ok || !s.browser.CheckCSRF(r) {
		s.page(w, http.StatusForbidden, errorPage, "This form has expired", errorView{Message: "Open Connected apps again and retry."})
		return
	}
	g, err := s.store.OAuth().OAuthGrant(r.Context(), r.PathValue("grant"))
	if err != nil || g.StudioID != p.StudioID || g.Subject != p.SubjectID {
		// Someone else's grant is no different from none.
		s.page(w, http.StatusNotFound, errorPage, "No such app", errorView{Message: "That app is not connected to your account."})
		return
	}
	if err := s.store.OAuth().RevokeOAuthGrant(r.Context(), g.ID, s.now()); err != nil {
		s.internalPage(w, "revoking a grant", err)
		return
	}
	if err := s.store.OAuth().DeleteOAuthConsent(r.Context(), g.StudioID, g.Subject, g.ClientID); err != nil {
		s.internalPage(w, "forgetting a consent", err)
		return
	}
	http.Redirect(w, r, PathApps+"?revoked=1", http.StatusSeeOther)
}

var appsPage = webui.NewPage(`{{define "content"}}
<p class="muted">Signed in as <span dir="auto">{{.Person}}</span>.</p>
{{if .Revoked}}<p>The app was disconnected; its access ended at once.</p>{{end}}
{{if .Apps}}
<table><tr><th>App</th><th>Can</th><th>Connected</th><th>Last used</th><th></th></tr>
{{range .Apps}}<tr><td dir="auto">{{.Client}}</td><td>{{.Scopes}}</td><td>{{.Created}}</td><td>{{.LastUsed}}</td>
<td><form method="post" action="/apps/{{.ID}}/revoke"><input type="hidden" name="csrf" value="{{$.CSRF}}"><button type="submit" class="secondary">Disconnect</button></form></td></tr>{{end}}
</table>
{{else}}<p>No apps are connected to your account.</p>{{end}}
{{end}}`)

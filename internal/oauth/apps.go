package oauth

import (
	"net/http"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/webui"
)

// appView is one connected app on the page.
type appView struct {
	ID, Client, Created, LastUsed string
	Scopes                        []string
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
		s.page(w, r, http.StatusServiceUnavailable, errorPage, errorView{Message: s.say(r, "err.notsetup")}, "title.unavailable")
		return
	}
	if msg := inputProblem(r); msg != "" {
		s.page(w, r, http.StatusBadRequest, errorPage, errorView{Message: s.say(r, "err.appsagain"), Detail: msg}, "title.pageunread")
		return
	}
	p, ok := s.browser.RequireSignIn(w, r)
	if !ok {
		return
	}
	grants, err := s.store.OAuth().PersonOAuthGrants(r.Context(), p.StudioID, p.SubjectID)
	if err != nil {
		s.internalPage(w, r, "listing the connected apps", err)
		return
	}
	// Times are shown in the studio's time zone (the default zone, should
	// the studio not be read).
	zone := domain.Studio{}.TimeZone()
	if st, err := s.store.StudioByID(r.Context(), p.StudioID); err == nil {
		zone = st.TimeZone()
	} else {
		s.logger.Warn("oauth: reading the studio's time zone failed; connected apps shows the default zone", "err", err)
	}
	l := webui.Language(r)
	v := appsView{Person: p.Name, CSRF: s.browser.CSRFToken(r), Revoked: r.URL.Query().Get("revoked") == "1"}
	for _, g := range grants {
		a := appView{ID: g.ID, Client: g.ClientName, Scopes: g.Scopes, Created: webui.Time(l, g.CreatedAt, zone), LastUsed: webui.Text(l, "apps.never")}
		if g.LastUsedAt != nil {
			a.LastUsed = webui.Time(l, *g.LastUsedAt, zone)
		}
		v.Apps = append(v.Apps, a)
	}
	s.page(w, r, http.StatusOK, appsPage, v, "title.apps")
}

// revokeApp is POST /apps/{grant}/revoke: the grant and its tokens end at
// once (the next /mcp request with them is 401) and its consent is
// forgotten, so connecting again asks again.
func (s *Server) revokeApp(w http.ResponseWriter, r *http.Request) {
	if s.browser == nil {
		s.page(w, r, http.StatusServiceUnavailable, errorPage, errorView{Message: s.say(r, "err.notsetup")}, "title.unavailable")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.page(w, r, http.StatusBadRequest, errorPage, errorView{Message: s.say(r, "err.appsagain")}, "title.formunread")
		return
	}
	if msg := inputProblem(r); msg != "" {
		s.page(w, r, http.StatusBadRequest, errorPage, errorView{Message: s.say(r, "err.appsagain"), Detail: msg}, "title.formunread")
		return
	}
	p, ok := s.browser.Person(r)
	if !ok || !s.browser.CheckCSRF(r) {
		s.page(w, r, http.StatusForbidden, errorPage, errorView{Message: s.say(r, "err.appsagain")}, "title.formexpired")
		return
	}
	g, err := s.store.OAuth().OAuthGrant(r.Context(), r.PathValue("grant"))
	if err != nil || g.StudioID != p.StudioID || g.Subject != p.SubjectID {
		// Someone else's grant is no different from none.
		s.page(w, r, http.StatusNotFound, errorPage, errorView{Message: s.say(r, "err.noapp")}, "title.noapp")
		return
	}
	if err := s.store.OAuth().RevokeOAuthGrant(r.Context(), g.ID, s.now()); err != nil {
		s.internalPage(w, r, "revoking a grant", err)
		return
	}
	if err := s.store.OAuth().DeleteOAuthConsent(r.Context(), g.StudioID, g.Subject, g.ClientID); err != nil {
		s.internalPage(w, r, "forgetting a consent", err)
		return
	}
	http.Redirect(w, r, PathApps+"?revoked=1", http.StatusSeeOther)
}

// appsPage shows each app as a card, its button inside it on any screen.
var appsPage = webui.NewPage(`{{define "content"}}
<p class="muted">{{t "apps.who" (auto .Person)}}</p>
{{if .Revoked}}<p role="status">{{t "apps.revoked"}}</p>{{end}}
{{range .Apps}}<section class="card">
<h2><bdi dir="auto">{{.Client}}</bdi></h2>
<dl>
<dt>{{t "apps.can"}}</dt><dd><ul>{{range .Scopes}}<li>{{scope .}}</li>{{end}}</ul></dd>
<dt>{{t "apps.connected"}}</dt><dd>{{.Created}}</dd>
<dt>{{t "apps.lastused"}}</dt><dd>{{.LastUsed}}</dd>
</dl>
<form method="post" action="/apps/{{.ID}}/revoke"><input type="hidden" name="csrf" value="{{$.CSRF}}"><button type="submit" class="secondary" aria-label="{{t "apps.disconnectname" .Client}}">{{t "apps.disconnect"}}</button></form>
</section>
{{else}}<p>{{t "apps.none"}}</p>{{end}}
<p class="go">{{link "/login" "apps.account"}}</p>
<form method="post" action="/logout"><input type="hidden" name="csrf" value="{{.CSRF}}"><button type="submit" class="secondary">{{t "login.signout"}}</button></form>
{{end}}`)

package oauth

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"

	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/webui"
)

// authRequest is a checked authorization request.
type authRequest struct {
	client      store.OAuthClient
	redirectURI string
	state       string
	challenge   string
	resource    string
	scopes      []string // as asked, parsed; none means the person's default
	params      url.Values
}

// authProblem is what is wrong with an authorization request: shown as a
// page while the redirect URI is not known good, else sent to it.
type authProblem struct {
	code, desc string
	redirect   bool
}

// parseAuthRequest checks an authorization request's parameters, from the
// query (GET) or the consent form (POST), in the order RFC 6749 section
// 4.1.2.1 needs: the client and its redirect URI first, so nothing is sent
// to a URI the client did not register.
func (s *Server) parseAuthRequest(ctx context.Context, issuer string, q url.Values) (*authRequest, *authProblem) {
	a := &authRequest{params: url.Values{}, state: q.Get("state")}
	for _, k := range []string{"response_type", "client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method", "resource"} {
		if vs := q[k]; len(vs) > 1 {
			return nil, &authProblem{code: "invalid_request", desc: k + " is repeated; send it once."}
		} else if len(vs) == 1 {
			a.params.Set(k, vs[0])
		}
	}
	c, err := s.client(ctx, q.Get("client_id"))
	var ce *clientError
	if errors.As(err, &ce) {
		return nil, &authProblem{code: "invalid_client", desc: ce.msg}
	}
	if err != nil {
		s.logger.Error("oauth: finding the client failed", "err", err)
		return nil, &authProblem{code: "server_error", desc: "The app could not be looked up just now; try again."}
	}
	a.client = c
	a.redirectURI = q.Get("redirect_uri")
	if a.redirectURI == "" && len(c.RedirectURIs) == 1 {
		a.redirectURI = c.RedirectURIs[0]
	}
	if !redirectMatches(c.RedirectURIs, a.redirectURI) {
		return nil, &authProblem{code: "invalid_request", desc: "redirect_uri " + text.Truncate(a.redirectURI, 200) + " is not one the app " + c.Name + " registered; nothing was sent to it."}
	}
	// From here the redirect URI is the client's own: problems go back to it.
	fail := func(code, desc string) (*authRequest, *authProblem) {
		return a, &authProblem{code: code, desc: desc, redirect: true}
	}
	if rt := q.Get("response_type"); rt != "code" {
		return fail("unsupported_response_type", "response_type must be code.")
	}
	a.challenge = q.Get("code_challenge")
	switch method := q.Get("code_challenge_method"); {
	case a.challenge == "":
		return fail("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256.")
	case method != "S256":
		return fail("invalid_request", "code_challenge_method must be S256; plain and a missing method are refused.")
	case !validPKCE(a.challenge) || len(a.challenge) != 43:
		return fail("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the code verifier.")
	}
	a.resource = q.Get("resource")
	if !resourceMatches(issuer, a.resource) {
		return fail("invalid_target", "resource must be "+issuer+MCPPath+", the MCP server this server issues tokens for.")
	}
	a.resource = issuer + MCPPath
	scopes, err := ParseScope(q.Get("scope"))
	if err != nil {
		return fail("invalid_scope", err.Error()+".")
	}
	a.scopes = scopes
	return a, nil
}

// validPKCE reports whether s is 43 to 128 characters of the PKCE
// alphabet (RFC 7636 section 4.1): verifiers and S256 challenges alike.
func validPKCE(s string) bool {
	if len(s) < 43 || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// authorize is GET /authorize: check the request, sign the person in,
// then issue a code at once when they approved these scopes for this app
// before, or show the consent page.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	iss := s.Issuer(r)
	if iss == "" {
		s.noIssuer(w)
		return
	}
	if p := inputProblem(r); p != "" {
		s.page(w, r, http.StatusBadRequest, errorPage, errorView{Message: s.say(r, "err.cannot"), Detail: p, Code: "invalid_request"}, "title.cannot")
		return
	}
	a, problem := s.parseAuthRequest(r.Context(), iss, r.URL.Query())
	if problem != nil {
		s.refuse(w, r, iss, a, problem)
		return
	}
	if s.browser == nil {
		s.page(w, r, http.StatusServiceUnavailable, errorPage, errorView{Message: s.say(r, "err.notsetup.apps")}, "title.unavailable")
		return
	}
	person, ok := s.browser.RequireSignIn(w, r)
	if !ok {
		return
	}
	scopes, err := grantScopes(person.Kind, a.scopes)
	if err != nil {
		s.refuse(w, r, iss, a, &authProblem{code: "invalid_scope", desc: err.Error() + ".", redirect: true})
		return
	}
	approved, err := s.store.OAuth().OAuthConsent(r.Context(), person.StudioID, person.SubjectID, a.client.ID)
	if err == nil && subset(scopes, approved) {
		s.issueCode(w, r, iss, a, person, scopes)
		return
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.internalPage(w, r, "reading the consent", err)
		return
	}
	s.showConsent(w, r, a, person, scopes)
}

// decide is POST /authorize: the consent page's approve or deny.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	iss := s.Issuer(r)
	if iss == "" {
		s.noIssuer(w)
		return
	}
	if s.browser == nil {
		s.page(w, r, http.StatusServiceUnavailable, errorPage, errorView{Message: s.say(r, "err.notsetup")}, "title.unavailable")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.page(w, r, http.StatusBadRequest, errorPage, errorView{Message: s.say(r, "err.connectagain")}, "title.formunread")
		return
	}
	if p := inputProblem(r); p != "" {
		s.page(w, r, http.StatusBadRequest, errorPage, errorView{Message: s.say(r, "err.connectagain"), Detail: p, Code: "invalid_request"}, "title.formunread")
		return
	}
	person, ok := s.browser.Person(r)
	if !ok || !s.browser.CheckCSRF(r) {
		s.page(w, r, http.StatusForbidden, errorPage, errorView{Message: s.say(r, "err.consentexpired")}, "title.formexpired")
		return
	}
	a, problem := s.parseAuthRequest(r.Context(), iss, r.PostForm)
	if problem != nil {
		s.refuse(w, r, iss, a, problem)
		return
	}
	scopes, err := grantScopes(person.Kind, a.scopes)
	if err != nil {
		s.refuse(w, r, iss, a, &authProblem{code: "invalid_scope", desc: err.Error() + ".", redirect: true})
		return
	}
	if r.PostForm.Get("decision") != "approve" {
		s.refuse(w, r, iss, a, &authProblem{code: "access_denied", desc: "The person declined to connect the app.", redirect: true})
		return
	}
	if err := s.store.OAuth().PutOAuthConsent(r.Context(), person.StudioID, person.SubjectID, a.client.ID, scopes, s.now()); err != nil {
		s.internalPage(w, r, "saving the consent", err)
		return
	}
	s.issueCode(w, r, iss, a, person, scopes)
}

// issueCode stores a fresh code and sends the browser back to the client
// with it, the state and the issuer (RFC 9207).
func (s *Server) issueCode(w http.ResponseWriter, r *http.Request, iss string, a *authRequest, p Person, scopes []string) {
	code := newSecret(codePrefix)
	now := s.now()
	err := s.store.OAuth().CreateOAuthCode(r.Context(), &store.OAuthCode{
		Hash: hash(code), ClientID: a.client.ID, StudioID: p.StudioID, Subject: p.SubjectID, Scopes: scopes,
		RedirectURI: a.redirectURI, CodeChallenge: a.challenge, Resource: a.resource, CreatedAt: now, ExpiresAt: now.Add(CodeTTL),
	})
	if err != nil {
		s.internalPage(w, r, "issuing the code", err)
		return
	}
	s.sweep(r.Context(), now)
	redirectBack(w, r, a.redirectURI, url.Values{"code": {code}}, a.state, iss)
}

// refuse answers a bad authorization request: an error redirect when the
// redirect URI is the client's own, else a page (never a redirect to a
// URI nobody vouched for).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, iss string, a *authRequest, p *authProblem) {
	if p.redirect && a != nil {
		redirectBack(w, r, a.redirectURI, url.Values{"error": {p.code}, "error_description": {p.desc}}, a.state, iss)
		return
	}
	status := http.StatusBadRequest
	if p.code == "server_error" {
		status = http.StatusInternalServerError
	}
	s.page(w, r, status, errorPage, errorView{Message: s.say(r, "err.cannot"), Detail: p.desc, Code: p.code}, "title.cannot")
}

// redirectBack sends the browser to uri with params, state and iss added
// to its query.
func redirectBack(w http.ResponseWriter, r *http.Request, uri string, params url.Values, state, iss string) {
	u, _ := url.Parse(uri) // checked when the client registered it
	q := u.Query()
	for k, vs := range params {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", iss)
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// consentView is what the consent page shows.
type consentView struct {
	ClientName   string
	RedirectHost string
	Source       string // metadata, registered or cli
	MetadataURL  string
	Person       string
	Kind         string
	Scopes       []string
	Params       url.Values
	CSRF         string
}

func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, a *authRequest, p Person, scopes []string) {
	v := consentView{
		ClientName: a.client.Name, Source: a.client.Source, Person: p.Name,
		Params: a.params, CSRF: s.browser.CSRFToken(r),
	}
	if u, err := url.Parse(a.redirectURI); err == nil {
		v.RedirectHost = u.Host
		if v.RedirectHost == "" {
			v.RedirectHost = u.Scheme + ":" // a private-use scheme
		}
	}
	if a.client.Source == store.ClientFromMetadata {
		v.MetadataURL = a.client.ID
	}
	v.Scopes = scopes
	v.Kind = webui.Role(webui.Language(r), p.Kind, p.Gender)
	s.page(w, r, http.StatusOK, consentPage, v, "title.connect", webui.Name(text.Truncate(a.client.Name, 40)))
}

// page draws p in r's language; title is a catalogue key.
func (s *Server) page(w http.ResponseWriter, r *http.Request, status int, p webui.Page, data any, title string, titleArgs ...any) {
	webui.Render(w, r, status, p, data, title, titleArgs...)
}

// say is the catalogue's message key in r's language, as HTML.
func (s *Server) say(r *http.Request, key string, args ...any) template.HTML {
	return webui.HTML(webui.Language(r), key, args...)
}

func (s *Server) internalPage(w http.ResponseWriter, r *http.Request, doing string, err error) {
	s.logger.Error("oauth: "+doing+" failed", "err", err)
	s.page(w, r, http.StatusInternalServerError, errorPage, errorView{Message: s.say(r, "err.internal")}, "title.wrong")
}

// errorView is an error page: a sentence in the page's language, and for
// the app's developer the protocol's own description and error code (in
// English, as the redirect to the app carries them).
type errorView struct {
	Message      template.HTML
	Detail, Code string
}

var errorPage = webui.NewPage(`{{define "content"}}<p class="error" role="alert">{{.Message}}</p>
{{if .Detail}}<p class="muted">{{t "err.details" (ltr .Detail)}}</p>{{end}}
{{if .Code}}<p class="muted">{{t "err.code" (ltr .Code)}}</p>{{end}}{{end}}`)

var consentPage = webui.NewPage(`{{define "content"}}
<p>{{t "consent.wants" (strong (auto .ClientName)) (auto .Person) .Kind}}</p>
<p class="muted">{{t "consent.back" (strong (ltr .RedirectHost))}}
{{if eq .Source "metadata"}}{{t "consent.metadata" (ltr .MetadataURL)}}
{{else if eq .Source "cli"}}{{t "consent.cli"}}
{{else}}{{t "consent.registered"}}{{end}}</p>
<p>{{t "consent.able"}}</p>
<ul>{{range .Scopes}}<li>{{scope .}}</li>{{end}}</ul>
<form method="post" action="/authorize">
{{range $k, $vs := .Params}}{{range $vs}}<input type="hidden" name="{{$k}}" value="{{.}}">{{end}}{{end}}
<input type="hidden" name="csrf" value="{{.CSRF}}">
<div class="buttons">
<button type="submit" name="decision" value="approve">{{t "consent.allow"}}</button>
<button type="submit" name="decision" value="deny" class="secondary">{{t "consent.deny"}}</button>
</div>
</form>
<p class="muted">{{t "consent.later" (link "/apps" "nav.apps")}}</p>
{{end}}`)

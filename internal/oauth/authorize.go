package oauth

import (
	"context"
	"errors"
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
		s.page(w, http.StatusBadRequest, errorPage, "This app cannot be connected", errorView{Message: p, Code: "invalid_request"})
		return
	}
	a, problem := s.parseAuthRequest(r.Context(), iss, r.URL.Query())
	if problem != nil {
		s.refuse(w, r, iss, a, problem)
		return
	}
	if s.browser == nil {
		s.page(w, http.StatusServiceUnavailable, errorPage, "Sign-in is not available", errorView{Message: "Signing in is not set up on this server, so apps cannot be connected yet."})
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
		s.internalPage(w, "reading the consent", err)
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
		s.page(w, http.StatusServiceUnavailable, errorPage, "Sign-in is not available", errorView{Message: "Signing in is not set up on this server."})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.page(w, http.StatusBadRequest, errorPage, "This form could not be read", errorView{Message: "Go back to the app and connect again."})
		return
	}
	if p := inputProblem(r); p != "" {
		s.page(w, http.StatusBadRequest, errorPage, "This form could not be read", errorView{Message: p, Code: "invalid_request"})
		return
	}
	person, ok := s.browser.Person(r)
	if !ok || !s.browser.CheckCSRF(r) {
		s.page(w, http.StatusForbidden, errorPage, "This form has expired", errorView{Message: "The page was open too long or came from elsewhere. Go back to the app and connect again."})
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
		s.internalPage(w, "saving the consent", err)
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
		s.internalPage(w, "issuing the code", err)
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
	s.page(w, status, errorPage, "This app cannot be connected", errorView{Message: p.desc, Code: p.code})
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
	Scopes       []scopeView
	Params       url.Values
	CSRF         string
}

type scopeView struct{ Name, Words string }

func (s *Server) showConsent(w http.ResponseWriter, r *http.Request, a *authRequest, p Person, scopes []string) {
	v := consentView{
		ClientName: a.client.Name, Source: a.client.Source, Person: p.Name, Kind: p.Kind,
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
	for _, sc := range scopes {
		v.Scopes = append(v.Scopes, scopeView{Name: sc, Words: ScopeWords(sc)})
	}
	s.page(w, http.StatusOK, consentPage, "Connect "+text.Truncate(a.client.Name, 40)+"?", v)
}

func (s *Server) page(w http.ResponseWriter, status int, p webui.Page, title string, data any) {
	webui.Render(w, status, p, title, data)
}

func (s *Server) internalPage(w http.ResponseWriter, doing string, err error) {
	s.logger.Error("oauth: "+doing+" failed", "err", err)
	s.page(w, http.StatusInternalServerError, errorPage, "Something went wrong", errorView{Message: "Perform could not finish this just now; go back to the app and try again."})
}

type errorView struct{ Message, Code string }

var errorPage = webui.NewPage(`{{define "content"}}<p class="error">{{.Message}}</p>{{if .Code}}<p class="muted">Error: {{.Code}}</p>{{end}}{{end}}`)

var consentPage = webui.NewPage(`{{define "content"}}
<p><strong dir="auto">{{.ClientName}}</strong> wants to reach your Perform account
(<span dir="auto">{{.Person}}</span>, {{.Kind}}).</p>
<p class="muted">It will send you back to <strong>{{.RedirectHost}}</strong>.
{{if eq .Source "metadata"}}It describes itself in the client metadata document at <code>{{.MetadataURL}}</code>.
{{else if eq .Source "cli"}}It was added by the server's operator.
{{else}}It registered itself with this server (dynamic registration): its name is its own claim.{{end}}</p>
<p>It will be able to:</p>
<ul>{{range .Scopes}}<li>{{.Words}} <span class="muted">({{.Name}})</span></li>{{end}}</ul>
<form method="post" action="/authorize">
{{range $k, $vs := .Params}}{{range $vs}}<input type="hidden" name="{{$k}}" value="{{.}}">{{end}}{{end}}
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>
<p class="muted">You can disconnect it at any time on <a href="/apps">Connected apps</a>.</p>
{{end}}`)

package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/server"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/webui"
)

// asWorld is a real server with the authorization server, the lane and
// /mcp, on 127.0.0.1, and two studios' people.
type asWorld struct {
	t        *testing.T
	url      string
	st       store.Store
	clock    *testkit.Clock
	http     *http.Client            // follows no redirects
	sessions map[string]*http.Client // signed-in browsers: their cookie jars
	secrets  []string                // every code, token and secret seen, for the plaintext check
	logs     *testkit.Buffer

	studioA, studioB         domain.Studio
	coach                    domain.Coach
	trainee, other, traineeB domain.Trainee
}

func newASWorld(t *testing.T, dbURL string, edit ...func(*oauth.Options)) *asWorld {
	cfg := config.Defaults()
	cfg.DatabaseURL = dbURL
	cfg.RateLimitMax = 10_000
	// The tests read the pages' English; a browser that asks for no
	// language gets it here (the pages' own tests cover Hebrew).
	cfg.DefaultLanguage = webui.English
	w := &asWorld{t: t, clock: testkit.NewClock(time.Now()), logs: &testkit.Buffer{}, sessions: map[string]*http.Client{}}
	logger := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o := oauth.Options{Now: w.clock.Now, AllowLoopbackMetadata: true, MetadataTimeout: 500 * time.Millisecond}
	for _, e := range edit {
		e(&o)
	}
	s, err := server.New(context.Background(), cfg, logger, pluginsWith(cfg, o)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	// The sign-in codes go out as River jobs, as a served server's do.
	if err := s.Jobs().Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before s.Close: cleanups run last first
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Jobs().Stop(stop)
	})
	w.url, w.st = srv.URL, s.Store()
	w.http = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	ctx := context.Background()
	for _, st := range []*domain.Studio{&w.studioA, &w.studioB} {
		*st = domain.Studio{Name: "Studio " + randomSlug(), Slug: "s-" + randomSlug()}
		if err := w.st.CreateStudio(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	a, b := w.st.Studio(w.studioA.ID), w.st.Studio(w.studioB.ID)
	w.coach = domain.Coach{Name: "Dana", Active: true, Phone: new("+972501110009")}
	must(t, a.CreateCoach(ctx, &w.coach))
	for _, tr := range []struct {
		ss    store.StudioStore
		into  *domain.Trainee
		first string
		phone string
	}{{a, &w.trainee, "נועה", "+972501110001"}, {a, &w.other, "Other", "+972501110002"}, {b, &w.traineeB, "Bee", "+972501110003"}} {
		*tr.into = domain.Trainee{FirstName: tr.first, LastName: "T", Phone: tr.phone}
		if tr.first == "נועה" {
			tr.into.Gender = new("female") // the pages call her מתאמנת
		}
		must(t, tr.ss.CreateTrainee(ctx, tr.into))
	}
	w.signIn("coach", "050-111-0009")
	w.signIn("trainee", "050-111-0001")
	w.signIn("other", "050-111-0002")
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// randomSlug is ten random characters (the random tail of an id).
func randomSlug() string { id := ids.New(ids.Request); return id[len(id)-10:] }

// signIn signs a browser in as the person whose phone it is, as a person
// would: the phone on /login, then the one-time code, which with no
// WhatsApp gateway configured the server writes to its log.
func (w *asWorld) signIn(session, phone string) {
	w.t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	w.sessions[session] = c
	csrf := func(path string) string {
		res, err := c.Get(w.url + path)
		must(w.t, err)
		page := readAll(w.t, res)
		res.Body.Close()
		m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			w.t.Fatalf("%s has no CSRF field: %d %s", path, res.StatusCode, page)
		}
		return html.UnescapeString(m[1])
	}
	before := len(testkit.SentCodes(w.logs.String()))
	res, err := c.PostForm(w.url+"/login", url.Values{"csrf": {csrf("/login")}, "phone": {phone}})
	must(w.t, err)
	res.Body.Close()
	res, err = c.PostForm(w.url+"/login/code", url.Values{"csrf": {csrf("/login/code")}, "code": {w.waitCode(before)}})
	must(w.t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		w.t.Fatalf("signing in %s: %d", phone, res.StatusCode)
	}
}

// csrfOf is the CSRF field of session's connected apps page.
func (w *asWorld) csrfOf(session string) string {
	page := readAll(w.t, w.do("GET", "/apps", session, nil))
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		w.t.Fatalf("the apps page has no CSRF field: %s", page)
	}
	return html.UnescapeString(m[1])
}

func (w *asWorld) keep(s ...string) { w.secrets = append(w.secrets, s...) }

// do sends a request as the browser of session ("" for none).
func (w *asWorld) do(method, path, session string, form url.Values) *http.Response {
	w.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, w.url+path, body)
	must(w.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	client := w.http
	if session != "" {
		client = w.sessions[session]
	}
	res, err := client.Do(req)
	must(w.t, err)
	w.t.Cleanup(func() { res.Body.Close() })
	return res
}

func readAll(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	must(t, err)
	return string(b)
}

// register registers a client dynamically and returns its id and secret.
func (w *asWorld) register(meta map[string]any) (string, string) {
	w.t.Helper()
	raw, _ := json.Marshal(meta)
	res, err := http.Post(w.url+"/register", "application/json", strings.NewReader(string(raw)))
	must(w.t, err)
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	if res.StatusCode != http.StatusCreated {
		w.t.Fatalf("register %s: %d %v", raw, res.StatusCode, out)
	}
	id, _ := out["client_id"].(string)
	secret, _ := out["client_secret"].(string)
	w.keep(secret)
	return id, secret
}

func (w *asWorld) publicClient(redirect string) string {
	id, _ := w.register(map[string]any{"client_name": "Test App", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	return id
}

// pkce is a verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = strings.Repeat("v", 20) + randomSlug() + strings.Repeat("x", 20)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func authParams(clientID, redirect, challenge, scope string) url.Values {
	v := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-" + randomSlug()}}
	if scope != "" {
		v.Set("scope", scope)
	}
	return v
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// consent opens /authorize as session, checks the consent page, and
// answers it with decision; it returns the redirect's query.
func (w *asWorld) consent(params url.Values, session, decision string) (url.Values, string) {
	w.t.Helper()
	res := w.do("GET", "/authorize?"+params.Encode(), session, nil)
	if res.StatusCode == http.StatusFound { // consent remembered
		return w.redirectQuery(res, params.Get("redirect_uri")), ""
	}
	page := readAll(w.t, res)
	if res.StatusCode != http.StatusOK || res.Header.Get("X-Frame-Options") != "DENY" {
		w.t.Fatalf("consent page: %d %s", res.StatusCode, page)
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(page, -1) {
		form.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	form.Set("decision", decision)
	res = w.do("POST", "/authorize", session, form)
	if res.StatusCode != http.StatusFound {
		w.t.Fatalf("consent %s: %d %s", decision, res.StatusCode, readAll(w.t, res))
	}
	return w.redirectQuery(res, params.Get("redirect_uri")), page
}

func (w *asWorld) redirectQuery(res *http.Response, redirect string) url.Values {
	w.t.Helper()
	loc, err := url.Parse(res.Header.Get("Location"))
	must(w.t, err)
	want, _ := url.Parse(redirect)
	if loc.Scheme != want.Scheme || loc.Host != want.Host || loc.Path != want.Path {
		w.t.Fatalf("redirected to %s; want %s", loc, redirect)
	}
	q := loc.Query()
	if q.Get("iss") != w.url {
		w.t.Fatalf("iss = %q; want %q", q.Get("iss"), w.url)
	}
	w.keep(q.Get("code"))
	return q
}

// tokenReq posts to /token (or another endpoint) and decodes the answer.
func (w *asWorld) tokenReq(path string, form url.Values, basic ...string) (int, map[string]any, http.Header) {
	w.t.Helper()
	req, _ := http.NewRequest("POST", w.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(url.QueryEscape(basic[0]), url.QueryEscape(basic[1]))
	}
	res, err := w.http.Do(req)
	must(w.t, err)
	defer res.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(res.Body).Decode(&out)
	for _, k := range []string{"access_token", "refresh_token"} {
		if s, ok := out[k].(string); ok {
			w.keep(s)
		}
	}
	return res.StatusCode, out, res.Header
}

func (w *asWorld) exchange(clientID, code, redirect, verifier string) (int, map[string]any) {
	status, out, h := w.tokenReq("/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
	if h.Get("Cache-Control") != "no-store" {
		w.t.Errorf("the token answer's Cache-Control is %q", h.Get("Cache-Control"))
	}
	return status, out
}

// flow runs authorize, consent and the code exchange for session.
func (w *asWorld) flow(clientID, redirect, session, scope string) map[string]any {
	w.t.Helper()
	verifier, challenge := pkce()
	params := authParams(clientID, redirect, challenge, scope)
	q, _ := w.consent(params, session, "approve")
	if q.Get("code") == "" || q.Get("state") != params.Get("state") {
		w.t.Fatalf("redirect query %v", q)
	}
	status, tok := w.exchange(clientID, q.Get("code"), redirect, verifier)
	if status != 200 || tok["token_type"] != "Bearer" || tok["expires_in"] != float64(3600) {
		w.t.Fatalf("exchange: %d %v", status, tok)
	}
	return tok
}

// lane calls the lane with a bearer token.
func (w *asWorld) lane(token, path string) (int, string) {
	w.t.Helper()
	req, _ := http.NewRequest("GET", w.url+"/v1/automation"+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	must(w.t, err)
	defer res.Body.Close()
	return res.StatusCode, readAll(w.t, res)
}

// mcpStatus posts one JSON-RPC message to /mcp and answers the status and WWW-Authenticate.
func (w *asWorld) mcpStatus(token, body string) (int, string, string) {
	w.t.Helper()
	req, _ := http.NewRequest("POST", w.url+"/mcp", strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	res, err := http.DefaultClient.Do(req)
	must(w.t, err)
	defer res.Body.Close()
	return res.StatusCode, res.Header.Get("WWW-Authenticate"), readAll(w.t, res)
}

const toolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

func TestOAuth(t *testing.T) {
	t.Parallel()
	for engine, db := range databases(t) {
		t.Run(engine, func(t *testing.T) { testOAuthOn(t, newASWorld(t, db(t))) })
	}
}

func testOAuthOn(t *testing.T, w *asWorld) {
	const cb = "https://app.example/callback"
	const loopCB = "http://127.0.0.1/callback"

	t.Run("Metadata", func(t *testing.T) {
		res := w.do("GET", "/.well-known/oauth-authorization-server", "", nil)
		var m map[string]any
		must(t, json.NewDecoder(res.Body).Decode(&m))
		if m["issuer"] != w.url || m["authorization_endpoint"] != w.url+"/authorize" || m["token_endpoint"] != w.url+"/token" ||
			m["registration_endpoint"] != w.url+"/register" || m["revocation_endpoint"] != w.url+"/revoke" ||
			m["client_id_metadata_document_supported"] != true || m["authorization_response_iss_parameter_supported"] != true {
			t.Fatalf("metadata %v", m)
		}
		if fmt.Sprint(m["code_challenge_methods_supported"]) != "[S256]" || !strings.Contains(fmt.Sprint(m["token_endpoint_auth_methods_supported"]), "none") ||
			fmt.Sprint(m["grant_types_supported"]) != "[authorization_code refresh_token]" || m["jwks_uri"] != nil {
			t.Fatalf("metadata %v", m)
		}
		for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			var prm map[string]any
			must(t, json.NewDecoder(w.do("GET", path, "", nil).Body).Decode(&prm))
			if prm["resource"] != w.url+"/mcp" || fmt.Sprint(prm["authorization_servers"]) != "["+w.url+"]" || !strings.Contains(fmt.Sprint(prm["scopes_supported"]), "training:read") {
				t.Fatalf("%s: %v", path, prm)
			}
		}
		if res := w.do("GET", "/.well-known/openid-configuration", "", nil); res.StatusCode != http.StatusNotFound {
			t.Fatalf("an OpenID configuration is served: %d", res.StatusCode)
		}
	})

	t.Run("MCPWithoutCredential", func(t *testing.T) {
		status, challenge, body := w.mcpStatus("", toolsList)
		want := `Bearer realm="Perform", error="invalid_token", resource_metadata="` + w.url + `/.well-known/oauth-protected-resource/mcp", scope="studio:read studio:write billing profile:read`
		if status != 401 || !strings.HasPrefix(challenge, want) || !strings.Contains(body, "perform key create") {
			t.Fatalf("%d %q %s", status, challenge, body)
		}
	})

	var coachToken map[string]any
	coachClient := w.publicClient(loopCB)
	t.Run("CoachFlow", func(t *testing.T) {
		verifier, challenge := pkce()
		params := authParams(coachClient, "http://127.0.0.1:54321/callback", challenge, "")
		params.Set("resource", w.url+"/mcp")
		// Not signed in: off to sign in, and back to this very request.
		res := w.do("GET", "/authorize?"+params.Encode(), "", nil)
		if loc := res.Header.Get("Location"); (res.StatusCode != 302 && res.StatusCode != 303) || !strings.HasPrefix(loc, "/login?next=") || !strings.Contains(loc, url.QueryEscape("/authorize?")) {
			t.Fatalf("unsigned: %d %q", res.StatusCode, loc)
		}
		q, page := w.consent(params, "coach", "approve")
		for _, want := range []string{"Test App", "127.0.0.1:54321", "dynamic registration", "See the studio", "Add and change trainees", `dir="auto"`} {
			if !strings.Contains(page, want) {
				t.Errorf("the consent page lacks %q", want)
			}
		}
		status, tok := w.exchange(coachClient, q.Get("code"), "http://127.0.0.1:54321/callback", verifier)
		if status != 200 || tok["scope"] != "studio:read studio:write billing" || !strings.HasPrefix(tok["access_token"].(string), "pf_at_") || !strings.HasPrefix(tok["refresh_token"].(string), "pf_rt_") {
			t.Fatalf("%d %v", status, tok)
		}
		coachToken = tok
		cs := mcptest.Connect(t, w.url+"/mcp", tok["access_token"].(string))
		tools, err := cs.ListTools(context.Background(), nil)
		must(t, err)
		if len(tools.Tools) < 21 {
			t.Fatalf("a coach grant sees %d tools", len(tools.Tools))
		}
		res2 := mcptest.Call(t, cs, "search_trainees", map[string]any{"q": "Other"})
		if res2.IsError || !strings.Contains(mcptest.Text(res2), w.other.ID) {
			t.Fatalf("search_trainees: %s", mcptest.Text(res2))
		}
		// Consent is remembered: the second time goes straight back with a code.
		_, challenge2 := pkce()
		res = w.do("GET", "/authorize?"+authParams(coachClient, loopCB, challenge2, "studio:read").Encode(), "coach", nil)
		if res.StatusCode != 302 || !strings.Contains(res.Header.Get("Location"), "code=") {
			t.Fatalf("remembered consent: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		w.keep(w.redirectQuery(res, loopCB).Get("code"))
		// A coach grant is the studio's: another studio's trainee is not found.
		if status, body := w.lane(tok["access_token"].(string), "/trainees/"+w.traineeB.ID); status != 404 {
			t.Fatalf("studio B's trainee with studio A's token: %d %s", status, body)
		}
		// studio:admin stays with keys.
		if status, body := w.lane(tok["access_token"].(string), "/keys"); status != 403 || !strings.Contains(body, "studio:admin") {
			t.Fatalf("GET /keys with a coach grant: %d %s", status, body)
		}
	})

	traineeClient := w.publicClient(cb)
	t.Run("TraineeFlow", func(t *testing.T) {
		tok := w.flow(traineeClient, cb, "trainee", strings.Join(oauth.Scopes, " "))
		if tok["scope"] != strings.Join(oauth.TraineeScopes, " ") {
			t.Fatalf("a trainee asking for every scope got %v", tok["scope"])
		}
		at := tok["access_token"].(string)
		for path, want := range map[string]int{
			"/trainees/" + w.trainee.ID:                      200,
			"/trainees/" + w.trainee.ID + "/weights":         200,
			"/trainees/" + w.trainee.ID + "/programs":        200,
			"/trainees/" + w.other.ID:                        404,
			"/trainees/" + w.other.ID + "/weights":           404,
			"/trainees/" + w.traineeB.ID + "/form-responses": 404,
			"/trainees/search?q=a":                           403,
			"/rpc/coaches":                                   403,
		} {
			if status, body := w.lane(at, path); status != want {
				t.Errorf("GET %s with a trainee grant: %d %s; want %d", path, status, body, want)
			} else if want == 403 && !strings.Contains(body, "studio:read") {
				t.Errorf("GET %s: the refusal does not name the scope: %s", path, body)
			}
		}
		// A trainee's connection holds the trainee set, never a coach tool.
		cs := mcptest.Connect(t, w.url+"/mcp", at)
		list, err := cs.ListTools(context.Background(), nil)
		must(t, err)
		if len(list.Tools) != len(tools.Trainee()) {
			t.Fatalf("a trainee grant sees %d tools; want the %d of the trainee set", len(list.Tools), len(tools.Trainee()))
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_trainees", Arguments: map[string]any{"q": "a"}}); err == nil || !strings.Contains(err.Error(), "search_trainees") {
			t.Fatalf("a trainee calling a coach tool: %v", err)
		}
		// A trainee asking only for coach scopes is refused, back at the app.
		_, ch := pkce()
		res := w.do("GET", "/authorize?"+authParams(traineeClient, cb, ch, "studio:read").Encode(), "other", nil)
		if q := w.redirectQuery(res, cb); q.Get("error") != "invalid_scope" {
			t.Fatalf("a trainee asking for studio:read: %v", q)
		}
	})

	t.Run("RedirectURIAttacks", func(t *testing.T) {
		_, ch := pkce()
		for _, bad := range []string{
			"https://app.example:8443/callback", "https://app.example/callback/", "https://app.example/callbackx",
			"https://app.example/callback?x=1", "https://app.example/callback#frag", "http://app.example/callback",
			"https://good@app.example/callback", "https://app.example@evil.example/callback", "https://APP.example/callback",
			"https://app.example/Callback", "https://evil.example/callback", "",
		} {
			res := w.do("GET", "/authorize?"+authParams(traineeClient, bad, ch, "").Encode(), "trainee", nil)
			if bad == "" { // omitted with one registered: that one
				if res.StatusCode != 302 || !strings.HasPrefix(res.Header.Get("Location"), cb+"?code=") {
					t.Errorf("an omitted redirect_uri: %d %s", res.StatusCode, res.Header.Get("Location"))
				} else {
					w.keep(w.redirectQuery(res, cb).Get("code"))
				}
				continue
			}
			if res.StatusCode != 400 || res.Header.Get("Location") != "" {
				t.Errorf("redirect_uri %q: %d, Location %q", bad, res.StatusCode, res.Header.Get("Location"))
			}
		}
		for _, bad := range []string{"http://127.0.0.1:5000/callback/x", "http://localhost:5000/callback", "https://127.0.0.1:5000/callback", "http://127.0.0.1:5000/callback?a=b", "http://u@127.0.0.1:5000/callback"} {
			res := w.do("GET", "/authorize?"+authParams(coachClient, bad, ch, "").Encode(), "coach", nil)
			if res.StatusCode != 400 {
				t.Errorf("loopback redirect_uri %q: %d", bad, res.StatusCode)
			}
		}
	})

	t.Run("PKCE", func(t *testing.T) {
		verifier, ch := pkce()
		for name, edit := range map[string]func(url.Values){
			"missing":   func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") },
			"plain":     func(v url.Values) { v.Set("code_challenge_method", "plain"); v.Set("code_challenge", verifier) },
			"no method": func(v url.Values) { v.Del("code_challenge_method") },
		} {
			p := authParams(traineeClient, cb, ch, "")
			edit(p)
			q := w.redirectQuery(w.do("GET", "/authorize?"+p.Encode(), "trainee", nil), cb)
			if q.Get("error") != "invalid_request" || q.Get("state") != p.Get("state") || !strings.Contains(q.Get("error_description"), "S256") {
				t.Errorf("PKCE %s: %v", name, q)
			}
		}
		q, _ := w.consent(authParams(traineeClient, cb, ch, ""), "trainee", "approve")
		if status, out := w.exchange(traineeClient, q.Get("code"), cb, strings.Repeat("w", 50)); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("a wrong verifier: %d %v", status, out)
		}
		if status, out := w.exchange(traineeClient, q.Get("code"), cb, verifier); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("the right verifier after a failed try (the code is spent): %d %v", status, out)
		}
	})

	t.Run("CodeReplayRevokes", func(t *testing.T) {
		verifier, ch := pkce()
		q, _ := w.consent(authParams(traineeClient, cb, ch, ""), "trainee", "approve")
		status, tok := w.exchange(traineeClient, q.Get("code"), cb, verifier)
		if status != 200 {
			t.Fatal(status, tok)
		}
		if status, out := w.exchange(traineeClient, q.Get("code"), cb, verifier); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("a replayed code: %d %v", status, out)
		}
		if status, _ := w.lane(tok["access_token"].(string), "/trainees/"+w.trainee.ID); status != 401 {
			t.Fatalf("the first use's token after a replay: %d", status)
		}
	})

	t.Run("CodeOfAnotherClient", func(t *testing.T) {
		thief := w.publicClient(cb)
		verifier, ch := pkce()
		q, _ := w.consent(authParams(traineeClient, cb, ch, ""), "trainee", "approve")
		if status, out := w.exchange(thief, q.Get("code"), cb, verifier); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("client B redeeming client A's code: %d %v", status, out)
		}
	})

	t.Run("ExpiredCode", func(t *testing.T) {
		verifier, ch := pkce()
		q, _ := w.consent(authParams(traineeClient, cb, ch, ""), "trainee", "approve")
		w.clock.Advance(oauth.CodeTTL + time.Second)
		if status, out := w.exchange(traineeClient, q.Get("code"), cb, verifier); status != 400 || out["error"] != "invalid_grant" || !strings.Contains(out["error_description"].(string), "expired") {
			t.Fatalf("an expired code: %d %v", status, out)
		}
	})

	t.Run("Resource", func(t *testing.T) {
		_, ch := pkce()
		for _, r := range []string{w.url + "/mcp", w.url + "/mcp/", w.url, w.url + "/"} {
			p := authParams(traineeClient, cb, ch, "")
			p.Set("resource", r)
			if res := w.do("GET", "/authorize?"+p.Encode(), "trainee", nil); res.StatusCode != 302 || strings.Contains(res.Header.Get("Location"), "error=") {
				t.Errorf("resource %q: %d %s", r, res.StatusCode, res.Header.Get("Location"))
			} else {
				w.keep(w.redirectQuery(res, cb).Get("code"))
			}
		}
		for _, r := range []string{"https://evil.example/mcp", w.url + "/v1/automation", w.url + "/mcpx"} {
			p := authParams(traineeClient, cb, ch, "")
			p.Set("resource", r)
			if q := w.redirectQuery(w.do("GET", "/authorize?"+p.Encode(), "trainee", nil), cb); q.Get("error") != "invalid_target" {
				t.Errorf("resource %q: %v", r, q)
			}
		}
		p := authParams(traineeClient, cb, ch, "profile:read rootkit:all")
		if q := w.redirectQuery(w.do("GET", "/authorize?"+p.Encode(), "trainee", nil), cb); q.Get("error") != "invalid_scope" {
			t.Errorf("an unknown scope: %v", q)
		}
	})

	t.Run("RefreshRotation", func(t *testing.T) {
		tok := w.flow(traineeClient, cb, "other", "profile:read")
		rt := tok["refresh_token"].(string)
		refresh := func(token, scope string) (int, map[string]any) {
			f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {traineeClient}}
			if scope != "" {
				f.Set("scope", scope)
			}
			status, out, _ := w.tokenReq("/token", f)
			return status, out
		}
		if status, out := refresh(rt, "profile:read health:read"); status != 400 || out["error"] != "invalid_scope" {
			t.Fatalf("scope escalation on refresh: %d %v", status, out)
		}
		status, first := refresh(rt, "")
		if status != 200 || first["refresh_token"] == rt || first["scope"] != "profile:read" {
			t.Fatalf("refresh: %d %v", status, first)
		}
		// A parallel refresh with the same token inside the grace gets a fresh valid pair.
		w.clock.Advance(oauth.RefreshGrace / 2)
		status, second := refresh(rt, "")
		if status != 200 || second["access_token"] == first["access_token"] {
			t.Fatalf("refresh in the grace: %d %v", status, second)
		}
		if status, _ := w.lane(second["access_token"].(string), "/trainees/"+w.other.ID); status != 200 {
			t.Fatalf("the grace's token: %d", status)
		}
		// After the grace the old token is a stolen one: the whole grant goes.
		w.clock.Advance(oauth.RefreshGrace)
		if status, out := refresh(rt, ""); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("reuse after the grace: %d %v", status, out)
		}
		for _, at := range []any{first["access_token"], second["access_token"]} {
			if status, _ := w.lane(at.(string), "/trainees/"+w.other.ID); status != 401 {
				t.Fatalf("a token of a grant revoked for refresh reuse: %d", status)
			}
		}
		if status, out := refresh(first["refresh_token"].(string), ""); status != 400 || out["error"] != "invalid_grant" {
			t.Fatalf("the newest refresh token of the revoked grant: %d %v", status, out)
		}
	})

	t.Run("Deny", func(t *testing.T) {
		_, ch := pkce()
		p := authParams(traineeClient, cb, ch, "health:read")
		q, _ := w.consent(p, "other", "deny")
		if q.Get("error") != "access_denied" || q.Get("state") != p.Get("state") || q.Get("code") != "" {
			t.Fatalf("deny: %v", q)
		}
	})

	t.Run("ConnectedAppsRevoke", func(t *testing.T) {
		page := readAll(t, w.do("GET", "/apps", "coach", nil))
		if !strings.Contains(page, "Test App") || !strings.Contains(page, "See the studio&#39;s trainees") || !strings.Contains(page, "Add and change trainees") {
			t.Fatalf("connected apps: %s", page)
		}
		grants, err := w.st.OAuth().PersonOAuthGrants(context.Background(), w.studioA.ID, w.coach.ID)
		must(t, err)
		if len(grants) == 0 {
			t.Fatal("no grants")
		}
		g := grants[len(grants)-1] // the first flow's
		if res := w.do("POST", "/apps/"+g.ID+"/revoke", "coach", url.Values{}); res.StatusCode != 403 {
			t.Fatalf("revoke without CSRF: %d", res.StatusCode)
		}
		if res := w.do("POST", "/apps/"+g.ID+"/revoke", "trainee", url.Values{"csrf": {w.csrfOf("trainee")}}); res.StatusCode != 404 {
			t.Fatalf("revoking someone else's app: %d", res.StatusCode)
		}
		at := coachToken["access_token"].(string)
		if status, _, _ := w.mcpStatus(at, toolsList); status != 200 {
			t.Fatalf("before the revocation: %d", status)
		}
		if res := w.do("POST", "/apps/"+g.ID+"/revoke", "coach", url.Values{"csrf": {w.csrfOf("coach")}}); res.StatusCode != 303 {
			t.Fatalf("revoke: %d", res.StatusCode)
		}
		if status, challenge, _ := w.mcpStatus(at, toolsList); status != 401 || !strings.Contains(challenge, "invalid_token") {
			t.Fatalf("the next /mcp request after the revocation: %d %q", status, challenge)
		}
		// Its consent is forgotten: connecting again asks again.
		_, ch := pkce()
		if res := w.do("GET", "/authorize?"+authParams(coachClient, loopCB, ch, "").Encode(), "coach", nil); res.StatusCode != 200 {
			t.Fatalf("after the revocation the consent page is skipped: %d", res.StatusCode)
		}
	})

	t.Run("RevokeEndpoint", func(t *testing.T) {
		tok := w.flow(traineeClient, cb, "trainee", "profile:read")
		status, _, _ := w.tokenReq("/revoke", url.Values{"token": {tok["refresh_token"].(string)}, "client_id": {traineeClient}})
		if status != 200 {
			t.Fatalf("revoke: %d", status)
		}
		if status, _ := w.lane(tok["access_token"].(string), "/trainees/"+w.trainee.ID); status != 401 {
			t.Fatalf("after revoking the refresh token: %d", status)
		}
		if status, _, _ := w.tokenReq("/revoke", url.Values{"token": {"pf_rt_unknown"}, "client_id": {traineeClient}}); status != 200 {
			t.Fatalf("an unknown token: %d", status)
		}
	})

	t.Run("ConfidentialClient", func(t *testing.T) {
		id, secret := w.register(map[string]any{"client_name": "Server App", "redirect_uris": []string{cb}})
		if secret == "" {
			t.Fatal("client_secret_basic (the default) got no secret")
		}
		verifier, ch := pkce()
		q, _ := w.consent(authParams(id, cb, ch, ""), "trainee", "approve")
		form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {cb}, "code_verifier": {verifier}}
		if status, out, _ := w.tokenReq("/token", form, id, "wrong"); status != 401 || out["error"] != "invalid_client" {
			t.Fatalf("a wrong secret: %d %v", status, out)
		}
		form.Set("client_id", id)
		if status, out, _ := w.tokenReq("/token", form); status != 401 || out["error"] != "invalid_client" {
			t.Fatalf("no secret: %d %v", status, out)
		}
		form.Del("client_id")
		if status, out, _ := w.tokenReq("/token", form, id, secret); status != 200 {
			t.Fatalf("client_secret_basic: %d %v", status, out)
		}
		for _, bad := range []map[string]any{
			{"redirect_uris": []string{"http://evil.example/cb"}},
			{"redirect_uris": []string{}},
			{"redirect_uris": []string{cb}, "token_endpoint_auth_method": "private_key_jwt"},
			{"redirect_uris": []string{cb}, "grant_types": []string{"client_credentials"}},
		} {
			raw, _ := json.Marshal(bad)
			res, err := http.Post(w.url+"/register", "application/json", strings.NewReader(string(raw)))
			must(t, err)
			res.Body.Close()
			if res.StatusCode != 400 {
				t.Errorf("register %s: %d", raw, res.StatusCode)
			}
		}
	})

	t.Run("MetadataDocument", func(t *testing.T) {
		var docURL string
		mux := http.NewServeMux()
		doc := func(clientID string) string {
			return fmt.Sprintf(`{"client_id":%q,"client_name":"Doc App","redirect_uris":["%s"],"token_endpoint_auth_method":"none"}`, clientID, cb)
		}
		mux.HandleFunc("/good.json", func(rw http.ResponseWriter, r *http.Request) {
			rw.Header().Set("Cache-Control", "max-age=60")
			io.WriteString(rw, doc(docURL+"/good.json"))
		})
		mux.HandleFunc("/mismatch.json", func(rw http.ResponseWriter, r *http.Request) { io.WriteString(rw, doc("https://other.example/x.json")) })
		mux.HandleFunc("/big.json", func(rw http.ResponseWriter, r *http.Request) {
			io.WriteString(rw, `{"x":"`+strings.Repeat("a", 70<<10)+`"}`)
		})
		mux.HandleFunc("/slow.json", func(rw http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		mux.HandleFunc("/private.json", func(rw http.ResponseWriter, r *http.Request) {
			http.Redirect(rw, r, "https://10.1.2.3/doc.json", http.StatusFound)
		})
		mux.HandleFunc("/metadata.json", func(rw http.ResponseWriter, r *http.Request) {
			http.Redirect(rw, r, "http://169.254.169.254/latest/meta-data", http.StatusFound)
		})
		docs := httptest.NewServer(mux)
		defer docs.Close()
		docURL = docs.URL
		verifier, ch := pkce()
		q, page := w.consent(authParams(docURL+"/good.json", cb, ch, ""), "trainee", "approve")
		if !strings.Contains(page, "Doc App") || !strings.Contains(page, docURL+"/good.json") || !strings.Contains(page, "metadata document") {
			t.Fatalf("the consent page of a metadata client: %s", page)
		}
		if status, out := w.exchange(docURL+"/good.json", q.Get("code"), cb, verifier); status != 200 {
			t.Fatalf("exchange: %d %v", status, out)
		}
		for name, want := range map[string]string{
			"/mismatch.json": "is not its own URL", "/big.json": "larger than", "/slow.json": "fetching it failed",
			"/private.json": "not public", "/metadata.json": "not public",
		} {
			res := w.do("GET", "/authorize?"+authParams(docURL+name, cb, ch, "").Encode(), "trainee", nil)
			if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(html.UnescapeString(body), want) {
				t.Errorf("%s: %d %s; want %q", name, res.StatusCode, body, want)
			}
		}
	})

	t.Run("NoSecretInPlainText", func(t *testing.T) {
		checkNoPlaintext(t, w.st.DB(), w.secrets)
		logs := w.logs.String()
		for _, s := range w.secrets {
			if s != "" && strings.Contains(logs, s) {
				t.Fatalf("the log holds a secret %s…", s[:10])
			}
		}
	})
}

// checkNoPlaintext reads every row of the OAuth tables and finds none of secrets.
func checkNoPlaintext(t *testing.T, db *sql.DB, secrets []string) {
	t.Helper()
	n := 0
	for _, s := range secrets {
		if s != "" {
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d secrets were seen; the flows did not run", n)
	}
	for _, table := range []string{"oauth_clients", "oauth_grants", "oauth_codes", "oauth_tokens", "oauth_consents", "audit_events"} {
		rows, err := db.Query("SELECT * FROM " + table)
		if err != nil {
			if table == "audit_events" {
				continue
			}
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		rowsSeen := 0
		for rows.Next() {
			must(t, rows.Scan(ptrs...))
			rowsSeen++
			var b strings.Builder
			for _, v := range vals {
				fmt.Fprintf(&b, "%s|", v)
			}
			for _, s := range secrets {
				if s != "" && strings.Contains(b.String(), s) {
					t.Fatalf("%s holds a secret in plain text (%s…)", table, s[:10])
				}
			}
		}
		rows.Close()
		if rowsSeen == 0 && slices.Contains([]string{"oauth_clients", "oauth_grants", "oauth_tokens"}, table) {
			t.Fatalf("%s is empty", table)
		}
	}
}

// The MCP Go SDK's own OAuth client completes the flow against the real
// server: discovery from /mcp's 401, dynamic registration, the browser
// step (driven here as the signed-in coach), the code exchange, then a
// coach tool call with the token it got.
func TestGoSDKOAuthClient(t *testing.T) {
	t.Parallel()
	w := newASWorld(t, sqliteURL(t))
	const redirect = "http://127.0.0.1:61234/callback"
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Go SDK client", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: w.browserStep("coach"),
	})
	must(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-oauth", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: w.url + "/mcp", OAuthHandler: handler}, nil)
	must(t, err)
	defer cs.Close()
	res := mcptest.Call(t, cs, "find_trainee_by_phone", map[string]any{"phone": "050-111-0002"})
	if res.IsError || !strings.Contains(mcptest.Text(res), w.other.ID) {
		t.Fatalf("find_trainee_by_phone: %s", mcptest.Text(res))
	}
	grants, err := w.st.OAuth().PersonOAuthGrants(context.Background(), w.studioA.ID, w.coach.ID)
	must(t, err)
	if len(grants) != 1 || grants[0].ClientName != "Go SDK client" || !slices.Equal(grants[0].Scopes, oauth.CoachScopes) {
		t.Fatalf("grants after the SDK's flow: %+v", grants)
	}
}

// The same with a client ID metadata document on HTTPS: the server fetches
// it (trusting the test server's certificate), and the consent names its URL.
func TestGoSDKOAuthClientMetadataDocument(t *testing.T) {
	t.Parallel()
	const redirect = "http://127.0.0.1:61235/callback"
	var docURL string
	docs := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(rw, `{"client_id":%q,"client_name":"Go SDK by document","redirect_uris":[%q],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`, docURL, redirect)
	}))
	defer docs.Close()
	docURL = docs.URL + "/oauth/client.json"
	w := newASWorld(t, sqliteURL(t), func(o *oauth.Options) {
		o.MetadataRootCAs = docs.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	})
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{URL: docURL},
		RedirectURL:                    redirect,
		AuthorizationCodeFetcher:       w.browserStep("coach"),
	})
	must(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-cimd", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: w.url + "/mcp", OAuthHandler: handler}, nil)
	must(t, err)
	defer cs.Close()
	res := mcptest.Call(t, cs, "search_trainees", map[string]any{"q": "Other"})
	if res.IsError || !strings.Contains(mcptest.Text(res), w.other.ID) {
		t.Fatalf("search_trainees: %s", mcptest.Text(res))
	}
	grants, err := w.st.OAuth().PersonOAuthGrants(context.Background(), w.studioA.ID, w.coach.ID)
	must(t, err)
	if len(grants) != 1 || grants[0].ClientID != docURL || grants[0].ClientName != "Go SDK by document" {
		t.Fatalf("grants after the SDK's flow: %+v", grants)
	}
}

// browserStep is an AuthorizationCodeFetcher that plays session's browser:
// open the authorization URL, approve the consent page, and read the code
// off the redirect.
func (w *asWorld) browserStep(session string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil || !strings.HasPrefix(args.URL, w.url+"/authorize?") {
			return nil, fmt.Errorf("the authorization URL %q is not this server's", args.URL)
		}
		params := u.Query()
		q, _ := w.consent(params, session, "approve")
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

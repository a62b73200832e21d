package traineetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/server"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// world is a running server and the OAuth client the tests sign in with.
type world struct {
	t        *testing.T
	url      string
	st       store.Store
	clock    *testkit.Clock  // the server's, moved by hand (the per-person limits' hour)
	logs     *testkit.Buffer // the server's log, read for the sign-in codes
	clientID string
	signInMu sync.Mutex // one sign-in at a time: codes are told apart by phone in the log
}

// newWorld starts the server configured as env says, over the
// environment's variable names (the per-person limits), on a fresh SQLite
// file, with the server-wide limiter out of the way.
func newWorld(t *testing.T, env map[string]string) *world {
	t.Helper()
	return newWorldOn(t, storetest.SQLiteFile(t), time.Now(), env)
}

// newWorldOn is newWorld on the SQLite file at path (migrated, so the
// server's start does not migrate it), its clock starting at start.
func newWorldOn(t *testing.T, path string, start time.Time, env map[string]string) *world {
	t.Helper()
	vars := map[string]string{"PERFORM_DATABASE_URL": path, "RATE_LIMIT_MAX": "1000000",
		"PERFORM_TRAINEE_READS_PER_HOUR": "1000000", "PERFORM_TRAINEE_WRITES_PER_HOUR": "1000000"}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.FromEnv(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, clock: testkit.NewClock(start), logs: &testkit.Buffer{}}
	var s *server.Server
	logger := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var as *oauth.Server
	s, err = server.New(context.Background(), cfg, logger, server.WithClock(w.clock.Now), server.WithAuthn(func(p *server.Parts, inner auth.Authenticator) (auth.Authenticator, error) {
		// The sign-in as `perform serve` mounts it, with room for many
		// people signing in from 127.0.0.1 within minutes.
		svc := login.New(login.Options{Store: p.Store, Logger: p.Logger, Now: w.clock.Now,
			Limits: login.Limits{AddrStarts: 10_000, AddrTries: 10_000, PhoneCodes: 100}})
		mux := http.NewServeMux()
		svc.Register(mux)
		for _, pattern := range []string{"/login", "/login/", "/logout"} {
			p.Handle(pattern, mux, false)
		}
		var authn auth.Authenticator
		as, authn = oauth.Mount(oauth.Host{Store: p.Store, Logger: p.Logger, Redis: p.Redis, Handle: p.Handle}, inner,
			oauth.Options{Browser: oauth.FromLogin(svc), Now: w.clock.Now})
		return authn, nil
	}), server.WithPlugin(func(p *server.Parts) error {
		mountMCP(p, as)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	w.url, w.st = srv.URL, s.Store()
	c, _, err := oauth.AddClient(context.Background(), w.st, time.Now(), store.ClientFromCLI, "Trainee tests", []string{"http://127.0.0.1/callback"}, "none")
	if err != nil {
		t.Fatal(err)
	}
	w.clientID = c.ID
	return w
}

// mountMCP serves /mcp as cmd/perform's serve does.
func mountMCP(p *server.Parts, as *oauth.Server) {
	client := laneclient.New("http://perform.internal", laneclient.HandlerTransport(p.Lane), domain.SourceMCP)
	gate := mcpserver.Gate{Authenticator: p.Authenticator(), Limiter: p.Limiter, Logger: p.Logger,
		ResourceMetadata: as.ResourceMetadataURL, Scope: strings.Join(oauth.Scopes, " ")}
	p.Handle("/mcp", gate.Wrap(mcpserver.New(mcpserver.Options{Client: client, Logger: slog.New(slog.DiscardHandler)})), false)
}

var (
	csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	formRE    = regexp.MustCompile(`(?s)<form method="post" action="/authorize">(.*?)</form>`)
	hiddenRE  = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// token signs the person whose phone it is in as a browser would and
// answers the access token of the grant: /authorize (PKCE S256), the
// sign-in with the one-time code read from the log, the consent page
// approved, the code read off the redirect to the loopback callback and
// redeemed at /token. scope "" asks for the person's default scopes.
func (w *world) token(phone, scope string) string {
	w.t.Helper()
	w.signInMu.Lock()
	defer w.signInMu.Unlock()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Host == "127.0.0.1" { // the callback: nothing listens there
			return http.ErrUseLastResponse
		}
		return nil
	}}
	verifier := rand.Text() + rand.Text() // 52 characters of the PKCE alphabet
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {w.clientID}, "redirect_uri": {"http://127.0.0.1/callback"},
		"state": {"s1"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"resource": {w.url + "/mcp"}}
	if scope != "" {
		q.Set("scope", scope)
	}
	page, res := w.get(c, w.url+"/authorize?"+q.Encode())
	if res.Request.URL.Path != "/login" {
		w.t.Fatalf("/authorize did not send a new browser to sign in: %s %d", res.Request.URL, res.StatusCode)
	}
	next := res.Request.URL.Query().Get("next")
	before := strings.Count(w.logs.String(), "sign-in code")
	w.post(c, w.url+"/login", url.Values{"csrf": {csrfOf(w.t, page)}, "phone": {phone}, "next": {next}})
	code := w.code(phone, before)
	page, _ = w.get(c, w.url+"/login/code")
	page, res = w.post(c, w.url+"/login/code", url.Values{"csrf": {csrfOf(w.t, page)}, "code": {code}})
	loc := res.Header.Get("Location")
	if loc == "" { // the consent page, after the sign-in's redirect back to /authorize
		m := formRE.FindStringSubmatch(page)
		if m == nil {
			w.t.Fatalf("signing in %s ended on %s (%d) with no consent form: %s", phone, res.Request.URL, res.StatusCode, page)
		}
		form := url.Values{"decision": {"approve"}}
		for _, h := range hiddenRE.FindAllStringSubmatch(m[1], -1) {
			form.Add(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
		}
		_, res = w.post(c, w.url+"/authorize", form)
		loc = res.Header.Get("Location")
	}
	back, err := url.Parse(loc)
	if err != nil || back.Query().Get("code") == "" {
		w.t.Fatalf("the consent of %s sent the browser to %q, not the callback with a code", phone, loc)
	}
	tokRes, err := http.PostForm(w.url+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")},
		"redirect_uri": {"http://127.0.0.1/callback"}, "client_id": {w.clientID}, "code_verifier": {verifier}})
	if err != nil {
		w.t.Fatal(err)
	}
	defer tokRes.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(tokRes.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		w.t.Fatalf("the token endpoint answered %d (%v)", tokRes.StatusCode, err)
	}
	return tok.AccessToken
}

// code waits for the code sent to phone after the before-th code line.
func (w *world) code(phone string, before int) string {
	digits := regexp.MustCompile(`\D`).ReplaceAllString(phone, "")
	for range 1000 { // the code is written by a goroutine
		all := testkit.SentCodes(w.logs.String())
		if len(all) > before && all[len(all)-1].Last4 == digits[len(digits)-4:] {
			return all[len(all)-1].Code
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.t.Fatalf("no sign-in code for %s reached the log", phone)
	return ""
}

func (w *world) get(c *http.Client, u string) (string, *http.Response) {
	w.t.Helper()
	res, err := c.Get(u)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b), res
}

func (w *world) post(c *http.Client, u string, form url.Values) (string, *http.Response) {
	w.t.Helper()
	res, err := c.PostForm(u, form)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 400 {
		w.t.Fatalf("POST %s answered %d: %s", u, res.StatusCode, b)
	}
	return string(b), res
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no CSRF field: %s", page)
	}
	return html.UnescapeString(m[1])
}

// bearer adds the access token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session on /mcp with the Go SDK's client.
func (w *world) connect(token string) *mcp.ClientSession {
	w.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "trainee-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: w.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)},
	}, nil)
	if err != nil {
		w.t.Fatalf("connect: %v", err)
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs
}

// studioKey mints a studio key (every studio scope) for the lane's own calls.
func (w *world) studioKey(studioID string) string {
	w.t.Helper()
	key := auth.NewKey()
	if err := w.st.CreateAPIKey(context.Background(), &domain.APIKey{StudioID: studioID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key)}); err != nil {
		w.t.Fatal(err)
	}
	return key
}

// lane calls the lane with a bearer and answers the status and body.
func (w *world) lane(bearerToken, method, path string, body any) (int, []byte) {
	w.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, w.url+lane.Prefix+path, r)
	req.Header.Set("Authorization", "Bearer "+bearerToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// call calls a tool and answers its result; a protocol error fails t.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// text is a result's text blocks joined.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// answer is what a model reads of a result: its structured content when
// there is one, else its text.
func answer(res *mcp.CallToolResult) string {
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		return string(b)
	}
	return text(res)
}

func mustOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) answered an error: %s", name, args, text(res))
	}
	return answer(res)
}

// connectQuiet and callQuiet are connect and call for goroutines: they
// answer errors instead of failing a test.
func connectQuiet(base, token string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "trainee-test", Version: "1"}, nil)
	return client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)},
	}, nil)
}

func callQuiet(cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

func sessionsOf(traineeID string) store.SessionFilter {
	return store.SessionFilter{TraineeID: traineeID, Page: store.Page{Limit: 200}}
}

// decodeInto reads structured content (decoded JSON) into v.
func decodeInto(t *testing.T, content any, v any) {
	t.Helper()
	b, err := json.Marshal(content)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

package mcptest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
)

// GatedPath is where the fixture serves /mcp behind the Gate, as the
// server does: the credential checked before the SDK sees a message, and a
// grant's scope shortfall answered as an insufficient_scope challenge.
const GatedPath = "/gated/mcp"

// personHeader names the person the stand-in browser says is signed in:
// "<studio id> <kind> <subject id>".
const personHeader = "X-Test-Person"

// testBrowser stands in for the sign-in (phone and one-time code, which
// internal/login and cmd/perform's tests cover): the person is the one the
// request names. Everything after the sign-in is the authorization
// server's own: consent, code, PKCE, token.
type testBrowser struct{}

func (testBrowser) Person(r *http.Request) (oauth.Person, bool) {
	f := strings.Fields(r.Header.Get(personHeader))
	if len(f) != 3 {
		return oauth.Person{}, false
	}
	return oauth.Person{StudioID: f[0], Kind: f[1], SubjectID: f[2], Name: "Test"}, true
}

func (b testBrowser) RequireSignIn(w http.ResponseWriter, r *http.Request) (oauth.Person, bool) {
	p, ok := b.Person(r)
	if !ok {
		http.Error(w, "not signed in", http.StatusUnauthorized)
	}
	return p, ok
}

func (testBrowser) CSRFToken(*http.Request) string { return "csrf" }
func (testBrowser) CheckCSRF(*http.Request) bool   { return true }

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// TraineeToken connects an app for the trainee traineeID of studio s with
// the scopes asked for (space-separated; "" for the defaults), through the
// authorization code flow with PKCE, and returns the access token.
func (f *Fixture) TraineeToken(t testing.TB, s Studio, traineeID, scope string) string {
	t.Helper()
	return f.grantToken(t, s, "trainee", traineeID, scope)
}

func (f *Fixture) grantToken(t testing.TB, s Studio, kind, subject, scope string) string {
	t.Helper()
	ctx := context.Background()
	studio, err := f.Store.StudioBySlug(ctx, s.Slug)
	if err != nil {
		t.Fatal(err)
	}
	redirect := "http://127.0.0.1/callback"
	client, _, err := oauth.AddClient(ctx, f.Store, time.Now(), store.ClientFromCLI, "Test app", []string{redirect}, "none")
	if err != nil {
		t.Fatal(err)
	}
	verifier := "verifier-" + ids.New(ids.Request) + "-0123456789abcdefghijklmnop"
	sum := sha256.Sum256([]byte(verifier))
	params := url.Values{"response_type": {"code"}, "client_id": {client.ID}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "resource": {f.URL + "/mcp"}}
	if scope != "" {
		params.Set("scope", scope)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	person := studio.ID + " " + kind + " " + subject
	req, _ := http.NewRequest(http.MethodGet, f.URL+"/authorize?"+params.Encode(), nil)
	req.Header.Set(personHeader, person)
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode == http.StatusOK { // the consent page: approve it
		form := url.Values{}
		for _, m := range hiddenInput.FindAllStringSubmatch(string(page), -1) {
			form.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
		}
		form.Set("decision", "approve")
		req, _ = http.NewRequest(http.MethodPost, f.URL+"/authorize", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(personHeader, person)
		if res, err = noRedirect.Do(req); err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d %s", res.StatusCode, page)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("authorize redirected to %q", res.Header.Get("Location"))
	}
	res, err = http.PostForm(f.URL+"/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {client.ID},
		"code": {loc.Query().Get("code")}, "redirect_uri": {redirect}, "code_verifier": {verifier}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		Scope       string `json:"scope"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || res.StatusCode != http.StatusOK || tok.AccessToken == "" {
		t.Fatalf("token: %d %v", res.StatusCode, err)
	}
	return tok.AccessToken
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/login"
	"github.com/otherwise/perform/internal/oauth"
	performserver "github.com/otherwise/perform/internal/server"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// issuer is a real server with the sign-in and the authorization server,
// on 127.0.0.1, its JSON log in a file, and a studio with a coach and a
// trainee who can sign in.
type issuer struct {
	url, logPath string
	st           store.Store
	studio       domain.Studio
	trainee      domain.Trainee
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{logPath: filepath.Join(t.TempDir(), "perform.log")}
	logFile, err := os.Create(is.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	logger := slog.New(slog.NewJSONHandler(logFile, nil))
	cfg := config.Defaults()
	cfg.DatabaseURL = storetest.SQLiteFile(t)
	cfg.RateLimitMax = 10_000
	s, err := performserver.New(context.Background(), cfg, logger, performserver.WithAuthn(func(p *performserver.Parts, inner auth.Authenticator) (auth.Authenticator, error) {
		svc := login.New(login.Options{Store: p.Store, Logger: p.Logger})
		mux := http.NewServeMux()
		svc.Register(mux)
		for _, pattern := range []string{"/login", "/login/", "/logout"} {
			p.Handle(pattern, mux, false)
		}
		_, authn := oauth.Mount(oauth.Host{Store: p.Store, Logger: p.Logger, Redis: p.Redis, Handle: p.Handle}, inner,
			oauth.Options{Browser: oauth.FromLogin(svc)})
		return authn, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	is.url, is.st = srv.URL, s.Store()

	ctx := context.Background()
	is.studio = domain.Studio{Name: "Driver studio", Slug: "driver-token"}
	if err := is.st.CreateStudio(ctx, &is.studio); err != nil {
		t.Fatal(err)
	}
	ss := is.st.Studio(is.studio.ID)
	if err := ss.CreateCoach(ctx, &domain.Coach{Name: "Dana Levi", Phone: ptr("+972501234567"), Active: true}); err != nil {
		t.Fatal(err)
	}
	is.trainee = domain.Trainee{FirstName: "Noa", LastName: "Cohen", Phone: "+972503000000"}
	if err := ss.CreateTrainee(ctx, &is.trainee); err != nil {
		t.Fatal(err)
	}
	return is
}

// runToken runs the driver in token mode and answers its stdout lines.
func (is *issuer) runToken(t *testing.T, args ...string) (int, []string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"--issuer", is.url, "--log", is.logPath, "--wait", "10s"}, args...)
	code := run(context.Background(), args, &out, &errOut)
	return code, strings.Fields(out.String()), errOut.String()
}

// get sends GET path to the lane with token as the bearer.
func (is *issuer) get(t *testing.T, token, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, is.url+lane.Prefix+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return res.StatusCode, b.String()
}

func TestTokenModeRegistersSignsInAndPrintsTheTrainee(t *testing.T) {
	is := newIssuer(t)
	code, lines, errOut := is.runToken(t, "--phone", "050-300-0000", "--scope", "profile:read training:read", "--refresh")
	if code != 0 {
		t.Fatalf("driver exited %d: %s", code, errOut)
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "pf_at_") || !strings.HasPrefix(lines[1], "pf_rt_") {
		t.Fatalf("stdout is %q, want the access token and the refresh token", lines)
	}
	if !strings.Contains(errOut, "registered the public client") || !strings.Contains(errOut, "/authorize: submitting the form") {
		t.Fatalf("the steps did not reach stderr: %s", errOut)
	}
	// The token is the trainee's, with the scopes asked for: their own
	// profile opens (profile:read), and it is theirs.
	status, body := is.get(t, lines[0], "/trainees/"+is.trainee.ID)
	if status != http.StatusOK || !strings.Contains(body, is.trainee.ID) {
		t.Fatalf("GET own profile with the token: %d %s", status, body)
	}
	// The refresh token works once at the token endpoint, as a public client's.
	grants, err := is.st.OAuth().PersonOAuthGrants(context.Background(), is.studio.ID, is.trainee.ID)
	if err != nil || len(grants) != 1 || strings.Join(grants[0].Scopes, " ") != "profile:read training:read" {
		t.Fatalf("the trainee's grants are %+v (%v), want one with profile:read training:read", grants, err)
	}
	res, err := http.PostForm(is.url+"/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {lines[1]}, "client_id": {grants[0].ClientID}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var fresh tokenSet
	if err := json.NewDecoder(res.Body).Decode(&fresh); err != nil || res.StatusCode != http.StatusOK || fresh.AccessToken == "" {
		t.Fatalf("refreshing: %d %+v %v", res.StatusCode, fresh, err)
	}
}

func TestTokenModeUsesAGivenClientAndItsScopes(t *testing.T) {
	is := newIssuer(t)
	c, _, err := oauth.AddClient(context.Background(), is.st, time.Now(), store.ClientFromCLI, "Scripts", []string{callbackURI}, "none")
	if err != nil {
		t.Fatal(err)
	}
	code, lines, errOut := is.runToken(t, "--phone", "050-300-0000", "--client-id", c.ID, "--scope", "training:read")
	if code != 0 || len(lines) != 1 {
		t.Fatalf("driver exited %d, stdout %q: %s", code, lines, errOut)
	}
	if strings.Contains(errOut, "registered") {
		t.Fatalf("the driver registered a client although one was given: %s", errOut)
	}
	// training:read alone does not open the profile (profile:read).
	if status, body := is.get(t, lines[0], "/trainees/"+is.trainee.ID); status != http.StatusForbidden || !strings.Contains(body, "profile:read") {
		t.Fatalf("GET own profile with a training:read token: %d %s, want 403 naming profile:read", status, body)
	}
	// A second run needs no consent (approved before) and still gets a token.
	code, lines, errOut = is.runToken(t, "--phone", "050-300-0000", "--client-id", c.ID, "--scope", "training:read")
	if code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "pf_at_") {
		t.Fatalf("second run exited %d, stdout %q: %s", code, lines, errOut)
	}
}

func TestTokenModeSaysWhyItFailed(t *testing.T) {
	is := newIssuer(t)
	if code, _, errOut := is.runToken(t, "--phone", "050-300-0000", "--decision", "deny"); code != 1 || !strings.Contains(errOut, "access_denied") {
		t.Fatalf("a denied consent: exit %d, %s", code, errOut)
	}
	if code, _, errOut := is.runToken(t, "--phone", "050-300-0000", "--scope", "no:such"); code != 1 || !strings.Contains(errOut, "invalid_scope") {
		t.Fatalf("an unknown scope: exit %d, %s", code, errOut)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--issuer", is.url + "/nothing-here", "--log", is.logPath}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "metadata") {
		t.Fatalf("a wrong issuer: exit %d, %s", code, errOut.String())
	}
	if code := run(context.Background(), []string{"--issuer", is.url}, &out, &errOut); code != 2 {
		t.Fatalf("without --log the driver exited %d, want 2", code)
	}
}

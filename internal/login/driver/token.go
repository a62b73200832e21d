package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// callbackURI is the loopback redirect URI the driver registers and sends:
// nothing listens there; the driver reads the code off the redirect.
const callbackURI = "http://127.0.0.1/callback"

// serverMeta is the part of the authorization server's metadata (RFC 8414)
// the flow needs.
type serverMeta struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	RegistrationEndpoint  string   `json:"registration_endpoint"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
}

// tokenSet is the token endpoint's answer.
type tokenSet struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// tokens runs the authorization-code flow with PKCE S256 as a public
// client against issuer: discovery, registration unless clientID is given,
// the sign-in and consent (signIn), and the code's exchange.
func (d *driver) tokens(ctx context.Context, issuer, clientID, scope string) (*tokenSet, error) {
	issuer = strings.TrimRight(issuer, "/")
	api := &http.Client{Timeout: 30 * time.Second}
	meta, err := discover(ctx, api, issuer)
	if err != nil {
		return nil, err
	}
	if clientID == "" {
		if clientID, err = register(ctx, api, meta); err != nil {
			return nil, err
		}
		fmt.Fprintf(d.out, "registered the public client %s\n", clientID)
	}
	verifier := randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	state := randomString(16)
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {callbackURI},
		"state":                 {state},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"resource":              {issuer + "/mcp"},
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	d.callback, _ = url.Parse(callbackURI)
	landed, err := d.signIn(ctx, meta.AuthorizationEndpoint+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	back, err := url.Parse(landed)
	if err != nil || !isCallback(d.callback, back) {
		return nil, fmt.Errorf("the sign-in ended at %s, not at the callback %s", landed, callbackURI)
	}
	got := back.Query()
	switch {
	case got.Get("error") != "":
		return nil, fmt.Errorf("the authorization was refused: %s: %s", got.Get("error"), got.Get("error_description"))
	case got.Get("state") != state:
		return nil, fmt.Errorf("the callback's state %q is not the one sent", got.Get("state"))
	case got.Has("iss") && got.Get("iss") != meta.Issuer:
		return nil, fmt.Errorf("the callback's iss %q is not the issuer %q (RFC 9207)", got.Get("iss"), meta.Issuer)
	case got.Get("code") == "":
		return nil, fmt.Errorf("the callback %s holds no code", landed)
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {got.Get("code")},
		"redirect_uri":  {callbackURI},
		"client_id":     {clientID},
		"code_verifier": {verifier},
		"resource":      {issuer + "/mcp"},
	}
	var tok tokenSet
	if err := postJSON(ctx, api, meta.TokenEndpoint, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()), http.StatusOK, &tok); err != nil {
		return nil, fmt.Errorf("exchanging the code: %w", err)
	}
	if tok.AccessToken == "" {
		return nil, errors.New("the token endpoint answered no access_token")
	}
	fmt.Fprintf(d.out, "got a %s token for %q, expiring in %d s\n", tok.TokenType, tok.Scope, tok.ExpiresIn)
	return &tok, nil
}

// discover reads the issuer's metadata and checks what the flow relies on.
func discover(ctx context.Context, c *http.Client, issuer string) (*serverMeta, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, issuer+"/.well-known/oauth-authorization-server", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var m serverMeta
	if err := decode(resp, http.StatusOK, &m); err != nil {
		return nil, fmt.Errorf("reading the authorization server's metadata: %w", err)
	}
	switch {
	case m.Issuer != issuer:
		return nil, fmt.Errorf("the metadata names the issuer %q, not %q", m.Issuer, issuer)
	case m.AuthorizationEndpoint == "" || m.TokenEndpoint == "":
		return nil, errors.New("the metadata lacks authorization_endpoint or token_endpoint")
	case !slices.Contains(m.CodeChallengeMethods, "S256"):
		return nil, errors.New("the server does not list PKCE S256 in code_challenge_methods_supported")
	}
	return &m, nil
}

// register registers a public client (RFC 7591) with the loopback callback.
func register(ctx context.Context, c *http.Client, m *serverMeta) (string, error) {
	if m.RegistrationEndpoint == "" {
		return "", errors.New("the server offers no dynamic registration; pass --client-id")
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "Perform login driver",
		"redirect_uris":              []string{callbackURI},
		"token_endpoint_auth_method": "none",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	})
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := postJSON(ctx, c, m.RegistrationEndpoint, "application/json", bytes.NewReader(body), http.StatusCreated, &out); err != nil {
		return "", fmt.Errorf("registering a client: %w", err)
	}
	if out.ClientID == "" {
		return "", errors.New("the registration answered no client_id")
	}
	return out.ClientID, nil
}

func postJSON(ctx context.Context, c *http.Client, target, contentType string, body io.Reader, want int, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decode(resp, want, into)
}

// decode reads a JSON answer of status want into v, or says what came instead.
func decode(resp *http.Response, want int, v any) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s answered %d: %s", resp.Request.URL, resp.StatusCode, snippet(string(b)))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s answered no JSON object: %w", resp.Request.URL, err)
	}
	return nil
}

// isCallback reports whether u is the callback, on any port (RFC 8252).
func isCallback(callback, u *url.URL) bool {
	return u.Scheme == callback.Scheme && u.Hostname() == callback.Hostname() && u.Path == callback.Path
}

// randomString is n random bytes, base64url: PKCE verifiers (43 characters
// for 32 bytes) and states.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

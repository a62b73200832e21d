package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/schema"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// Limits of a client's metadata, registered or fetched, and of
// registration.
const (
	// MaxRegistrationBytes bounds a registration request's body.
	MaxRegistrationBytes = 16 << 10
	// MaxRedirectURIs bounds how many redirect URIs a client lists, and
	// MaxURILength how long each URI of its metadata is, in bytes.
	MaxRedirectURIs = 10
	MaxURILength    = 1024
	// DefaultRegistrationsPerHour is how many clients one address (an IPv6
	// address with its /64) may register an hour unless Options say.
	DefaultRegistrationsPerHour = 20
	// UnusedClientTTL is how long a registered client that no grant used
	// is kept: the sweep deletes it after that.
	UnusedClientTTL = 24 * time.Hour

	// maxClientName bounds a client's name, in characters.
	maxClientName = 100
)

// metadataError is client metadata Perform refuses: RFC 7591's error code
// (invalid_client_metadata or invalid_redirect_uri) and the sentence why.
type metadataError struct{ code, msg string }

func (e *metadataError) Error() string { return e.msg }

func badMetadata(format string, a ...any) *metadataError {
	return &metadataError{"invalid_client_metadata", sentence(fmt.Sprintf(format, a...))}
}

func badRedirect(format string, a ...any) *metadataError {
	return &metadataError{"invalid_redirect_uri", sentence(fmt.Sprintf(format, a...))}
}

func sentence(s string) string {
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// decodeClientMetadata reads one JSON object of client metadata into dst:
// exactly one object (nothing after it), every string of it text by the
// text rule (read from the raw bytes: the decoder would turn invalid UTF-8
// into U+FFFD without a word), and values of the types RFC 7591 says.
func decodeClientMetadata(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) || len(trimmed) == 0 || trimmed[0] != '{' {
		return badMetadata("The body must be one JSON object of client metadata (RFC 7591), of at most %d KiB, and nothing after it", MaxRegistrationBytes>>10)
	}
	if at, problem := text.JSONProblem(trimmed); problem != "" {
		field := strings.TrimPrefix(at, ".")
		msg := schema.TextMessage(field, problem)
		if strings.HasPrefix(field, "redirect_uris") {
			return badRedirect("%s", msg)
		}
		return badMetadata("%s", msg)
	}
	if err := json.Unmarshal(trimmed, dst); err != nil {
		return badMetadata("The client metadata does not fit RFC 7591: %s", schema.JSONProblem(err))
	}
	return nil
}

// checkClientMetadata checks what registration and metadata documents
// share: the name, redirect URIs, the other URIs, grant and response types.
func checkClientMetadata(m *oauthex.ClientRegistrationMetadata) error {
	if len(m.RedirectURIs) == 0 {
		return badRedirect("redirect_uris is missing; list the URIs the client receives codes at")
	}
	if err := checkRedirectURIs(m.RedirectURIs); err != nil {
		return err
	}
	if err := checkName(m.ClientName); err != nil {
		return err
	}
	for _, f := range []struct{ name, uri string }{
		{"client_uri", m.ClientURI}, {"logo_uri", m.LogoURI}, {"tos_uri", m.TOSURI}, {"policy_uri", m.PolicyURI}, {"jwks_uri", m.JWKSURI},
	} {
		if err := checkWebURI(f.name, f.uri); err != nil {
			return err
		}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return badMetadata("grant_types: %q is not supported; use authorization_code and refresh_token", text.Truncate(g, 40))
		}
	}
	for _, t := range m.ResponseTypes {
		if t != "code" {
			return badMetadata("response_types: %q is not supported; use code", text.Truncate(t, 40))
		}
	}
	return nil
}

// checkRedirectURIs checks a client's redirect URIs: at most
// MaxRedirectURIs, each at most MaxURILength bytes, text by the text rule
// without bidirectional controls, and a URI a client may register.
func checkRedirectURIs(uris []string) error {
	if len(uris) > MaxRedirectURIs {
		return badRedirect("redirect_uris lists %d URIs; at most %d are allowed", len(uris), MaxRedirectURIs)
	}
	for i, u := range uris {
		field := fmt.Sprintf("redirect_uris[%d]", i)
		if len(u) > MaxURILength {
			return badRedirect("%s is %d bytes long; a redirect URI may be at most %d", field, len(u), MaxURILength)
		}
		if p := text.Problem(u); p != "" {
			return badRedirect("%s", schema.TextMessage(field, p))
		}
		if p := text.BidiProblem(u); p != "" {
			return badRedirect("%s %s; send the URI without it", field, p)
		}
		if err := checkRedirectURI(u); err != nil {
			return badRedirect("%s %q %v", field, text.Truncate(u, 200), err)
		}
	}
	return nil
}

// checkName checks the name a client gives itself, which the consent page
// shows: text (text.NameProblem) of at most maxClientName characters, with
// no invisible or format character that could make it read as another
// ("Good App\u202egnp.exe", "Per\u200bform").
func checkName(name string) error {
	if p := text.Problem(name); p != "" {
		return badMetadata("%s", schema.TextMessage("client_name", p))
	}
	if p := text.NameProblem(name, maxClientName); p != "" {
		return badMetadata("client_name %s; send a plain name of at most %d characters with no invisible or format character (the consent page shows it, where it must not pass for another app's)", p, maxClientName)
	}
	return nil
}

// checkWebURI checks one of the metadata's web pages or documents
// (client_uri, logo_uri, …): empty, or an absolute http or https URL with
// a host and no user information, never javascript:, data: or vbscript:.
func checkWebURI(field, raw string) error {
	if raw == "" {
		return nil
	}
	if len(raw) > MaxURILength {
		return badMetadata("%s is %d bytes long; at most %d are allowed", field, len(raw), MaxURILength)
	}
	if p := text.BidiProblem(raw); p != "" {
		return badMetadata("%s %s; send the URL without it", field, p)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" || u.Host == "" {
		return badMetadata("%s must be an absolute https URL; %q is not one", field, text.Truncate(raw, 200))
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "https" && scheme != "http" {
		return badMetadata("%s must be an https URL; the %s scheme is not allowed", field, text.Truncate(scheme, 40))
	}
	if u.User != nil {
		return badMetadata("%s must not carry user information", field)
	}
	return nil
}

// clientName is the name shown on the consent page: the client's own,
// shortened, or its first redirect URI's host.
func clientName(name string, redirects []string) string {
	name = strings.TrimSpace(name)
	if name == "" && len(redirects) > 0 {
		if u, err := url.Parse(redirects[0]); err == nil && u.Host != "" {
			name = u.Host
		}
	}
	if name == "" {
		name = "An unnamed app"
	}
	if r := []rune(name); len(r) > maxClientName {
		name = string(r[:maxClientName]) + "…"
	}
	return name
}

// parseRegistration reads a registration request's body: one JSON object
// of client metadata that checkClientMetadata accepts, with the defaults
// RFC 7591 gives filled in.
func parseRegistration(body []byte) (oauthex.ClientRegistrationMetadata, error) {
	var m oauthex.ClientRegistrationMetadata
	if len(body) > MaxRegistrationBytes {
		return m, badMetadata("The body is larger than %d KiB; a registration needs far less", MaxRegistrationBytes>>10)
	}
	if err := decodeClientMetadata(body, &m); err != nil {
		return m, err
	}
	if err := checkClientMetadata(&m); err != nil {
		return m, err
	}
	if m.TokenEndpointAuthMethod == "" {
		m.TokenEndpointAuthMethod = "client_secret_basic"
	}
	if !slices.Contains(authMethods, m.TokenEndpointAuthMethod) {
		return m, badMetadata("token_endpoint_auth_method %q is not supported; use one of %s", text.Truncate(m.TokenEndpointAuthMethod, 40), strings.Join(authMethods, ", "))
	}
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	if len(m.ResponseTypes) == 0 {
		m.ResponseTypes = []string{"code"}
	}
	return m, nil
}

// registrationResponse is RFC 7591's answer. It is written here rather
// than with the SDK's type, whose encoder leaves out a zero
// client_secret_expires_at that the RFC requires beside a secret.
type registrationResponse struct {
	oauthex.ClientRegistrationMetadata
	ClientID              string `json:"client_id"`
	ClientSecret          string `json:"client_secret,omitempty"`
	ClientIDIssuedAt      int64  `json:"client_id_issued_at"`
	ClientSecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
}

// register is dynamic client registration (RFC 7591): public clients
// (none), or confidential ones with client_secret_basic (the RFC's default)
// or client_secret_post, whose secret is shown once and kept hashed. One
// address registers at most so many clients an hour, and a client no
// grant used is deleted a day on.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if p := inputProblem(r); p != "" {
		writeRegistrationError(w, "invalid_client_metadata", p)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRegistrationBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRegistrationError(w, "invalid_client_metadata", fmt.Sprintf("The body is larger than %d KiB; a registration needs far less.", MaxRegistrationBytes>>10))
			return
		}
		writeRegistrationError(w, "invalid_client_metadata", "The body could not be read; send it again.")
		return
	}
	m, err := parseRegistration(body)
	if err != nil {
		var me *metadataError
		if !errors.As(err, &me) {
			me = &metadataError{"invalid_client_metadata", sentence(err.Error())}
		}
		writeRegistrationError(w, me.code, me.msg)
		return
	}
	// Counted once the request is good: what is counted is what is stored.
	if d, ok := ratelimit.Check(w, r, s.registrations, registrationKey(auth.ClientAddr(r)), s.logger); !ok {
		mins := (ratelimit.RetryAfterSeconds(d.RetryAfter) + 59) / 60
		writeOAuthError(w, http.StatusTooManyRequests, "temporarily_unavailable",
			fmt.Sprintf("This address registered %d clients within the hour, the most allowed; wait %d minutes (see Retry-After), or use a client it registered before.", d.Limit, mins))
		return
	}
	c, secret, err := s.AddClient(r.Context(), store.ClientFromRegistered, m.ClientName, m.RedirectURIs, m.TokenEndpointAuthMethod)
	if err != nil {
		s.logger.Error("oauth: registering a client failed", "err", err)
		writeOAuthError(w, http.StatusInternalServerError, "server_error", "The client could not be registered just now; try again.")
		return
	}
	s.sweep(r.Context(), s.now())
	m.ClientName = c.Name
	resp := registrationResponse{ClientRegistrationMetadata: m, ClientID: c.ID, ClientSecret: secret, ClientIDIssuedAt: c.CreatedAt.Unix()}
	if secret != "" {
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(resp)
}

// registrationKey is the registration limit's key for a client address:
// the address, or for IPv6 its /64, which one machine usually holds whole.
func registrationKey(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap().WithZone("")
		if a.Is6() {
			p, _ := a.Prefix(64)
			return "oauth-register:net:" + p.String()
		}
		return "oauth-register:ip:" + a.String()
	}
	return "oauth-register:" + ratelimit.AddrKey(addr)
}

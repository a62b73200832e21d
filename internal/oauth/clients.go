package oauth

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/netguard"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// Limits of client metadata documents.
const (
	maxMetadataBytes   = 64 << 10
	maxMetadataAge     = 24 * time.Hour
	defaultMetadataAge = time.Hour
)

// clientError is a client that cannot be used, with the sentence why.
type clientError struct{ msg string }

func (e *clientError) Error() string { return e.msg }

// isMetadataURL reports whether a client_id is the URL of a client ID
// metadata document (an https URL with a path) rather than an id Perform issued.
func isMetadataURL(clientID string) bool {
	return strings.HasPrefix(clientID, "https://") || strings.HasPrefix(clientID, "http://")
}

// client finds the client of an authorization request: a stored one, or
// the metadata document its URL names, fetched when not cached or stale.
func (s *Server) client(ctx context.Context, clientID string) (store.OAuthClient, error) {
	if clientID == "" {
		return store.OAuthClient{}, &clientError{"client_id is missing; send the client's id (or its metadata document's URL) as client_id."}
	}
	c, err := s.store.OAuth().OAuthClient(ctx, clientID)
	if err == nil && (c.Source != store.ClientFromMetadata || s.metadataDocs && c.ExpiresAt != nil && s.now().Before(*c.ExpiresAt)) {
		return c, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return c, err
	}
	if !isMetadataURL(clientID) {
		more := ", or use a client metadata document URL as client_id"
		if !s.metadataDocs {
			more = ""
		}
		return c, &clientError{"There is no client " + text.Truncate(clientID, 80) + "; register it (POST /register) or add it with perform oauth client add" + more + "."}
	}
	if !s.metadataDocs {
		return c, &clientError{"This server does not use client ID metadata documents (its operator set " + MetadataDocumentsSetting + "=off), so the client_id " +
			text.Truncate(clientID, 200) + " cannot be used: the app must register instead (POST /register, which MCP clients do on their own when the server's metadata does not offer metadata documents; restart the app's sign-in), or the operator can turn the setting back on if this server reaches the app's metadata host over HTTPS."}
	}
	fetched, err := s.fetcher.fetch(ctx, clientID, s.now())
	var unreachable *unreachableError
	if errors.As(err, &unreachable) {
		return c, &clientError{"The client metadata document at " + text.Truncate(clientID, 200) + " could not be used: " + err.Error() +
			". This server must reach the app's metadata host over HTTPS to use it; if it cannot (no outbound HTTPS), the operator can set " + MetadataDocumentsSetting + "=off, and the app then registers instead."}
	}
	if err != nil {
		return c, &clientError{"The client metadata document at " + text.Truncate(clientID, 200) + " could not be used: " + err.Error()}
	}
	if err := s.store.OAuth().PutOAuthClient(ctx, &fetched); err != nil {
		return c, err
	}
	return fetched, nil
}

// MetadataDocumentsSetting is the environment variable that turns client
// ID metadata documents off (Options.NoMetadataDocuments).
const MetadataDocumentsSetting = "PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS"

// unreachableError is a metadata document that could not be fetched at
// all: no connection, no TLS, no answer in time.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return fmt.Sprintf("fetching it failed (%v)", e.err) }

// fetcher gets client ID metadata documents over HTTPS without reaching
// inside the network: netguard checks every address it dials, after every
// redirect and whatever DNS answered.
type fetcher struct {
	client *http.Client
	guard  netguard.Policy
}

func newFetcher(allowLoopback bool, timeout time.Duration, tlsConfig *tls.Config) *fetcher {
	guard := netguard.Policy{AllowLoopback: allowLoopback}
	return &fetcher{guard: guard, client: guard.Client(netguard.ClientOptions{Timeout: timeout, TLS: tlsConfig, MaxRedirects: 3, MaxIdleConnsPerHost: 4})}
}

// metadataDocument is a client ID metadata document: client metadata
// (RFC 7591) with client_id, its own URL.
type metadataDocument struct {
	oauthex.ClientRegistrationMetadata
	ClientID string `json:"client_id"`
}

func (f *fetcher) fetch(ctx context.Context, rawURL string, now time.Time) (store.OAuthClient, error) {
	var c store.OAuthClient
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return c, errors.New("client_id is not a URL")
	}
	if u.Path == "" || u.Path == "/" || u.Fragment != "" {
		return c, errors.New("a client metadata document URL needs a path and no fragment")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return c, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.guard.Do(f.client, req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return c, &unreachableError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c, fmt.Errorf("it answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return c, fmt.Errorf("reading it failed (%v)", err)
	}
	if len(body) > maxMetadataBytes {
		return c, fmt.Errorf("it is larger than %d KiB", maxMetadataBytes>>10)
	}
	var doc metadataDocument
	if err := decodeClientMetadata(body, &doc); err != nil {
		return c, err
	}
	if doc.ClientID != rawURL {
		return c, fmt.Errorf("its client_id %q is not its own URL", text.Truncate(doc.ClientID, 200))
	}
	if m := doc.TokenEndpointAuthMethod; m != "" && m != "none" {
		return c, fmt.Errorf("its token_endpoint_auth_method %q is not supported for metadata documents; use none", text.Truncate(m, 40))
	}
	if err := checkClientMetadata(&doc.ClientRegistrationMetadata); err != nil {
		return c, err
	}
	expires := now.Add(cacheAge(resp.Header.Get("Cache-Control")))
	return store.OAuthClient{
		ID:           rawURL,
		Name:         clientName(doc.ClientName, doc.RedirectURIs),
		Source:       store.ClientFromMetadata,
		RedirectURIs: doc.RedirectURIs,
		AuthMethod:   "none",
		CreatedAt:    now,
		ExpiresAt:    &expires,
	}, nil
}

// cacheAge is how long a document may be kept, as its Cache-Control
// allows: no-store or no-cache keep it for this request only, max-age
// for that long (at most a day), nothing said for an hour.
func cacheAge(cc string) time.Duration {
	age := defaultMetadataAge
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return 0
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.TrimPrefix(d, "max-age="))
			if err == nil && n >= 0 {
				age = time.Duration(n) * time.Second
			}
		}
	}
	return min(age, maxMetadataAge)
}

// AddClient stores a new client (registered or added from the command
// line) and answers it with its secret, shown this once ("" for a public
// client, whose method is none).
func (s *Server) AddClient(ctx context.Context, source, name string, redirectURIs []string, method string) (store.OAuthClient, string, error) {
	return AddClient(ctx, s.store, s.now(), source, name, redirectURIs, method)
}

// AddClient is Server.AddClient on st, for the command line.
func AddClient(ctx context.Context, st Store, now time.Time, source, name string, redirectURIs []string, method string) (store.OAuthClient, string, error) {
	if len(redirectURIs) == 0 {
		return store.OAuthClient{}, "", errors.New("a client needs at least one redirect URI")
	}
	if err := checkRedirectURIs(redirectURIs); err != nil {
		return store.OAuthClient{}, "", err
	}
	if err := checkName(name); err != nil {
		return store.OAuthClient{}, "", err
	}
	c := store.OAuthClient{
		ID:           ids.New(ids.OAuthClient),
		Name:         clientName(name, redirectURIs),
		Source:       source,
		RedirectURIs: redirectURIs,
		AuthMethod:   method,
		CreatedAt:    now.UTC().Truncate(time.Millisecond),
	}
	var secret string
	if method != "none" {
		secret = newSecret(secretPrefix)
		c.SecretHash = hash(secret)
	}
	if err := st.OAuth().CreateOAuthClient(ctx, &c); err != nil {
		return c, "", err
	}
	return c, secret, nil
}

// authenticateClient checks the token and revocation endpoints' client:
// its id, and its secret by the method it registered. A public client
// names itself with client_id; a confidential one proves it.
func (s *Server) authenticateClient(r *http.Request) (store.OAuthClient, *tokenError) {
	id, secret, basic := r.BasicAuth()
	if basic {
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return store.OAuthClient{}, errInvalidClient("The Authorization header's client id or secret is not URL-encoded correctly.")
		}
	} else {
		id = r.PostForm.Get("client_id")
		secret = r.PostForm.Get("client_secret")
	}
	if formID := r.PostForm.Get("client_id"); basic && formID != "" && formID != id {
		return store.OAuthClient{}, errInvalidClient("client_id in the body is not the client of the Authorization header.")
	}
	if id == "" {
		return store.OAuthClient{}, errInvalidClient("Name the client: client_id in the body, or HTTP Basic authentication.")
	}
	c, err := s.store.OAuth().OAuthClient(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return c, errInvalidClient("There is no client " + text.Truncate(id, 80) + ".")
	}
	if err != nil {
		return c, &tokenError{status: http.StatusInternalServerError, code: "server_error", desc: "The client could not be checked just now; try again."}
	}
	if c.AuthMethod == "none" {
		return c, nil
	}
	if secret == "" {
		return c, errInvalidClient("This client authenticates with " + c.AuthMethod + "; send its secret.")
	}
	if subtle.ConstantTimeCompare(hash(secret), c.SecretHash) != 1 {
		return c, errInvalidClient("The client secret is wrong.")
	}
	return c, nil
}

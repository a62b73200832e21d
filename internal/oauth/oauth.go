// Package oauth is Perform's OAuth 2.1 authorization server and the
// resource-server side of /mcp: metadata (RFC 8414, RFC 9728), /authorize
// with PKCE S256 and a consent page, /token (authorization code and
// rotating refresh tokens), /revoke (RFC 7009), dynamic registration
// (RFC 7591), client ID metadata documents, the connected apps page, and
// the Authenticator that turns an access token into an auth.Principal.
//
// Codes and tokens are opaque random strings (pf_at_…, pf_rt_…), kept only
// as SHA-256 hashes, so revoking a grant takes effect on the next request.
// The sign-in itself (phone, one-time code, session, CSRF) is the Browser's.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// Lifetimes and limits.
const (
	CodeTTL        = 10 * time.Minute
	AccessTokenTTL = time.Hour
	// RefreshTokenTTL is how long an unused refresh token lives; each
	// refresh issues a fresh one, so a client in use stays connected.
	RefreshTokenTTL = 60 * 24 * time.Hour
	// RefreshGrace is how long a refresh token still works after it was
	// exchanged: parallel refreshes by one client each get a fresh valid
	// pair instead of revoking the grant. Past it, reuse revokes the grant.
	RefreshGrace = 30 * time.Second
)

// Person kinds as the Browser reports them (login.PersonCoach, login.PersonTrainee).
const (
	personCoach   = "coach"
	personTrainee = "trainee"
)

// Person is the signed-in person as the Browser knows them.
type Person struct {
	StudioID  string
	Kind      string // coach or trainee: the person chose at sign-in
	SubjectID string // coa_… or trn_…
	Name      string
	Gender    string // female, male, other or "": the consent page's role word follows it
}

// Browser is the signed-in browser session (internal/login's Service
// behind an adapter): who is signed in, the sign-in redirect, and the CSRF
// token of the session's forms.
type Browser interface {
	Person(r *http.Request) (Person, bool)
	// RequireSignIn answers the person, or sends the browser to sign in
	// and back to r's URL and answers false.
	RequireSignIn(w http.ResponseWriter, r *http.Request) (Person, bool)
	CSRFToken(r *http.Request) string
	CheckCSRF(r *http.Request) bool
}

// Store is what the authorization server needs of the store (store.Store
// satisfies it): its own tables, and a transaction to redeem a code or
// rotate a refresh token in.
type Store interface {
	OAuth() store.OAuthStore
	// StudioByID is the studio of a signed-in person, for its time zone.
	StudioByID(ctx context.Context, id string) (domain.Studio, error)
	InTx(ctx context.Context, fn func(tx store.Store) error) error
}

// Options configure the Server.
type Options struct {
	Store Store
	// Browser signs people in; nil answers the pages that need a person
	// with a sentence saying sign-in is not set up.
	Browser Browser
	// Issuer is PERFORM_PUBLIC_URL. Empty: the server is reached on
	// loopback during development, and the issuer is http://<Host> of the
	// request when that host is a loopback address.
	Issuer string
	Logger *slog.Logger
	Now    func() time.Time
	// NoMetadataDocuments turns client ID metadata documents off
	// (PERFORM_OAUTH_CLIENT_METADATA_DOCUMENTS=off): for a server that
	// cannot reach the clients' metadata hosts over HTTPS. The metadata then
	// does not advertise them, so a client registers (POST /register), and a
	// client_id that is a URL is refused with a sentence saying so.
	NoMetadataDocuments bool
	// AllowLoopbackMetadata lets client ID metadata documents be fetched
	// from loopback addresses over http: for tests only.
	AllowLoopbackMetadata bool
	// MetadataTimeout bounds one metadata document fetch (default 5 s).
	MetadataTimeout time.Duration
	// MetadataRootCAs are the roots a metadata document's certificate is
	// checked against (nil: the system's); tests trust their own server.
	MetadataRootCAs *x509.CertPool
	// RegistrationsPerHour bounds the clients one address (an IPv6 address
	// with its /64) may register an hour (default DefaultRegistrationsPerHour).
	RegistrationsPerHour int
	// RegistrationLimiter counts registrations, per hour, by address. Nil:
	// counted in this process (Mount counts in the server's Redis when it
	// has one, so every instance shares the count).
	RegistrationLimiter ratelimit.Limiter
}

// Server is the authorization server.
type Server struct {
	store   Store
	browser Browser
	issuer  string
	logger  *slog.Logger
	now     func() time.Time
	fetcher *fetcher
	// metadataDocs: client ID metadata documents are fetched and used
	// (Options.NoMetadataDocuments unset).
	metadataDocs bool
	// registrations counts dynamic registrations by address.
	registrations ratelimit.Limiter

	lastSweep atomic.Int64 // unix ms of the last sweep of expired rows
}

// sweepEvery is how often a process deletes expired codes and tokens, and
// sweepKeep how long past expiry they are kept (a replayed code seen within
// it still revokes what the code issued).
const (
	sweepEvery = time.Hour
	sweepKeep  = 24 * time.Hour
)

// sweep deletes long-expired codes and tokens, and registered clients no
// grant used within UnusedClientTTL, at most every sweepEvery.
func (s *Server) sweep(ctx context.Context, now time.Time) {
	last := s.lastSweep.Load()
	if now.UnixMilli()-last < sweepEvery.Milliseconds() || !s.lastSweep.CompareAndSwap(last, now.UnixMilli()) {
		return
	}
	if _, err := s.store.OAuth().DeleteExpiredOAuth(ctx, now.Add(-sweepKeep)); err != nil {
		s.logger.Warn("oauth: deleting expired codes and tokens failed", "err", err)
	}
	if n, err := s.store.OAuth().DeleteUnusedOAuthClients(ctx, now.Add(-UnusedClientTTL)); err != nil {
		s.logger.Warn("oauth: deleting unused clients failed", "err", err)
	} else if n > 0 {
		s.logger.Info("oauth: deleted clients no grant used", "clients", n)
	}
}

// New builds the authorization server.
func New(o Options) *Server {
	s := &Server{store: o.Store, browser: o.Browser, issuer: strings.TrimRight(o.Issuer, "/"), logger: o.Logger, now: o.Now,
		metadataDocs: !o.NoMetadataDocuments}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.registrations = o.RegistrationLimiter
	if s.registrations == nil {
		s.registrations = ratelimit.NewMemory(registrationsPerHour(o), time.Hour).WithClock(s.now)
	}
	var tlsConfig *tls.Config
	if o.MetadataRootCAs != nil {
		tlsConfig = &tls.Config{RootCAs: o.MetadataRootCAs, MinVersion: tls.VersionTLS12}
	}
	s.fetcher = newFetcher(o.AllowLoopbackMetadata, o.MetadataTimeout, tlsConfig)
	return s
}

// Paths the server serves.
const (
	PathASMetadata       = "/.well-known/oauth-authorization-server"
	PathResourceMetadata = "/.well-known/oauth-protected-resource"
	PathAuthorize        = "/authorize"
	PathToken            = "/token"
	PathRevoke           = "/revoke"
	PathRegister         = "/register"
	PathApps             = "/apps"
	MCPPath              = "/mcp"
)

// Routes lists the patterns the server serves and their handlers.
func (s *Server) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"GET " + PathASMetadata:                     http.HandlerFunc(s.serveASMetadata),
		"GET " + PathResourceMetadata:               http.HandlerFunc(s.serveResourceMetadata),
		"GET " + PathResourceMetadata + MCPPath:     http.HandlerFunc(s.serveResourceMetadata),
		"GET " + PathAuthorize:                      http.HandlerFunc(s.authorize),
		"POST " + PathAuthorize:                     http.HandlerFunc(s.decide),
		"POST " + PathToken:                         http.HandlerFunc(s.token),
		"POST " + PathRevoke:                        http.HandlerFunc(s.revoke),
		"POST " + PathRegister:                      http.HandlerFunc(s.register),
		"GET " + PathApps:                           http.HandlerFunc(s.apps),
		"POST " + PathApps + "/{grant}/revoke":      http.HandlerFunc(s.revokeApp),
		"OPTIONS " + PathASMetadata:                 http.HandlerFunc(preflight),
		"OPTIONS " + PathResourceMetadata + MCPPath: http.HandlerFunc(preflight),
	}
}

// Register mounts every route on mux (tests; the server mounts Routes
// behind its limiter).
func (s *Server) Register(mux *http.ServeMux) {
	for pattern, h := range s.Routes() {
		mux.Handle(pattern, h)
	}
}

// Issuer is the issuer identifier for r: PERFORM_PUBLIC_URL, or on a
// development server without one, the loopback origin r was sent to.
// "" when neither holds (a non-loopback Host with no public URL set).
func (s *Server) Issuer(r *http.Request) string {
	if s.issuer != "" {
		return s.issuer
	}
	host := r.Host
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if isLoopbackHost(strings.Trim(h, "[]")) {
		return "http://" + host
	}
	return ""
}

// ResourceURL is the /mcp resource identifier for r.
func (s *Server) ResourceURL(r *http.Request) string { return s.Issuer(r) + MCPPath }

// ResourceMetadataURL is where /mcp's protected-resource metadata is, for
// the WWW-Authenticate challenge.
func (s *Server) ResourceMetadataURL(r *http.Request) string {
	return s.Issuer(r) + PathResourceMetadata + MCPPath
}

// resourceMatches reports whether a client's resource parameter names
// /mcp: the URL itself, with a trailing slash, or the bare origin (with or
// without its slash), which some clients send. Empty is taken as /mcp.
func resourceMatches(issuer, resource string) bool {
	switch resource {
	case "", issuer + MCPPath, issuer + MCPPath + "/", issuer, issuer + "/":
		return true
	}
	return false
}

// newSecret is a fresh opaque secret: prefix and 32 random bytes, base64url.
func newSecret(prefix string) string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// hash is what the store keeps of a code, token or client secret.
func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Prefixes of the secrets the server hands out besides tokens.
const (
	codePrefix   = "pf_ac_"
	secretPrefix = "pf_cs_"
)

func preflight(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "*")
	w.WriteHeader(http.StatusNoContent)
}

// Host is what Mount builds on: the HTTP server being composed (in
// cmd/perform, server.Parts' fields and its Handle method). oauth does not
// import internal/server: which parts mount in which order is
// cmd/perform's to say.
type Host struct {
	Store  Store
	Logger *slog.Logger
	Redis  *redis.Client // nil: registrations are counted in this process
	// Limits is the server's record of whether Redis answers, which its
	// other limits count through (nil: Mount makes one of Redis). While
	// Redis is down, registrations are counted in this process, like every
	// other request limit, never let through uncounted.
	Limits *ratelimit.Shared
	// Handle mounts h at pattern; rateLimited puts it behind the host's
	// limiter, counted by the caller's address.
	Handle func(pattern string, h http.Handler, rateLimited bool)
}

// Mount builds the server on the one being composed (its store and
// logger), serves every route behind its limiter, and answers the server
// with inner accepting its access tokens too (credentials.WithGrants:
// the same credentials.Authenticator, with the server as its grants). The
// caller makes that authenticator the lane's before anything that
// authenticates (/mcp) is mounted: cmd/perform hands Mount to
// server.WithAuthn, which runs before every plug-in.
func Mount(h Host, inner auth.Authenticator, o Options) (*Server, auth.Authenticator) {
	o.Store = h.Store
	if o.Logger == nil {
		o.Logger = h.Logger
	}
	if o.RegistrationLimiter == nil {
		shared := h.Limits
		if shared == nil && h.Redis != nil {
			shared = ratelimit.NewShared(h.Redis, o.Logger).WithClock(o.Now)
		}
		if shared != nil {
			o.RegistrationLimiter = shared.Limiter(registrationsPerHour(o), time.Hour, ratelimit.CountInMemory)
		}
	}
	s := New(o)
	for pattern, route := range s.Routes() {
		h.Handle(pattern, route, true)
	}
	return s, credentials.WithGrants(inner, s)
}

func registrationsPerHour(o Options) int {
	if o.RegistrationsPerHour > 0 {
		return o.RegistrationsPerHour
	}
	return DefaultRegistrationsPerHour
}

// Package credentials is Perform's one auth.Authenticator: studio and
// platform keys, with the platform conversations verified as a trainee,
// and OAuth access tokens. Every kind becomes its principal through
// NewPrincipal and records its use through one Throttle; what it looks up
// it reads through narrow interfaces the store, the authorization server
// and the public area satisfy.
package credentials

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
)

// Credential is what a lookup found behind a token: its kind and id, the
// person it names, if any, and its scopes.
type Credential struct {
	Kind    auth.CredentialKind
	ID      string
	Subject string
	Scopes  []string
}

// NewPrincipal is the principal of credential c of studio s: every kind of
// credential becomes a principal here.
func NewPrincipal(s domain.Studio, c Credential) *auth.Principal {
	return &auth.Principal{
		StudioID:     s.ID,
		StudioName:   s.Name,
		StudioSlug:   s.Slug,
		Region:       s.Region,
		Tier:         s.Tier,
		TimeZone:     s.TimeZone(),
		FirstDay:     s.FirstDay(),
		Kind:         c.Kind,
		CredentialID: c.ID,
		Subject:      c.Subject,
		Scopes:       c.Scopes,
	}
}

// KeyStore finds studio and platform keys; the store satisfies it.
type KeyStore interface {
	// APIKeyByHash is the key of hash and its studio, revoked keys
	// included; domain.ErrNotFound when there is none.
	APIKeyByHash(ctx context.Context, hash []byte) (domain.APIKey, domain.Studio, error)
	// CredentialsEpoch moves forward, in the same transaction, with every
	// change to a key or its studio, from any process.
	CredentialsEpoch(ctx context.Context) (int64, error)
	// TouchAPIKey records the key's last use at at.
	TouchAPIKey(ctx context.Context, keyID string, at time.Time) error
}

// Grants answers OAuth access tokens (internal/oauth answers it).
type Grants interface {
	// AccessGrant is the grant of a live access token and its studio, or
	// a *auth.Refusal for a token that is unknown, expired or of a revoked grant.
	AccessGrant(ctx context.Context, token string) (Credential, domain.Studio, error)
	// TouchGrant records the grant's last use at at.
	TouchGrant(ctx context.Context, grantID string, at time.Time) error
}

// Conversations answers whom an agent platform's call speaks for
// (internal/areas/public answers it).
type Conversations interface {
	// VerifiedTrainee is the trainee the conversation of ctx
	// (auth.ConversationFrom) was verified as, for the platform key keyID of
	// studio studioID, while the verification lasts.
	VerifiedTrainee(ctx context.Context, keyID, studioID string) (string, bool)
}

// Options configure New.
type Options struct {
	Keys KeyStore // the studio and platform keys (the store)
	// Conversations makes a platform key's call in a verified
	// conversation the trainee's; nil: a platform key is never a trainee.
	Conversations Conversations
	// Grants answers OAuth access tokens; nil: none is accepted (see WithGrants).
	Grants Grants
	Now    func() time.Time // when a credential's last use is; nil: time.Now
	Logger *slog.Logger     // nil: failed last-use writes are not logged
}

// Authenticator answers studio and platform keys (pf_live_…) and, with
// grants, OAuth access tokens (pf_at_…). Safe for concurrent use.
type Authenticator struct {
	keys          KeyStore
	grants        Grants
	conversations Conversations
	known         *knownKeys
	touched       *Throttle
	logger        *slog.Logger
}

// New is the authenticator of o.
func New(o Options) *Authenticator {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Authenticator{keys: o.Keys, grants: o.Grants, conversations: o.Conversations,
		known: &knownKeys{m: map[string]knownKey{}}, touched: NewThrottle(TouchEvery, o.Now), logger: logger}
}

// WithGrants is a that also accepts OAuth access tokens, answered by g.
// When a is an *Authenticator, the answer is the same authenticator with
// grants (its kept keys and its throttle shared); any other a is asked for
// every credential but an access token.
func WithGrants(a auth.Authenticator, g Grants) auth.Authenticator {
	if c, ok := a.(*Authenticator); ok {
		cp := *c
		cp.grants = g
		return &cp
	}
	return grantsBeside{grants: New(Options{Grants: g}), next: a}
}

type grantsBeside struct {
	grants *Authenticator
	next   auth.Authenticator
}

func (b grantsBeside) Authenticate(ctx context.Context, r *http.Request) (*auth.Principal, error) {
	if token, ok := auth.Bearer(r.Header.Get("Authorization")); (ok && strings.HasPrefix(token, auth.AccessTokenPrefix)) || b.next == nil {
		return b.grants.Authenticate(ctx, r)
	}
	return b.next.Authenticate(ctx, r)
}

// InvalidKeyMessage answers a key no studio has: the seed's words, then what to do.
const InvalidKeyMessage = "invalid partner api key: no studio has this key. Create one with perform key create --studio SLUG --name NAME, or on the studio's integrations page, and send it as Authorization: Bearer pf_live_…."

var (
	errNoKey      = &auth.Refusal{Missing: true, Message: "Send the studio API key as the header Authorization: Bearer pf_live_…; the studio creates one with perform key create."}
	errRevokedKey = &auth.Refusal{Message: "This API key was revoked. Ask the studio for a new key (perform key create)."}
)

// Authenticate answers the principal of the request's bearer credential
// and records its use; a revoked key's principal comes with its refusal.
func (c *Authenticator) Authenticate(ctx context.Context, r *http.Request) (*auth.Principal, error) {
	token, ok := auth.Bearer(r.Header.Get("Authorization"))
	switch {
	case !ok:
		return nil, errNoKey
	case c.grants != nil && strings.HasPrefix(token, auth.AccessTokenPrefix):
		cred, studio, err := c.grants.AccessGrant(ctx, token)
		if err != nil {
			return nil, err
		}
		c.touch(ctx, cred.ID, c.grants.TouchGrant)
		return NewPrincipal(studio, cred), nil
	case !auth.WellFormed(token) || c.keys == nil:
		return nil, &auth.Refusal{Message: InvalidKeyMessage}
	}
	p, err := c.key(ctx, auth.Hash(token))
	if err != nil {
		return p, err
	}
	if p.Kind == auth.KindPlatformKey && c.conversations != nil {
		if trainee, ok := c.conversations.VerifiedTrainee(ctx, p.CredentialID, p.StudioID); ok {
			p = p.AsTrainee(trainee)
		}
	}
	c.touch(ctx, p.CredentialID, c.keys.TouchAPIKey)
	return p, nil
}

// touch writes the credential's last use when the throttle says it is due.
func (c *Authenticator) touch(ctx context.Context, id string, write func(context.Context, string, time.Time) error) {
	at, due := c.touched.Due(id)
	if !due {
		return
	}
	if err := write(ctx, id, at.UTC()); err != nil {
		c.logger.Warn("recording a credential's last use failed", "credentialId", id, "err", err)
	}
}

// knownKeys keeps the principal of each live key seen, by the key's hash,
// with the credentials epoch it was read at. Every request reads the epoch,
// one row of one tiny table, and uses the kept principal only while the
// epoch is unchanged; any change to a key or its studio, from any process,
// moves the epoch in its own transaction (triggers of the migrations), so a
// revoked key is refused on the very next request. Revoked and unknown keys
// are never kept: they are read every time.
type knownKeys struct {
	mu sync.RWMutex
	m  map[string]knownKey // string(hash) → the principal as last read
}

type knownKey struct {
	epoch     int64
	principal auth.Principal
}

// maxKnownKeys bounds the kept principals; past it they are all forgotten
// and read again (keys are few in practice).
const maxKnownKeys = 10_000

// key is the principal of the key of hash: the kept one while the
// credentials epoch has not moved, else read from the store (and kept, if
// live). The answer is the caller's own copy.
func (c *Authenticator) key(ctx context.Context, hash []byte) (*auth.Principal, error) {
	// The epoch is read before the key: a change committed between the two
	// reads leaves the kept principal under the older epoch, so the next
	// request reads it again. If the epoch cannot be read, nothing is kept.
	epoch, epochErr := c.keys.CredentialsEpoch(ctx)
	if epochErr == nil {
		c.known.mu.RLock()
		k, ok := c.known.m[string(hash)]
		c.known.mu.RUnlock()
		if ok && k.epoch == epoch {
			p := k.principal
			p.Scopes = p.Scopes[:len(p.Scopes):len(p.Scopes)] // shared, read-only: an append copies
			return &p, nil
		}
	}
	key, studio, err := c.keys.APIKeyByHash(ctx, hash)
	if errors.Is(err, domain.ErrNotFound) || (err == nil && !auth.HashEqual(key.Hash, hash)) {
		return nil, &auth.Refusal{Message: InvalidKeyMessage}
	}
	if err != nil {
		return nil, fmt.Errorf("looking up the API key: %w", err)
	}
	p := NewPrincipal(studio, Credential{Kind: keyKind(key), ID: key.ID, Scopes: key.Scopes})
	if key.RevokedAt != nil {
		return p, errRevokedKey
	}
	if epochErr == nil {
		c.known.mu.Lock()
		if len(c.known.m) >= maxKnownKeys {
			clear(c.known.m)
		}
		c.known.m[string(hash)] = knownKey{epoch: epoch, principal: *p}
		c.known.mu.Unlock()
		p.Scopes = p.Scopes[:len(p.Scopes):len(p.Scopes)]
	}
	return p, nil
}

// keyKind is the principal kind of a stored key (a key stored before kinds is a studio key).
func keyKind(k domain.APIKey) auth.CredentialKind {
	if k.Kind == string(auth.KindPlatformKey) {
		return auth.KindPlatformKey
	}
	return auth.KindStudioKey
}

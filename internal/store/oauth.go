package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// OAuthStore is the authorization server's state (internal/oauth, tables
// oauth_*): clients, codes, grants, tokens and consents. It is global, not
// per studio: codes and tokens are found by their hash, which names the
// studio. Nothing secret is stored in clear: codes, tokens and client
// secrets arrive here already hashed.
type OAuthStore interface {
	// CreateOAuthClient writes a new client; ConflictError when its id is taken.
	CreateOAuthClient(ctx context.Context, c *OAuthClient) error
	// PutOAuthClient writes a client whatever is there (a refetched
	// client ID metadata document replaces its cached copy).
	PutOAuthClient(ctx context.Context, c *OAuthClient) error
	OAuthClient(ctx context.Context, id string) (OAuthClient, error)

	CreateOAuthCode(ctx context.Context, c *OAuthCode) error
	// UseOAuthCode marks the code used at at and returns it. A code used
	// before is returned with ErrCodeUsed (GrantID names what its first use
	// made); an unknown code is ErrNotFound. Expiry is the caller's to check.
	UseOAuthCode(ctx context.Context, hash []byte, at time.Time) (OAuthCode, error)
	// CreateOAuthGrant writes the grant, its first tokens and, when
	// codeHash is not nil, the code's link to the grant.
	CreateOAuthGrant(ctx context.Context, g *OAuthGrant, codeHash []byte, tokens []OAuthToken) error
	// AddOAuthTokens writes more tokens of an existing grant.
	AddOAuthTokens(ctx context.Context, tokens []OAuthToken) error
	// OAuthToken finds a token, its grant and the grant's studio in one
	// indexed query. A revoked grant is returned too (RevokedAt set); a
	// grant whose person could no longer sign in (a coach made inactive,
	// a trainee archived or deleted) is ErrNotFound, as its sign-in is.
	OAuthToken(ctx context.Context, hash []byte) (OAuthToken, OAuthGrant, domain.Studio, error)
	// RotateOAuthToken records the first exchange of a refresh token (a
	// later exchange keeps the first time) and returns when that was.
	RotateOAuthToken(ctx context.Context, hash []byte, at time.Time) (time.Time, error)
	DeleteOAuthToken(ctx context.Context, hash []byte) error
	// RevokeOAuthGrant revokes the grant and deletes its tokens; a grant
	// revoked before keeps its first revocation time.
	RevokeOAuthGrant(ctx context.Context, grantID string, at time.Time) error
	OAuthGrant(ctx context.Context, grantID string) (OAuthGrant, error)
	// TouchOAuthGrant sets last_used_at unless it was set less than a minute before at.
	TouchOAuthGrant(ctx context.Context, grantID string, at time.Time) error
	// PersonOAuthGrants lists the live grants of a subject, newest first,
	// with their clients' names.
	PersonOAuthGrants(ctx context.Context, studioID, subject string) ([]OAuthGrant, error)

	// OAuthConsent is the scopes the subject approved for the client; ErrNotFound without.
	OAuthConsent(ctx context.Context, studioID, subject, clientID string) ([]string, error)
	PutOAuthConsent(ctx context.Context, studioID, subject, clientID string, scopes []string, at time.Time) error
	DeleteOAuthConsent(ctx context.Context, studioID, subject, clientID string) error

	// DeleteExpiredOAuth deletes codes and tokens that expired before before.
	DeleteExpiredOAuth(ctx context.Context, before time.Time) (int64, error)
	// DeleteUnusedOAuthClients deletes the clients no grant and no code
	// names that are registered (ClientFromRegistered) before before, or
	// are metadata documents (ClientFromMetadata) whose cache expired
	// before before; clients added from the command line stay.
	DeleteUnusedOAuthClients(ctx context.Context, before time.Time) (int64, error)
}

// ErrCodeUsed is an authorization code presented a second time.
var ErrCodeUsed = errors.New("the authorization code was used before")

// Sources of a client.
const (
	ClientFromMetadata   = "metadata"
	ClientFromRegistered = "registered"
	ClientFromCLI        = "cli"
)

// Kinds of token.
const (
	TokenAccess  = "access"
	TokenRefresh = "refresh"
)

// OAuthClient is a client the authorization server knows.
type OAuthClient struct {
	ID           string
	Name         string
	Source       string // ClientFromMetadata, ClientFromRegistered or ClientFromCLI
	RedirectURIs []string
	AuthMethod   string // none, client_secret_basic or client_secret_post
	SecretHash   []byte
	CreatedAt    time.Time
	ExpiresAt    *time.Time // a metadata document's cache lifetime
}

// OAuthCode is an issued authorization code, by its hash.
type OAuthCode struct {
	Hash          []byte
	ClientID      string
	StudioID      string
	Subject       string
	Scopes        []string
	RedirectURI   string
	CodeChallenge string
	Resource      string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	UsedAt        *time.Time
	GrantID       string
}

// OAuthGrant is a person's authorization of a client.
type OAuthGrant struct {
	ID         string
	StudioID   string
	Subject    string
	ClientID   string
	ClientName string // filled by PersonOAuthGrants
	Scopes     []string
	Resource   string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// OAuthToken is an access or refresh token of a grant, by its hash.
type OAuthToken struct {
	Hash      []byte
	GrantID   string
	Kind      string // TokenAccess or TokenRefresh
	CreatedAt time.Time
	ExpiresAt *time.Time
	RotatedAt *time.Time
}

type oauthStore struct{ *sqlStore }

func (s *sqlStore) OAuth() OAuthStore { return oauthStore{s} }

const oauthClientColumns = `id, name, source, redirect_uris, auth_method, secret_hash, created_at, expires_at`

func scanOAuthClient(row scanner, c *OAuthClient, extra ...any) error {
	var uris string
	var created int64
	var expires sql.NullInt64
	if err := row.Scan(append([]any{&c.ID, &c.Name, &c.Source, &uris, &c.AuthMethod, &c.SecretHash, &created, &expires}, extra...)...); err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return err
	}
	c.CreatedAt = fromMS(created)
	c.ExpiresAt = fromNullMS(expires)
	return nil
}

func (s oauthStore) clientArgs(c *OAuthClient) ([]any, error) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.now()
	}
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return nil, err
	}
	var secret any
	if c.SecretHash != nil {
		secret = c.SecretHash
	}
	return []any{c.ID, c.Name, c.Source, string(uris), c.AuthMethod, secret, ms(c.CreatedAt), msPtr(c.ExpiresAt)}, nil
}

func (s oauthStore) CreateOAuthClient(ctx context.Context, c *OAuthClient) error {
	args, err := s.clientArgs(c)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO oauth_clients (`+oauthClientColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, args...)
	if isUniqueViolation(err) {
		return &ConflictError{Message: "there is already an OAuth client " + c.ID, ExistingID: c.ID}
	}
	return err
}

func (s oauthStore) PutOAuthClient(ctx context.Context, c *OAuthClient) error {
	args, err := s.clientArgs(c)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO oauth_clients (`+oauthClientColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, source = excluded.source, redirect_uris = excluded.redirect_uris,
		auth_method = excluded.auth_method, secret_hash = excluded.secret_hash, expires_at = excluded.expires_at`, args...)
	return err
}

func (s oauthStore) OAuthClient(ctx context.Context, id string) (OAuthClient, error) {
	var c OAuthClient
	err := scanOAuthClient(s.queryRow(ctx, `SELECT `+oauthClientColumns+` FROM oauth_clients WHERE id = ?`, id), &c)
	return c, notFound(err)
}

const oauthCodeColumns = `hash, client_id, studio_id, subject, scopes, redirect_uri, code_challenge, resource, created_at, expires_at, used_at, grant_id`

func (s oauthStore) CreateOAuthCode(ctx context.Context, c *OAuthCode) error {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.now()
	}
	_, err := s.exec(ctx, `INSERT INTO oauth_codes (`+oauthCodeColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
		c.Hash, c.ClientID, c.StudioID, c.Subject, strings.Join(c.Scopes, " "), c.RedirectURI, c.CodeChallenge, c.Resource, ms(c.CreatedAt), ms(c.ExpiresAt))
	return err
}

func scanOAuthCode(row scanner, c *OAuthCode) error {
	var scopes string
	var created, expires int64
	var used sql.NullInt64
	var grant sql.NullString
	if err := row.Scan(&c.Hash, &c.ClientID, &c.StudioID, &c.Subject, &scopes, &c.RedirectURI, &c.CodeChallenge, &c.Resource, &created, &expires, &used, &grant); err != nil {
		return err
	}
	c.Scopes = strings.Fields(scopes)
	c.CreatedAt, c.ExpiresAt, c.UsedAt, c.GrantID = fromMS(created), fromMS(expires), fromNullMS(used), grant.String
	return nil
}

func (s oauthStore) UseOAuthCode(ctx context.Context, hash []byte, at time.Time) (OAuthCode, error) {
	var c OAuthCode
	err := s.atomic(ctx, func(q querier) error {
		// The update takes the row first, so of two concurrent uses one
		// waits and then finds the code used.
		res, err := q.ExecContext(ctx, s.q(`UPDATE oauth_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL`), ms(at), hash)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if err := scanOAuthCode(q.QueryRowContext(ctx, s.q(`SELECT `+oauthCodeColumns+` FROM oauth_codes WHERE hash = ?`), hash), &c); err != nil {
			return notFound(err)
		}
		if n == 0 {
			return ErrCodeUsed
		}
		return nil
	})
	return c, err
}

func (s oauthStore) CreateOAuthGrant(ctx context.Context, g *OAuthGrant, codeHash []byte, tokens []OAuthToken) error {
	if g.CreatedAt.IsZero() {
		g.CreatedAt = s.now()
	}
	return s.atomic(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO oauth_grants (id, studio_id, subject, client_id, scopes, resource, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			g.ID, g.StudioID, g.Subject, g.ClientID, strings.Join(g.Scopes, " "), g.Resource, ms(g.CreatedAt)); err != nil {
			return err
		}
		if codeHash != nil {
			if _, err := q.ExecContext(ctx, s.q(`UPDATE oauth_codes SET grant_id = ? WHERE hash = ?`), g.ID, codeHash); err != nil {
				return err
			}
		}
		return insertTokens(ctx, s, q, tokens)
	})
}

func insertTokens(ctx context.Context, s oauthStore, q querier, tokens []OAuthToken) error {
	for _, t := range tokens {
		if t.CreatedAt.IsZero() {
			t.CreatedAt = s.now()
		}
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO oauth_tokens (hash, grant_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`),
			t.Hash, t.GrantID, t.Kind, ms(t.CreatedAt), msPtr(t.ExpiresAt)); err != nil {
			if isForeignKeyViolation(err) {
				return missing("OAuth grant", t.GrantID)
			}
			return err
		}
	}
	return nil
}

func (s oauthStore) AddOAuthTokens(ctx context.Context, tokens []OAuthToken) error {
	return s.atomic(ctx, func(q querier) error { return insertTokens(ctx, s, q, tokens) })
}

const oauthGrantColumns = `g.id, g.studio_id, g.subject, g.client_id, g.scopes, g.resource, g.created_at, g.last_used_at, g.revoked_at`

func scanOAuthGrant(row scanner, g *OAuthGrant, extra ...any) error {
	var scopes string
	var created int64
	var used, revoked sql.NullInt64
	if err := row.Scan(append([]any{&g.ID, &g.StudioID, &g.Subject, &g.ClientID, &scopes, &g.Resource, &created, &used, &revoked}, extra...)...); err != nil {
		return err
	}
	g.Scopes = strings.Fields(scopes)
	g.CreatedAt, g.LastUsedAt, g.RevokedAt = fromMS(created), fromNullMS(used), fromNullMS(revoked)
	return nil
}

func (s oauthStore) OAuthToken(ctx context.Context, hash []byte) (OAuthToken, OAuthGrant, domain.Studio, error) {
	var t OAuthToken
	var g OAuthGrant
	var st domain.Studio
	var created int64
	var expires, rotated sql.NullInt64
	var settings sql.Null[string]
	var studioCreated int64
	err := scanOAuthGrant(s.queryRow(ctx, `SELECT `+oauthGrantColumns+`, t.hash, t.kind, t.created_at, t.expires_at, t.rotated_at, `+studioColumns+`
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN studios s ON s.id = g.studio_id WHERE t.hash = ?
		AND (EXISTS (SELECT 1 FROM coaches c WHERE c.studio_id = g.studio_id AND c.id = g.subject AND c.active)
			OR EXISTS (SELECT 1 FROM trainees tr WHERE tr.studio_id = g.studio_id AND tr.id = g.subject AND tr.status <> 'archived'))`, hash), &g,
		&t.Hash, &t.Kind, &created, &expires, &rotated,
		&st.ID, &st.Name, &st.Slug, &st.Region, &st.Tier, &settings, &studioCreated)
	if err != nil {
		return t, g, st, notFound(err)
	}
	t.GrantID, t.CreatedAt, t.ExpiresAt, t.RotatedAt = g.ID, fromMS(created), fromNullMS(expires), fromNullMS(rotated)
	if settings.V != "" {
		st.Settings = json.RawMessage(settings.V)
	}
	st.CreatedAt = fromMS(studioCreated)
	return t, g, st, nil
}

func (s oauthStore) RotateOAuthToken(ctx context.Context, hash []byte, at time.Time) (time.Time, error) {
	var first int64
	err := s.atomic(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, s.q(`UPDATE oauth_tokens SET rotated_at = ? WHERE hash = ? AND rotated_at IS NULL`), ms(at), hash); err != nil {
			return err
		}
		return notFound(q.QueryRowContext(ctx, s.q(`SELECT rotated_at FROM oauth_tokens WHERE hash = ?`), hash).Scan(&first))
	})
	return fromMS(first), err
}

func (s oauthStore) DeleteOAuthToken(ctx context.Context, hash []byte) error {
	_, err := s.exec(ctx, `DELETE FROM oauth_tokens WHERE hash = ?`, hash)
	return err
}

func (s oauthStore) RevokeOAuthGrant(ctx context.Context, grantID string, at time.Time) error {
	return s.atomic(ctx, func(q querier) error {
		res, err := q.ExecContext(ctx, s.q(`UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`), ms(at), grantID)
		if err := affected(res, err, "OAuth grant", grantID); err != nil {
			return err
		}
		_, err = q.ExecContext(ctx, s.q(`DELETE FROM oauth_tokens WHERE grant_id = ?`), grantID)
		return err
	})
}

func (s oauthStore) OAuthGrant(ctx context.Context, grantID string) (OAuthGrant, error) {
	var g OAuthGrant
	err := scanOAuthGrant(s.queryRow(ctx, `SELECT `+oauthGrantColumns+` FROM oauth_grants g WHERE g.id = ?`, grantID), &g)
	return g, notFoundAs(notFound(err), "OAuth grant", grantID)
}

func (s oauthStore) TouchOAuthGrant(ctx context.Context, grantID string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE oauth_grants SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ? OR last_used_at > ?)`,
		ms(at), grantID, ms(at.Add(-time.Minute)), ms(at))
	return err
}

func (s oauthStore) PersonOAuthGrants(ctx context.Context, studioID, subject string) ([]OAuthGrant, error) {
	return listAll(ctx, s, `SELECT `+oauthGrantColumns+`, c.name FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
		WHERE g.studio_id = ? AND g.subject = ? AND g.revoked_at IS NULL ORDER BY g.created_at DESC, g.id DESC`,
		[]any{studioID, subject}, func(row scanner, g *OAuthGrant, extra ...any) error {
			return scanOAuthGrant(row, g, append([]any{&g.ClientName}, extra...)...)
		})
}

func (s oauthStore) OAuthConsent(ctx context.Context, studioID, subject, clientID string) ([]string, error) {
	var scopes string
	err := s.queryRow(ctx, `SELECT scopes FROM oauth_consents WHERE studio_id = ? AND subject = ? AND client_id = ?`, studioID, subject, clientID).Scan(&scopes)
	return strings.Fields(scopes), notFound(err)
}

func (s oauthStore) PutOAuthConsent(ctx context.Context, studioID, subject, clientID string, scopes []string, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO oauth_consents (studio_id, subject, client_id, scopes, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (studio_id, subject, client_id) DO UPDATE SET scopes = excluded.scopes, created_at = excluded.created_at`,
		studioID, subject, clientID, strings.Join(scopes, " "), ms(at))
	return err
}

func (s oauthStore) DeleteOAuthConsent(ctx context.Context, studioID, subject, clientID string) error {
	_, err := s.exec(ctx, `DELETE FROM oauth_consents WHERE studio_id = ? AND subject = ? AND client_id = ?`, studioID, subject, clientID)
	return err
}

func (s oauthStore) DeleteExpiredOAuth(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.atomic(ctx, func(q querier) error {
		for _, stmt := range []string{
			`DELETE FROM oauth_codes WHERE expires_at < ?`,
			`DELETE FROM oauth_tokens WHERE expires_at < ?`,
		} {
			res, err := q.ExecContext(ctx, s.q(stmt), ms(before))
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	return n, err
}

func (s oauthStore) DeleteUnusedOAuthClients(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM oauth_clients
		WHERE ((source = ? AND created_at < ?) OR (source = ? AND expires_at < ?))
		AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.id)
		AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.client_id = oauth_clients.id)`,
		ClientFromRegistered, ms(before), ClientFromMetadata, ms(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

package oauth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// InvalidTokenMessage answers an access token that is unknown, expired or
// whose app was disconnected.
const InvalidTokenMessage = "This access token is not valid: it expired, or its app was disconnected. Refresh it, or connect the app again."

// The Server answers the access tokens of credentials.Authenticator.
var _ credentials.Grants = (*Server)(nil)

// AccessGrant resolves an access token: every request reads the store (no
// cache), so a revoked grant is refused on the very next request.
func (s *Server) AccessGrant(ctx context.Context, token string) (credentials.Credential, domain.Studio, error) {
	t, g, studio, err := s.store.OAuth().OAuthToken(ctx, hash(token))
	if errors.Is(err, store.ErrNotFound) {
		return credentials.Credential{}, domain.Studio{}, &auth.Refusal{Message: InvalidTokenMessage}
	}
	if err != nil {
		return credentials.Credential{}, domain.Studio{}, fmt.Errorf("looking up the access token: %w", err)
	}
	if t.Kind != store.TokenAccess || g.RevokedAt != nil || t.ExpiresAt == nil || !s.now().Before(*t.ExpiresAt) {
		return credentials.Credential{}, domain.Studio{}, &auth.Refusal{Message: InvalidTokenMessage}
	}
	return credentials.Credential{Kind: auth.KindOAuthGrant, ID: g.ID, Subject: g.Subject, Scopes: g.Scopes}, studio, nil
}

// TouchGrant records the grant's last use, for the connected apps page.
func (s *Server) TouchGrant(ctx context.Context, grantID string, at time.Time) error {
	return s.store.OAuth().TouchOAuthGrant(ctx, grantID, at)
}

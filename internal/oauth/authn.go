package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/store"
)

// InvalidTokenMessage answers an access token that is unknown, expired or
// whose app was disconnected.
const InvalidTokenMessage = "This access token is not valid: it expired, or its app was disconnected. Refresh it, or connect the app again."

// Authenticator answers Perform access tokens (pf_at_…) itself and hands
// every other credential (studio keys, none at all) to next: the one
// authenticator the lane and /mcp share.
func (s *Server) Authenticator(next auth.Authenticator) auth.Authenticator {
	return composed{s: s, next: next}
}

type composed struct {
	s    *Server
	next auth.Authenticator
}

func (a composed) Authenticate(ctx context.Context, r *http.Request) (*auth.Principal, error) {
	token, ok := auth.Bearer(r.Header.Get("Authorization"))
	if !ok || !strings.HasPrefix(token, auth.AccessTokenPrefix) {
		return a.next.Authenticate(ctx, r)
	}
	return a.s.principal(ctx, token)
}

// principal resolves an access token: every request reads the store (no
// cache), so a revoked grant is refused on the very next request.
func (s *Server) principal(ctx context.Context, token string) (*auth.Principal, error) {
	t, g, studio, err := s.store.OAuth().OAuthToken(ctx, hash(token))
	if errors.Is(err, store.ErrNotFound) {
		return nil, &auth.Refusal{Message: InvalidTokenMessage}
	}
	if err != nil {
		return nil, fmt.Errorf("looking up the access token: %w", err)
	}
	now := s.now()
	if t.Kind != store.TokenAccess || g.RevokedAt != nil || t.ExpiresAt == nil || !now.Before(*t.ExpiresAt) {
		return nil, &auth.Refusal{Message: InvalidTokenMessage}
	}
	s.touch(ctx, g.ID, now)
	return &auth.Principal{
		StudioID:     studio.ID,
		StudioName:   studio.Name,
		StudioSlug:   studio.Slug,
		Region:       studio.Region,
		Tier:         studio.Tier,
		TimeZone:     studio.TimeZone(),
		FirstDay:     studio.FirstDay(),
		Kind:         auth.KindOAuthGrant,
		CredentialID: g.ID,
		Subject:      g.Subject,
		Scopes:       g.Scopes,
	}, nil
}

// touch records the grant's last use at most once a minute from this
// process, for the connected apps page.
func (s *Server) touch(ctx context.Context, grantID string, now time.Time) {
	s.touchMu.Lock()
	last, seen := s.touched[grantID]
	due := !seen || now.Sub(last) >= time.Minute
	if due {
		s.touched[grantID] = now
		if len(s.touched) > 10_000 {
			for k, at := range s.touched {
				if now.Sub(at) >= time.Minute {
					delete(s.touched, k)
				}
			}
		}
	}
	s.touchMu.Unlock()
	if due {
		if err := s.store.OAuth().TouchOAuthGrant(ctx, grantID, now.UTC()); err != nil {
			s.logger.Warn("oauth: recording a grant's last use failed", "grantId", grantID, "err", err)
		}
	}
}

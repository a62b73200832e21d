package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// tokenError is an RFC 6749 section 5.2 error.
type tokenError struct {
	status int
	code   string
	desc   string
}

func errInvalidClient(desc string) *tokenError {
	return &tokenError{status: http.StatusUnauthorized, code: "invalid_client", desc: desc}
}

func errInvalidGrant(desc string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, code: "invalid_grant", desc: desc}
}

func errRequest(desc string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, code: "invalid_request", desc: desc}
}

func writeOAuthError(w http.ResponseWriter, status int, code, desc string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Basic realm="Perform"`)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

func writeRegistrationError(w http.ResponseWriter, code, desc string) {
	writeOAuthError(w, http.StatusBadRequest, code, desc)
}

// tokenResponse is RFC 6749 section 5.1's answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// token is POST /token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "The body must be application/x-www-form-urlencoded parameters.")
		return
	}
	if p := inputProblem(r); p != "" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", p)
		return
	}
	c, terr := s.authenticateClient(r)
	if terr == nil {
		var resp *tokenResponse
		switch gt := r.PostForm.Get("grant_type"); gt {
		case "authorization_code":
			resp, terr = s.exchangeCode(r, c)
		case "refresh_token":
			resp, terr = s.refresh(r, c)
		case "":
			terr = errRequest("grant_type is missing; use authorization_code or refresh_token.")
		default:
			terr = &tokenError{status: http.StatusBadRequest, code: "unsupported_grant_type", desc: "grant_type must be authorization_code or refresh_token."}
		}
		if terr == nil {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Pragma", "no-cache")
			_ = json.NewEncoder(w).Encode(resp)
			return
		}
	}
	writeOAuthError(w, terr.status, terr.code, terr.desc)
}

// exchangeCode redeems an authorization code. A code works once: a second
// use revokes the grant the first made, since one of the two is a thief.
func (s *Server) exchangeCode(r *http.Request, c store.OAuthClient) (*tokenResponse, *tokenError) {
	f := r.PostForm
	code := f.Get("code")
	if code == "" {
		return nil, errRequest("code is missing.")
	}
	now := s.now()
	var resp *tokenResponse
	var terr *tokenError
	err := s.store.InTx(r.Context(), func(tx store.Store) error {
		ac, err := tx.OAuth().UseOAuthCode(r.Context(), hash(code), now)
		switch {
		case errors.Is(err, store.ErrNotFound):
			terr = errInvalidGrant("The authorization code is not valid.")
			return nil
		case errors.Is(err, store.ErrCodeUsed):
			if ac.GrantID != "" {
				if err := tx.OAuth().RevokeOAuthGrant(r.Context(), ac.GrantID, now); err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				s.logger.Warn("oauth: an authorization code was used twice; its grant is revoked", "grantId", ac.GrantID, "clientId", ac.ClientID)
			}
			terr = errInvalidGrant("The authorization code was used before; its tokens are revoked.")
			return nil
		case err != nil:
			return err
		}
		switch {
		case ac.ClientID != c.ID:
			terr = errInvalidGrant("The authorization code was issued to another client.")
		case !now.Before(ac.ExpiresAt):
			terr = errInvalidGrant("The authorization code has expired; codes live 10 minutes. Start the sign-in again.")
		case f.Get("redirect_uri") != ac.RedirectURI && !(f.Get("redirect_uri") == "" && len(c.RedirectURIs) == 1 && c.RedirectURIs[0] == ac.RedirectURI):
			terr = errInvalidGrant("redirect_uri is not the one the authorization request used.")
		case !pkceMatches(f.Get("code_verifier"), ac.CodeChallenge):
			terr = errInvalidGrant("code_verifier does not match the code_challenge of the authorization request.")
		case f.Has("resource") && !resourceMatches(strings.TrimSuffix(ac.Resource, MCPPath), f.Get("resource")):
			terr = &tokenError{status: http.StatusBadRequest, code: "invalid_target", desc: "resource is not the one the authorization request named."}
		}
		if terr != nil {
			return nil
		}
		g := &store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: ac.StudioID, Subject: ac.Subject, ClientID: c.ID, Scopes: ac.Scopes, Resource: ac.Resource, CreatedAt: now}
		var tokens []store.OAuthToken
		resp, tokens = s.newTokens(g, now)
		return tx.OAuth().CreateOAuthGrant(r.Context(), g, hash(code), tokens)
	})
	if err != nil {
		s.logger.Error("oauth: redeeming a code failed", "err", err)
		return nil, &tokenError{status: http.StatusInternalServerError, code: "server_error", desc: "The code could not be redeemed just now; try again."}
	}
	return resp, terr
}

// pkceMatches checks an S256 verifier against its challenge, in constant time.
func pkceMatches(verifier, challenge string) bool {
	if !validPKCE(verifier) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// newTokens makes an access and a refresh token of g.
func (s *Server) newTokens(g *store.OAuthGrant, now time.Time) (*tokenResponse, []store.OAuthToken) {
	access, refresh := newSecret(auth.AccessTokenPrefix), newSecret(auth.RefreshTokenPrefix)
	accessExp, refreshExp := now.Add(AccessTokenTTL), now.Add(RefreshTokenTTL)
	return &tokenResponse{
			AccessToken: access, TokenType: "Bearer", ExpiresIn: int(AccessTokenTTL.Seconds()),
			RefreshToken: refresh, Scope: strings.Join(g.Scopes, " "),
		}, []store.OAuthToken{
			{Hash: hash(access), GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: now, ExpiresAt: &accessExp},
			{Hash: hash(refresh), GrantID: g.ID, Kind: store.TokenRefresh, CreatedAt: now, ExpiresAt: &refreshExp},
		}
}

// refresh exchanges a refresh token for a new pair. The old one keeps
// working for RefreshGrace after its first exchange (each use gets a
// fresh pair: the store keeps no token in clear to hand out twice); used
// after that, it was stolen or leaked, and the whole grant is revoked.
func (s *Server) refresh(r *http.Request, c store.OAuthClient) (*tokenResponse, *tokenError) {
	rt := r.PostForm.Get("refresh_token")
	if rt == "" {
		return nil, errRequest("refresh_token is missing.")
	}
	if !strings.HasPrefix(rt, auth.RefreshTokenPrefix) {
		return nil, errInvalidGrant("The refresh token is not valid.")
	}
	now := s.now()
	var resp *tokenResponse
	var terr *tokenError
	err := s.store.InTx(r.Context(), func(tx store.Store) error {
		t, g, _, err := tx.OAuth().OAuthToken(r.Context(), hash(rt))
		if errors.Is(err, store.ErrNotFound) {
			terr = errInvalidGrant("The refresh token is not valid, or its app was disconnected.")
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case t.Kind != store.TokenRefresh:
			terr = errInvalidGrant("The refresh token is not valid.")
		case g.ClientID != c.ID:
			terr = errInvalidGrant("The refresh token was issued to another client.")
		case g.RevokedAt != nil:
			terr = errInvalidGrant("This app was disconnected; connect it again.")
		case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
			terr = errInvalidGrant("The refresh token has expired; connect the app again.")
		}
		if terr != nil {
			return nil
		}
		if scope := r.PostForm.Get("scope"); scope != "" {
			asked, err := ParseScope(scope)
			if err != nil || !subset(asked, g.Scopes) {
				terr = &tokenError{status: http.StatusBadRequest, code: "invalid_scope", desc: "A refresh may not ask for more than the grant holds: " + strings.Join(g.Scopes, " ") + "."}
				return nil
			}
		}
		first, err := tx.OAuth().RotateOAuthToken(r.Context(), t.Hash, now)
		if err != nil {
			return err
		}
		if now.Sub(first) > RefreshGrace {
			s.logger.Warn("oauth: a rotated refresh token was used again; its grant is revoked", "grantId", g.ID, "clientId", c.ID)
			terr = errInvalidGrant("The refresh token was already used; the app is disconnected and must connect again.")
			return tx.OAuth().RevokeOAuthGrant(r.Context(), g.ID, now)
		}
		var tokens []store.OAuthToken
		resp, tokens = s.newTokens(&g, now)
		return tx.OAuth().AddOAuthTokens(r.Context(), tokens)
	})
	if err != nil {
		s.logger.Error("oauth: refreshing failed", "err", err)
		return nil, &tokenError{status: http.StatusInternalServerError, code: "server_error", desc: "The token could not be refreshed just now; try again."}
	}
	return resp, terr
}

// revoke is POST /revoke (RFC 7009): a refresh token revokes its whole
// grant, an access token itself. Unknown tokens and other clients' tokens
// answer 200 as well and change nothing.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "The body must be application/x-www-form-urlencoded parameters.")
		return
	}
	if p := inputProblem(r); p != "" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", p)
		return
	}
	c, terr := s.authenticateClient(r)
	if terr != nil {
		writeOAuthError(w, terr.status, terr.code, terr.desc)
		return
	}
	tok := r.PostForm.Get("token")
	if tok == "" {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "token is missing.")
		return
	}
	t, g, _, err := s.store.OAuth().OAuthToken(r.Context(), hash(tok))
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		s.logger.Error("oauth: revoking failed", "err", err)
		writeOAuthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The token could not be revoked just now; try again.")
		return
	case g.ClientID != c.ID:
	case t.Kind == store.TokenRefresh:
		err = s.store.OAuth().RevokeOAuthGrant(r.Context(), g.ID, s.now())
	default:
		err = s.store.OAuth().DeleteOAuthToken(r.Context(), t.Hash)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		s.logger.Error("oauth: revoking failed", "err", err)
		writeOAuthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The token could not be revoked just now; try again.")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

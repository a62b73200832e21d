package mcpserver

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ratelimit"
)

// Gate is what the hosted endpoint checks before the SDK sees a message:
// the credential, with the lane's own Authenticator, then the rate limit,
// keyed as the lane keys it (the credential, or the client's address when
// the credential is missing or refused). So initialize and tools/list are
// limited like tool calls, and rotating made-up tokens buys nothing.
type Gate struct {
	Authenticator auth.Authenticator
	Limiter       ratelimit.Limiter // nil: unlimited
	Logger        *slog.Logger
}

// Wrap returns next behind the gate. A message that passes carries an
// admission for its credential, so the lane call it leads to is not
// counted a second time: one MCP message is one unit of the limit.
func (g Gate) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r) // answered 405 by the endpoint, counted by address
			return
		}
		p, err := g.Authenticator.Authenticate(r.Context(), r)
		var refusal *auth.Refusal
		switch {
		case errors.As(err, &refusal):
			if g.admit(w, r, ratelimit.AddrKey(r.RemoteAddr)) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="Perform", error="invalid_token"`)
				message := refusal.Message
				if refusal.Missing {
					message = UnauthorizedMessage
				}
				writeError(w, http.StatusUnauthorized, codeUnauthorized, message)
			}
			return
		case err != nil:
			if g.Logger != nil {
				g.Logger.ErrorContext(r.Context(), "mcp: authenticating the request failed", "err", err)
			}
			writeError(w, http.StatusInternalServerError, jsonrpc.CodeInternalError, "Perform could not check the API key just now; try again in a few seconds.")
			return
		}
		if !g.admit(w, r, ratelimit.CredentialKey(p.CredentialID)) {
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithAdmission(r.Context(), p.CredentialID)))
	})
}

// admit counts r against the caller named key; over the limit it answers
// 429 with a JSON-RPC error and reports false.
func (g Gate) admit(w http.ResponseWriter, r *http.Request, key string) bool {
	d, ok := ratelimit.Check(w, r, g.Limiter, key, g.Logger)
	if !ok {
		DenyRateLimited(w, r, d)
	}
	return ok
}

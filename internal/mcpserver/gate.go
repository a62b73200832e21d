package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/tools"
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
	// ResourceMetadata is the URL of /mcp's protected-resource metadata
	// (RFC 9728) for r, named in every challenge so an OAuth client can
	// discover the authorization server; nil leaves it out.
	ResourceMetadata func(r *http.Request) string
	// Scope is the scopes a client should ask for, named in a 401's challenge.
	Scope string
}

// coachToolScopes and traineeToolScopes are the scope each tool of a set
// needs: names repeat across the sets (log_workout), so a tool is looked up
// in the caller's set only.
var (
	coachToolScopes   = scopesOf(tools.All)
	traineeToolScopes = sync.OnceValue(func() map[string]string { return scopesOf(tools.Trainee) })
)

func scopesOf(set func() []tools.Tool) map[string]string {
	m := map[string]string{}
	for _, t := range set() {
		m[t.Name] = t.Scope
	}
	return m
}

// Wrap returns next behind the gate. A message that passes carries its
// auth.Admission: the principal, so the endpoint lists the tools its
// scopes allow and the lane call it leads to does not read the credential
// again, and the unit of the limit it paid, so that call is not counted a
// second time: one MCP message is one unit of the limit.
func (g Gate) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r) // answered 405 by the endpoint, counted by address
			return
		}
		// An agent platform's claims about its end user travel in the
		// context to the lane's audit; they unlock nothing.
		if c, ok, err := auth.ConversationFromHeaders(r.Header); ok || err != nil {
			if err != nil && g.Logger != nil {
				g.Logger.WarnContext(r.Context(), "mcp: an identity header was ignored", "conversationId", c.ID, "err", err)
			}
			r = r.WithContext(auth.WithConversation(r.Context(), c))
		}
		p, err := g.Authenticator.Authenticate(r.Context(), r)
		var refusal *auth.Refusal
		switch {
		case errors.As(err, &refusal):
			if g.admit(w, r, ratelimit.AddrKey(auth.ClientAddr(r))) {
				w.Header().Set("WWW-Authenticate", g.challenge(r, "invalid_token", g.Scope))
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
		g.logTokenVerdict(r)
		// An OAuth grant short of a tool's scope is told so in HTTP, so its
		// client can ask the person for more (step-up authorization). A
		// studio key keeps today's answer: the lane's sentence in the result.
		if p.Kind == auth.KindOAuthGrant || p.IsTrainee() {
			if scope, short := g.scopeShortfall(r, p); short {
				w.Header().Set("WWW-Authenticate", g.challenge(r, "insufficient_scope", scope))
				writeError(w, http.StatusForbidden, codeForbidden, "This connection lacks the scope "+scope+" that the tool needs; connect the app again and allow it.")
				return
			}
		}
		// The lane call a tool makes in process carries the same credential
		// within this same request: it takes this admission instead of
		// reading the credential again and counting it a second time (a
		// revocation still holds from the next message on, which is
		// authenticated here afresh).
		token, _ := auth.Bearer(r.Header.Get("Authorization"))
		next.ServeHTTP(w, r.WithContext(auth.Admit(r.Context(), token, p)))
	})
}

// logTokenVerdict logs a replayed trainee token the authenticator did not
// take (expired, revoked, another conversation's…): the message is
// answered as anonymous, and a tools/list reaches no lane audit.
func (g Gate) logTokenVerdict(r *http.Request) {
	c, ok := auth.ConversationFrom(r.Context())
	if !ok || c.Token == nil || g.Logger == nil {
		return
	}
	if v := c.Token.Verdict(); v != auth.TokenVerified {
		g.Logger.WarnContext(r.Context(), "mcp: a replayed X-Perform-Trainee-Token was refused; the call is anonymous", "conversationId", c.ID, "verdict", v)
	}
}

// codeForbidden is the JSON-RPC error code of a scope shortfall.
const codeForbidden = -32003

// challenge is the WWW-Authenticate value: the seed's Bearer challenge,
// extended with where the resource metadata is and the scopes to ask for.
func (g Gate) challenge(r *http.Request, code, scope string) string {
	var b strings.Builder
	b.WriteString(`Bearer realm="Perform", error="` + code + `"`)
	if g.ResourceMetadata != nil {
		if u := g.ResourceMetadata(r); u != "" {
			b.WriteString(`, resource_metadata="` + u + `"`)
		}
	}
	if scope != "" {
		b.WriteString(`, scope="` + scope + `"`)
	}
	return b.String()
}

// maxPeek bounds how much of a message the gate reads to find a tool call;
// the rest streams on to the SDK untouched.
const maxPeek = 1 << 20

// scopeShortfall reads a tools/call message's tool and reports the scope
// it needs when p lacks it. The body is put back for the SDK.
func (g Gate) scopeShortfall(r *http.Request, p *auth.Principal) (string, bool) {
	head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return "", false
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(head, &msg) != nil || msg.Method != "tools/call" {
		return "", false
	}
	scopes := coachToolScopes
	if p.IsTrainee() {
		scopes = traineeToolScopes()
	}
	scope, known := scopes[msg.Params.Name]
	if !known || scope == "" || p.Has(scope) {
		return "", false
	}
	return scope, true
}

type readCloser struct {
	io.Reader
	io.Closer
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

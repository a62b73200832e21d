package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"
)

// Conversation is who an agent platform says it is talking to, read from
// the X-Sa-… headers of a call to /mcp. Every field is a claim: it is
// recorded in the audit and may pre-fill a verification, and it unlocks
// nothing.
type Conversation struct {
	ID         string         `json:"conversationId,omitempty"`
	TenantID   string         `json:"tenantId,omitempty"`
	Channel    string         `json:"channel,omitempty"` // web, phone, whatsapp, sms, email, heartbeat
	Name       string         `json:"name,omitempty"`
	Phone      string         `json:"phone,omitempty"`
	Email      string         `json:"email,omitempty"`
	ExternalID string         `json:"externalId,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
	// UserToken is the web page's session token as the platform relayed
	// it: kept as a signal only, so only whether one came is recorded.
	UserToken string `json:"-"`
	HasToken  bool   `json:"userToken,omitempty"`

	// CallbackURL and CallbackToken are the platform's auth-context
	// broker for this call (X-Sa-Auth-Callback, X-Sa-Auth-Callback-Token):
	// where Perform reports a verification or a sign-out, and the bearer
	// token of this call, the most recent one. Untrusted: the lane checks
	// the URL before using it. Neither is recorded.
	CallbackURL   string `json:"-"`
	CallbackToken string `json:"-"`
	// TraineeToken is the forward payload the platform replayed
	// (X-Perform-Trainee-Token); Token records, for the audit, what the
	// lane made of it. Both are set together, or neither.
	TraineeToken string      `json:"-"`
	Token        *TokenCheck `json:"traineeToken,omitempty"`
}

// Verdicts of a replayed trainee token (TokenCheck).
const (
	TokenPresented           = "presented" // not looked at yet
	TokenVerified            = "verified"
	TokenExpired             = "expired"
	TokenRevoked             = "revoked" // the conversation signed out or verified again
	TokenUnknown             = "unknown" // no such token: made up, cut or of another Perform
	TokenAnotherStudio       = "another_studio"
	TokenAnotherKey          = "another_platform_key"
	TokenAnotherConversation = "another_conversation"
	TokenScopesChanged       = "scopes_changed" // issued for trainee scopes this Perform no longer grants
)

// TokenCheck is the verdict on a call's trainee token. The authenticator
// sets it (the /mcp gate and the lane both authenticate one call, with the
// same answer); the audit reads it. Safe for concurrent use.
type TokenCheck struct {
	mu      sync.Mutex
	verdict string
}

// Set records the verdict.
func (t *TokenCheck) Set(verdict string) {
	t.mu.Lock()
	t.verdict = verdict
	t.mu.Unlock()
}

// Verdict is the verdict recorded, TokenPresented before any.
func (t *TokenCheck) Verdict() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.verdict == "" {
		return TokenPresented
	}
	return t.verdict
}

// MarshalJSON records the verdict, never the token.
func (t *TokenCheck) MarshalJSON() ([]byte, error) { return json.Marshal(t.Verdict()) }

// The identity headers an agent platform sends (the Perfox contract).
const (
	HeaderEndUserName       = "X-Sa-End-User-Name"
	HeaderEndUserPhone      = "X-Sa-End-User-Phone"
	HeaderEndUserEmail      = "X-Sa-End-User-Email"
	HeaderEndUserExternalID = "X-Sa-End-User-External-Id"
	HeaderEndUserAttributes = "X-Sa-End-User-Attributes"
	HeaderConversationID    = "X-Sa-Conversation-Id"
	HeaderChannel           = "X-Sa-Channel"
	HeaderUserToken         = "X-Sa-User-Token"
	HeaderTenantID          = "X-Sa-Tenant-Id"
	// The auth-context broker's callback of this call.
	HeaderAuthCallback      = "X-Sa-Auth-Callback"
	HeaderAuthCallbackToken = "X-Sa-Auth-Callback-Token"
	// HeaderTraineeToken is where the platform replays the forward payload
	// Perform gave its broker (forward_as "header:X-Perform-Trainee-Token").
	HeaderTraineeToken = "X-Perform-Trainee-Token"
)

// Bounds of the broker's headers. A longer callback URL or token is left
// out (a cut one would be wrong); a longer trainee token is kept cut, so
// it is refused as unknown and audited.
const (
	maxCallbackURL   = 2048
	maxCallbackToken = 4096
	maxTraineeToken  = 256
)

// maxClaim bounds each header value kept; longer values are cut, so a
// platform's header cannot grow an audit row without limit.
const maxClaim = 200

// maxAttributes bounds the attributes header read.
const maxAttributes = 4096

// ErrBadAttributes is a malformed X-Sa-End-User-Attributes: not a JSON
// object, or too long. The rest of the conversation is read anyway.
var ErrBadAttributes = errors.New("X-Sa-End-User-Attributes is not a JSON object of at most 4096 bytes; it was ignored")

// ConversationFromHeaders reads the identity headers. It answers ok false
// when none is present; a malformed attributes header is left out and
// reported as ErrBadAttributes, never a failure of the call.
func ConversationFromHeaders(h http.Header) (c Conversation, ok bool, err error) {
	claim := func(name string) string { return clip(strings.TrimSpace(h.Get(name))) }
	c = Conversation{
		ID: claim(HeaderConversationID), TenantID: claim(HeaderTenantID), Channel: strings.ToLower(claim(HeaderChannel)),
		Name: claim(HeaderEndUserName), Phone: claim(HeaderEndUserPhone), Email: claim(HeaderEndUserEmail),
		ExternalID: claim(HeaderEndUserExternalID),
	}
	if tok := strings.TrimSpace(h.Get(HeaderUserToken)); tok != "" {
		c.UserToken, c.HasToken = tok, true
	}
	if u := strings.TrimSpace(h.Get(HeaderAuthCallback)); len(u) <= maxCallbackURL {
		c.CallbackURL = u
	}
	if tok := strings.TrimSpace(h.Get(HeaderAuthCallbackToken)); len(tok) <= maxCallbackToken {
		c.CallbackToken = tok
	}
	if tok := strings.TrimSpace(h.Get(HeaderTraineeToken)); tok != "" {
		c.TraineeToken, c.Token = clipTo(tok, maxTraineeToken), &TokenCheck{}
	}
	if raw := strings.TrimSpace(h.Get(HeaderEndUserAttributes)); raw != "" {
		var attrs map[string]any
		if len(raw) > maxAttributes || json.Unmarshal([]byte(raw), &attrs) != nil || attrs == nil {
			err = ErrBadAttributes
		} else if len(attrs) > 0 {
			c.Attributes = attrs
		}
	}
	ok = c.ID != "" || c.TenantID != "" || c.Channel != "" || c.Name != "" || c.Phone != "" || c.Email != "" ||
		c.ExternalID != "" || c.HasToken || c.Attributes != nil || c.CallbackURL != "" || c.CallbackToken != "" || c.TraineeToken != ""
	return c, ok, err
}

// clip cuts s to maxClaim bytes on a rune boundary.
func clip(s string) string { return clipTo(s, maxClaim) }

// clipTo cuts s to max bytes on a rune boundary.
func clipTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

type conversationKey struct{}

// WithConversation returns ctx carrying the conversation an agent platform
// described. Like WithSource, only code in this process can set it: the
// /mcp endpoint does, from the headers of its own request; the lane never
// reads those headers from the network.
func WithConversation(ctx context.Context, c Conversation) context.Context {
	return context.WithValue(ctx, conversationKey{}, &c)
}

// ConversationFrom returns the conversation ctx carries, if any.
func ConversationFrom(ctx context.Context) (Conversation, bool) {
	c, ok := ctx.Value(conversationKey{}).(*Conversation)
	if !ok || c == nil {
		return Conversation{}, false
	}
	return *c, true
}

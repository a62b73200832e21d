package public

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/netguard"
	"github.com/otherwise/perform/internal/store"
)

// An agent platform's auth-context broker (the Perfox contract): when a
// conversation verifies, Perform POSTs to the callback URL the platform
// sent on the call (X-Sa-Auth-Callback, with X-Sa-Auth-Callback-Token as
// the bearer) that the person is authenticated, with a forward payload the
// platform replays on the conversation's later calls as
// X-Perform-Trainee-Token; on sign_out it POSTs authenticated false.
//
// The callback is a River job (callbackArgs), inserted in the transaction
// that writes the conversation's verification or sign-out, so it is sent
// after the answer, by any instance, and survives a crash: a job whose
// process died is rescued and tried again. The platform applies it on the
// next turn anyway, and the conversation is already verified server-side
// (platform_conversations). A conversation's callbacks reach the platform
// in the order they were asked for: a job waits (snoozes) while an earlier
// job of its conversation is unfinished. Each try has 5 s; a 5xx or a
// network failure is tried again by River (3 tries, 500 ms then 1 s).
// Every outcome is logged and audited with the conversation.
//
// The callback URL is untrusted input: HTTPS only, to a host of
// BrokerOptions.Hosts, on the default port unless the host's entry names
// one; every connection goes through internal/netguard, which refuses
// private, loopback and other inner addresses when the connection is
// dialled, so DNS cannot point an allowed name inward.

// ForwardAs is where the platform is asked to replay the forward payload.
const ForwardAs = "header:" + auth.HeaderTraineeToken

// TraineeTokenPrefix starts every forward payload Perform issues.
const TraineeTokenPrefix = "pf_tt_"

// Callback limits.
const (
	callbackTimeout  = 5 * time.Second // per try
	callbackTries    = 3               // the first and two retries
	callbackBackoff  = 500 * time.Millisecond
	maxCallbackReply = 16 << 10
	// orderWait is how long a callback waits before it looks again for an
	// earlier one of its conversation.
	orderWait = 200 * time.Millisecond
)

// BrokerOptions configure the auth-context callback.
type BrokerOptions struct {
	// Hosts are the host names (host or host:port) callbacks may go to
	// (PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS). Empty refuses every callback.
	Hosts []string
	// AllowLoopback lets callbacks go to a loopback address over http or
	// https, with any port, without being listed: for a platform developer
	// trying the callback on a laptop
	// (PERFORM_AGENT_PLATFORM_CALLBACK_LOOPBACK=1, refused with an https
	// PERFORM_PUBLIC_URL) and for tests, whose fake platform listens on
	// 127.0.0.1.
	AllowLoopback bool
	// Backoff is the wait before the first retry, doubled before the
	// second; 0 is 500 ms.
	Backoff time.Duration
	// TLS, when set, is the callbacks' TLS configuration (tests trust
	// their fake platform's certificate with it); nil: the system's roots.
	TLS *tls.Config
}

// broker holds the callbacks' settings and their guarded HTTP client.
type broker struct {
	opts   BrokerOptions
	client *http.Client
}

func newBroker(o BrokerOptions) *broker {
	if o.Backoff <= 0 {
		o.Backoff = callbackBackoff
	}
	hosts := make([]string, 0, len(o.Hosts))
	for _, h := range o.Hosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			hosts = append(hosts, h)
		}
	}
	o.Hosts = hosts
	// No redirect is followed: the URL was checked against the hosts, its
	// target was not.
	client := netguard.Policy{AllowLoopback: o.AllowLoopback}.Client(netguard.ClientOptions{Timeout: callbackTimeout, TLS: o.TLS, MaxIdleConnsPerHost: 4})
	return &broker{opts: o, client: client}
}

// callbackRefusal is a callback URL Perform will not call: its reason (as
// audited) and the sentence logged.
type callbackRefusal struct{ reason, sentence string }

func (r *callbackRefusal) Error() string { return r.sentence }

// Reasons a callback URL is refused.
const (
	refusedNoCallback  = "no_callback"
	refusedBadURL      = "bad_url"
	refusedNotHTTPS    = "not_https"
	refusedHostNotList = "host_not_allowed"
)

// checkCallback parses the callback URL the platform sent and checks it
// against the allowed hosts: an absolute https URL without credentials, to
// a listed host (an entry without a port allows the default port only),
// or with loopback allowed to a loopback host over http or https.
func checkCallback(raw string, hosts []string, loopback bool) (*url.URL, *callbackRefusal) {
	if raw == "" {
		return nil, &callbackRefusal{refusedNoCallback, "the platform sent no " + auth.HeaderAuthCallback + " on this call"}
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, &callbackRefusal{refusedBadURL, "the callback is not an absolute URL"}
	}
	if u.User != nil {
		return nil, &callbackRefusal{refusedBadURL, "the callback URL carries credentials"}
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" || strings.ContainsAny(host, "%") {
		return nil, &callbackRefusal{refusedBadURL, "the callback URL has no usable host"}
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, &callbackRefusal{refusedBadURL, "the callback URL's port is not a port"}
		}
	}
	scheme := strings.ToLower(u.Scheme)
	if loopback && loopbackHost(host) && (scheme == "http" || scheme == "https") {
		return u, nil
	}
	if scheme != "https" {
		return nil, &callbackRefusal{refusedNotHTTPS, "the callback URL is " + scheme + ", not https"}
	}
	want := host
	if port != "" && port != "443" {
		want = net.JoinHostPort(host, port)
	}
	if !slices.Contains(hosts, want) {
		return nil, &callbackRefusal{refusedHostNotList, "the callback host " + want + " is not in PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS"}
	}
	return u, nil
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newTraineeToken is a fresh forward payload: the prefix and 32 random
// bytes, unpadded base64url. Only its hash is stored.
func newTraineeToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return TraineeTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// traineeTokenWellFormed reports whether s has a forward payload's shape.
func traineeTokenWellFormed(s string) bool {
	rest, ok := strings.CutPrefix(s, TraineeTokenPrefix)
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// tokenTrainee is the trainee a replayed forward payload stands for, and
// the verdict: a payload counts only for the studio, platform key and
// conversation it was issued to, until it expires or is revoked.
func tokenTrainee(ctx context.Context, st store.Store, token, keyID, studioID string, convHash []byte, now time.Time) (string, string) {
	if !traineeTokenWellFormed(token) {
		return "", auth.TokenUnknown
	}
	row, err := st.Platform().Token(ctx, auth.Hash(token))
	switch {
	case err != nil: // not found, or the store failed: nobody, either way
		return "", auth.TokenUnknown
	case row.StudioID != studioID:
		return "", auth.TokenAnotherStudio
	case row.KeyID != keyID:
		return "", auth.TokenAnotherKey
	case !bytes.Equal(row.ConversationHash, convHash):
		return "", auth.TokenAnotherConversation
	case row.RevokedAt != nil:
		return "", auth.TokenRevoked
	case !now.Before(row.ExpiresAt):
		return "", auth.TokenExpired
	case !slices.Equal(row.Scopes, auth.TraineeScopes):
		return "", auth.TokenScopesChanged
	}
	return row.TraineeID, auth.TokenVerified
}

// authContext is the callback's body (the seed's shape). ForwardPayload is
// always sent: a new one when verified, null on sign-out to clear it.
type authContext struct {
	Authenticated  bool         `json:"authenticated"`
	UserContext    *userContext `json:"user_context,omitempty"`
	ForwardPayload *string      `json:"forward_payload"`
	ForwardAs      string       `json:"forward_as,omitempty"`
	Trust          string       `json:"trust,omitempty"`
	ExpiresAt      string       `json:"expires_at,omitempty"`
}

type userContext struct {
	ExternalID string `json:"external_id"`
	Name       string `json:"name,omitempty"`
}

// Events of the callback, as audited (the route's parenthesis).
const (
	brokerVerified  = "verified"
	brokerSignedOut = "signed out"
)

// callbackKind is the callback job's kind.
const callbackKind = "platform_callback"

// callbackArgs is one auth-context callback, as a River job. It holds no
// forward payload: a verified callback issues its payload when it is
// sent, if the conversation is still verified as then. The platform's
// callback token is sealed with PERFORM_SECRET_KEY when one is set.
type callbackArgs struct {
	Conversation string    `json:"conversation"` // hex of the conversation hash
	Event        string    `json:"event"`
	At           time.Time `json:"at"` // when the call asked for it: with Conversation, unique
	URL          string    `json:"url"`
	Token        string    `json:"token,omitempty"` // the callback's bearer, sealed when a key is set
	Sealed       bool      `json:"sealed,omitempty"`
	StudioID     string    `json:"studioId"`
	KeyID        string    `json:"keyId"`
	TraineeID    string    `json:"traineeId,omitempty"` // verified
	Until        time.Time `json:"until,omitzero"`      // verified
	// The call's, for the log and the audit.
	ConversationID string          `json:"conversationId"`
	AuditConv      json.RawMessage `json:"auditConversation,omitempty"`
	RequestID      string          `json:"requestId,omitempty"`
	Source         string          `json:"source,omitempty"`
}

func (callbackArgs) Kind() string { return callbackKind }

// conversationTag tags a conversation's callback jobs, so a job finds the
// earlier ones of its conversation.
func conversationTag(hexHash string) string { return "pc_" + hexHash }

// callbackAAD binds a sealed callback token to its conversation and event.
func callbackAAD(a callbackArgs) string {
	return "perform platform callback\x00" + a.Conversation + "\x00" + a.Event + "\x00" + a.At.UTC().Format(time.RFC3339Nano)
}

// brokerVerified asks for the callback telling the platform the
// conversation verified as trainee until until, in tx (the confirmation's
// transaction). A callback URL refused asks for nothing.
func (a *Area) brokerVerified(c *lane.Call, tx store.Store, conv auth.Conversation, hash []byte, traineeID string, now, until time.Time) error {
	if c.DryRun() {
		return nil
	}
	u, refusal := checkCallback(conv.CallbackURL, a.broker.opts.Hosts, a.broker.opts.AllowLoopback)
	if refusal != nil {
		a.brokerRefused(c, conv, brokerVerified, refusal)
		return nil
	}
	return a.enqueueCallback(c, tx, conv, hash, u, callbackArgs{Event: brokerVerified, At: now, TraineeID: traineeID, Until: until})
}

// brokerSignedOut revokes the conversation's forward payloads at once and
// asks for the callback telling the platform, in tx: always on sign_out,
// and when a new verification starts only if a live payload was revoked.
func (a *Area) brokerSignedOut(c *lane.Call, tx store.Store, conv auth.Conversation, hash []byte, now time.Time, always bool) error {
	n, err := tx.Platform().RevokeTokens(c.Ctx, hash, now)
	if err != nil {
		return err
	}
	if c.DryRun() || n == 0 && !always {
		return nil
	}
	u, refusal := checkCallback(conv.CallbackURL, a.broker.opts.Hosts, a.broker.opts.AllowLoopback)
	if refusal != nil {
		a.brokerRefused(c, conv, brokerSignedOut, refusal)
		return nil
	}
	return a.enqueueCallback(c, tx, conv, hash, u, callbackArgs{Event: brokerSignedOut, At: now})
}

// enqueueCallback inserts the callback's job in tx. Without a job queue
// (a lane built without River) the callback is logged and audited as not
// queued.
func (a *Area) enqueueCallback(c *lane.Call, tx store.Store, conv auth.Conversation, hash []byte, u *url.URL, args callbackArgs) error {
	client := a.jobs.Load()
	if client == nil {
		c.Logger().WarnContext(c.Ctx, "agent platform: the auth-context callback was not sent: this server runs no job queue", "event", args.Event, "conversationId", conv.ID)
		a.brokerAudit(c, conv, args.Event, 0, "not_queued")
		return nil
	}
	args.Conversation = hex.EncodeToString(hash)
	args.URL = u.String()
	args.StudioID, args.KeyID = c.P.StudioID, c.P.CredentialID
	args.ConversationID, args.RequestID, args.Source = conv.ID, c.RequestID(), c.P.Source
	args.AuditConv = lane.ConversationOf(auth.WithConversation(context.Background(), conv), c.P)
	args.Token = conv.CallbackToken
	if a.box != nil && args.Token != "" {
		args.Token, args.Sealed = a.box.Seal(args.Token, callbackAAD(args)), true
	}
	opts := &river.InsertOpts{MaxAttempts: callbackTries, Tags: []string{conversationTag(args.Conversation)}, UniqueOpts: jobs.UniqueOpts()}
	var err error
	if sqlTx := tx.SQLTx(); sqlTx != nil {
		_, err = client.InsertTx(c.Ctx, sqlTx, args, opts)
	} else {
		_, err = client.Insert(c.Ctx, args, opts)
	}
	if err != nil {
		return fmt.Errorf("queueing the agent platform's callback: %w", err)
	}
	return nil
}

func (a *Area) brokerRefused(c *lane.Call, conv auth.Conversation, event string, r *callbackRefusal) {
	level := "agent platform: the auth-context callback was not sent: "
	if r.reason == refusedNoCallback {
		c.Logger().InfoContext(c.Ctx, level+r.sentence, "event", event, "conversationId", conv.ID, "reason", r.reason)
	} else {
		c.Logger().WarnContext(c.Ctx, level+r.sentence, "event", event, "conversationId", conv.ID, "reason", r.reason)
	}
	a.brokerAudit(c, conv, event, 0, r.reason)
}

// brokerAudit records one outcome of the callback decided during the call.
func (a *Area) brokerAudit(c *lane.Call, conv auth.Conversation, event string, status int, outcome string) {
	a.recordCallback(callbackArgs{Event: event, StudioID: c.P.StudioID, KeyID: c.P.CredentialID, RequestID: c.RequestID(), Source: c.P.Source,
		AuditConv: lane.ConversationOf(auth.WithConversation(context.Background(), conv), c.P)}, c.Now().UTC(), status, outcome)
}

// recordCallback records one outcome of the callback: the route names the
// event, the status is the platform's last answer (0: none), the resource
// the outcome (accepted, a rejection's reason, a refusal's).
func (a *Area) recordCallback(args callbackArgs, at time.Time, status int, outcome string) {
	if a.audit == nil {
		return
	}
	a.audit.Record(domain.AuditEvent{
		ID: ids.New(ids.Audit), StudioID: args.StudioID, CredentialID: args.KeyID,
		Method: http.MethodPost, Route: "agent platform auth-context callback (" + args.Event + ")", ResourceID: outcome, Status: status,
		RequestID: args.RequestID, Source: args.Source, Conversation: args.AuditConv, At: at,
	})
}

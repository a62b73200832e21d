package public

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// An agent platform's auth-context broker (the Perfox contract): when a
// conversation verifies, Perform POSTs to the callback URL the platform
// sent on the call (X-Sa-Auth-Callback, with X-Sa-Auth-Callback-Token as
// the bearer) that the person is authenticated, with a forward payload the
// platform replays on the conversation's later calls as
// X-Perform-Trainee-Token; on sign_out it POSTs authenticated false.
//
// The callback runs in the background, after the answer: the platform
// applies it on the next turn anyway, and this conversation is already
// verified server-side (platform_conversations), so the rest of the turn
// acts as the trainee whatever the platform answers. Three tries of 5 s
// would otherwise hold a voice agent's tool call for up to 17 s. Every
// outcome is logged and audited with the conversation; Lane.Close waits
// for callbacks (and verification codes) still running.
//
// The callback URL is untrusted input: HTTPS only, to a host of
// BrokerOptions.Hosts, on the default port unless the host's entry names
// one, never to a private or loopback address (checked again when the
// connection is dialled, so DNS cannot point an allowed name inward).

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
	// closeWait is how long Close lets background work finish by default.
	closeWait = 5 * time.Second
)

// BrokerOptions configure the auth-context callback.
type BrokerOptions struct {
	// Hosts are the host names (host or host:port) callbacks may go to
	// (PERFORM_AGENT_PLATFORM_CALLBACK_HOSTS). Empty refuses every callback.
	Hosts []string
	// AllowLoopback lets callbacks go to a loopback address over http or
	// https, with any port, without being listed: for tests, whose fake
	// platform listens on 127.0.0.1. No setting turns it on; server.New
	// never does.
	AllowLoopback bool
	// Backoff is the wait before the first retry, doubled before the
	// second; 0 is 500 ms.
	Backoff time.Duration
	// TLS, when set, is the callbacks' TLS configuration (tests trust
	// their fake platform's certificate with it); nil: the system's roots.
	TLS *tls.Config
}

// broker sends the callbacks and tracks the lane's background work.
type broker struct {
	opts   BrokerOptions
	client *http.Client

	ctx    context.Context // cancelled when Close gives up waiting
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	// tails orders each conversation's callbacks: a callback waits for the
	// one asked for before it (a sign-out, then a new verification), so
	// the platform gets them in order. Keyed on the conversation hash;
	// within this process.
	tails map[string]chan struct{}
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
	ctx, cancel := context.WithCancel(context.Background())
	dialer := &net.Dialer{Timeout: callbackTimeout, Control: dialControl(o.AllowLoopback)}
	client := &http.Client{
		Timeout: callbackTimeout,
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   callbackTimeout,
			ResponseHeaderTimeout: callbackTimeout,
			TLSClientConfig:       o.TLS,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       time.Minute,
			// No Proxy: a proxy would dial the address, not Perform.
		},
		// A redirect is not followed: the URL was checked, its target was not.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &broker{opts: o, client: client, ctx: ctx, cancel: cancel, tails: map[string]chan struct{}{}}
}

// errAddressRefused is a callback host that resolved to an address
// Perform does not call.
var errAddressRefused = errors.New("the callback host resolves to a private, loopback or otherwise internal address")

// dialControl refuses every address but public unicast ones (and loopback
// when allowed), whatever name led to it.
func dialControl(loopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip := net.ParseIP(host)
		if ip == nil {
			return errAddressRefused
		}
		if ip.IsLoopback() {
			if loopback {
				return nil
			}
			return errAddressRefused
		}
		if ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
			return errAddressRefused
		}
		return nil
	}
}

// goBackground runs f off the request, tracked so Close waits for it. After
// Close it does not run f and answers false.
func (b *broker) goBackground(f func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f(b.ctx)
	}()
	return true
}

// goInOrder is goBackground for the conversation key: f starts once the
// previous work of the same key has ended.
func (b *broker) goInOrder(key string, f func(ctx context.Context)) bool {
	b.mu.Lock()
	prev := b.tails[key]
	done := make(chan struct{})
	b.tails[key] = done
	b.mu.Unlock()
	finish := func() {
		close(done)
		b.mu.Lock()
		if b.tails[key] == done {
			delete(b.tails, key)
		}
		b.mu.Unlock()
	}
	started := b.goBackground(func(ctx context.Context) {
		defer finish()
		if prev != nil {
			select {
			case <-prev:
			case <-ctx.Done():
			}
		}
		f(ctx)
	})
	if !started {
		finish()
	}
	return started
}

// Close waits for the lane's background work (auth-context callbacks,
// verification codes) to end, until ctx is done; then it cancels what still
// runs and waits for it to return. Work asked for after Close is not done
// (and logged). Call it before closing the audit writer, so the outcomes
// are recorded.
func (a *Area) Close(ctx context.Context) error {
	b := a.broker
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
		b.cancel()
		return nil
	case <-ctx.Done():
		b.cancel()
		<-done
		return fmt.Errorf("the lane's background work did not finish in time and was cancelled: %w", ctx.Err())
	}
}

// CloseWait is Close with its default wait (5 s).
func (a *Area) CloseWait() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	return a.Close(ctx)
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

// brokerVerified tells the platform the conversation verified as trainee
// until until: it issues a forward payload bound to the conversation and
// POSTs it in the background. A callback URL refused issues nothing.
func (a *Area) brokerVerified(c *lane.Call, conv auth.Conversation, hash []byte, traineeID string, now, until time.Time) {
	if c.DryRun() {
		return
	}
	u, refusal := checkCallback(conv.CallbackURL, a.broker.opts.Hosts, a.broker.opts.AllowLoopback)
	if refusal != nil {
		a.brokerRefused(c, conv, brokerVerified, refusal)
		return
	}
	token := newTraineeToken()
	if err := c.DB().Platform().PutToken(c.Ctx, store.PlatformToken{Hash: auth.Hash(token), StudioID: c.P.StudioID, TraineeID: traineeID,
		KeyID: c.P.CredentialID, ConversationHash: hash, Scopes: slices.Clone(auth.TraineeScopes), ExpiresAt: until, CreatedAt: now}); err != nil {
		c.Logger().ErrorContext(c.Ctx, "agent platform: the forward payload could not be stored, so the platform is not told of the verification", "conversationId", conv.ID, "err", err)
		a.brokerAudit(c, conv, brokerVerified, 0, "not_stored")
		return
	}
	name := ""
	if t, err := c.Studio().GetTrainee(c.Ctx, traineeID); err == nil {
		name = t.FirstName
	}
	a.brokerSend(c, conv, u, brokerVerified, authContext{
		Authenticated: true, UserContext: &userContext{ExternalID: traineeID, Name: name},
		ForwardPayload: &token, ForwardAs: ForwardAs, Trust: "verified", ExpiresAt: until.UTC().Format(time.RFC3339),
	})
}

// brokerSignedOut revokes the conversation's forward payloads at once and
// tells the platform in the background: always on sign_out, and when a new
// verification starts only if a live payload was revoked.
func (a *Area) brokerSignedOut(c *lane.Call, conv auth.Conversation, hash []byte, now time.Time, always bool) error {
	n, err := c.DB().Platform().RevokeTokens(c.Ctx, hash, now)
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
	a.brokerSend(c, conv, u, brokerSignedOut, authContext{Authenticated: false})
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

// brokerAudit records one outcome of the callback: the route names the
// event, the status is the platform's last answer (0: none), the resource
// the outcome (accepted, a rejection's reason, a refusal's).
func (a *Area) brokerAudit(c *lane.Call, conv auth.Conversation, event string, status int, outcome string) {
	if a.audit == nil {
		return
	}
	a.audit.Record(domain.AuditEvent{
		ID: ids.New(ids.Audit), StudioID: c.P.StudioID, CredentialID: c.P.CredentialID,
		Method: http.MethodPost, Route: "agent platform auth-context callback (" + event + ")", ResourceID: outcome, Status: status,
		RequestID: c.RequestID(), Source: c.P.Source, Conversation: lane.ConversationOf(auth.WithConversation(context.Background(), conv), c.P),
		At: c.Now().UTC(),
	})
}

// brokerSend POSTs body to u in the background, with the call's callback
// token, retrying 5xx and network failures twice.
func (a *Area) brokerSend(c *lane.Call, conv auth.Conversation, u *url.URL, event string, body authContext) {
	payload, _ := json.Marshal(body)
	// The call's context ends with its answer; the callback outlives it.
	detached := c.Detached()
	started := a.broker.goInOrder(string(conversationHash(c.P.CredentialID, conv)), func(ctx context.Context) {
		status, outcome := a.broker.post(ctx, u.String(), conv.CallbackToken, payload)
		switch outcome {
		case "accepted":
			c.Logger().InfoContext(detached.Ctx, "agent platform: the auth-context callback was accepted", "event", event, "conversationId", conv.ID, "status", status)
		default:
			c.Logger().WarnContext(detached.Ctx, "agent platform: the auth-context callback failed", "event", event, "conversationId", conv.ID, "status", status, "reason", outcome)
		}
		a.brokerAudit(detached, conv, event, status, outcome)
	})
	if !started {
		c.Logger().WarnContext(c.Ctx, "agent platform: shutting down, so the auth-context callback was not sent", "event", event, "conversationId", conv.ID)
		a.brokerAudit(c, conv, event, 0, "shutting_down")
	}
}

// The platform's documented rejections, as its answers name them.
var rejections = []string{"missing_authenticated", "bad_forward_as", "bad_expires_at", "missing_token", "invalid_token"}

// post sends one callback: the status of the last answer and the outcome,
// "accepted" or why not.
func (b *broker) post(ctx context.Context, target, token string, payload []byte) (int, string) {
	wait := b.opts.Backoff
	var status int
	var outcome string
	for try := 1; try <= callbackTries; try++ {
		var retry bool
		status, outcome, retry = b.try(ctx, target, token, payload)
		if !retry || try == callbackTries {
			break
		}
		select {
		case <-ctx.Done():
			return status, "cancelled"
		case <-time.After(wait):
		}
		wait *= 2
	}
	if outcome == "network" && ctx.Err() != nil {
		return status, "cancelled" // shutting down
	}
	if status >= 500 || status == 0 && outcome == "network" {
		outcome = fmt.Sprintf("gave_up_after_%d_tries_%s", callbackTries, outcome)
	}
	return status, outcome
}

// try is one POST: its status, outcome and whether to try again.
func (b *broker) try(ctx context.Context, target, token string, payload []byte) (int, string, bool) {
	ctx, cancel := context.WithTimeout(ctx, callbackTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return 0, refusedBadURL, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		if errors.Is(err, errAddressRefused) {
			return 0, "address_refused", false
		}
		return 0, "network", b.ctx.Err() == nil // a shutdown does not retry
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, maxCallbackReply))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return resp.StatusCode, "accepted", false
	case resp.StatusCode >= 500:
		return resp.StatusCode, "server_error", true
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return resp.StatusCode, "redirect_not_followed", false
	case resp.StatusCode == http.StatusNotFound:
		return resp.StatusCode, "conversation_not_found", false
	}
	return resp.StatusCode, rejectionReason(resp.StatusCode, reply), false
}

// rejectionReason is the documented reason a 4xx answer names (in an
// error, code or reason field, or anywhere in its text), else http_<status>.
func rejectionReason(status int, reply []byte) string {
	var v struct {
		Error  json.RawMessage `json:"error"`
		Code   string          `json:"code"`
		Reason string          `json:"reason"`
	}
	var fields []string
	if json.Unmarshal(reply, &v) == nil {
		var s string
		var obj struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &s) == nil {
			fields = append(fields, s)
		} else if json.Unmarshal(v.Error, &obj) == nil {
			fields = append(fields, obj.Code, obj.Message)
		}
		fields = append(fields, v.Code, v.Reason)
	}
	for _, f := range fields {
		if slices.Contains(rejections, f) {
			return f
		}
	}
	text := string(reply)
	for _, r := range rejections {
		if strings.Contains(text, r) {
			return r
		}
	}
	return "http_" + strconv.Itoa(status)
}

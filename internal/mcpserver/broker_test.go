package mcpserver_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent"
	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/areas/public"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// fakePlatform is an agent platform speaking the Perfox contract: it calls
// /mcp with the conversation's identity headers, a callback URL of its own
// and a callback token valid for an hour that it reissues on every call
// (only the newest is accepted); its auth-context endpoint answers with
// the seed's statuses, and an accepted callback takes effect on the next
// turn: from then on the forward payload is replayed per forward_as until
// its expires_at.
type fakePlatform struct {
	t    *testing.T
	srv  *httptest.Server
	mcp  string
	mu   sync.Mutex
	conv map[string]*fakeConversation
	// answer, when set, answers the next callbacks instead of the contract
	// (a status per callback, then the contract again).
	answer    []int
	callbacks []fakeCallback
	// staleTokens issues callback tokens already past their hour.
	staleTokens bool
	// callbackHost replaces the callback URL's scheme and host, to send one Perform must refuse.
	callbackHost string
}

type fakeConversation struct {
	id, tenant    string
	key           string // the platform key the connection holds
	headers       map[string]string
	token         string               // the newest callback token
	tokens        map[string]time.Time // every token issued, to when it is good
	issued        int
	pending       []map[string]json.RawMessage // accepted callbacks, for the next turn
	authenticated bool
	payload       *string
	forwardAs     string
	expiresAt     time.Time
	// replayed is the forward payload of the current turn ("" none).
	replayed string
}

type fakeCallback struct {
	conversation, authorization string
	body                        map[string]json.RawMessage
	status                      int
	reason                      string
}

func newFakePlatform(t *testing.T) *fakePlatform {
	p := &fakePlatform{t: t, conv: map[string]*fakeConversation{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.authContext))
	t.Cleanup(p.srv.Close)
	return p
}

// newTLSFakePlatform is the fake platform over HTTPS (on 127.0.0.1, so
// reachable only with the loopback test setting); tls trusts its certificate.
func newTLSFakePlatform(t *testing.T) (*fakePlatform, *tls.Config) {
	p := &fakePlatform{t: t, conv: map[string]*fakeConversation{}}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(p.authContext))
	t.Cleanup(p.srv.Close)
	return p, p.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
}

// authContext is POST /conversations/{id}/auth-context.
func (p *fakePlatform) authContext(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/conversations/"), "/auth-context")
	raw, _ := io.ReadAll(r.Body)
	var body map[string]json.RawMessage
	_ = json.Unmarshal(raw, &body)
	rec := fakeCallback{conversation: id, authorization: r.Header.Get("Authorization"), body: body}
	reply := func(status int, reason string) {
		rec.status, rec.reason = status, reason
		p.callbacks = append(p.callbacks, rec)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == http.StatusOK {
			state := "anonymous"
			if string(body["authenticated"]) == "true" {
				state = "authenticated"
			}
			fmt.Fprintf(w, `{"ok":true,"auth_state":%q}`, state)
			return
		}
		fmt.Fprintf(w, `{"ok":false,"error":%q}`, reason)
	}
	if len(p.answer) > 0 {
		status := p.answer[0]
		p.answer = p.answer[1:]
		reply(status, "forced")
		return
	}
	c, ok := p.conv[id]
	token, hasBearer := strings.CutPrefix(rec.authorization, "Bearer ")
	var expires time.Time
	switch {
	case r.Method != http.MethodPost || !ok:
		reply(http.StatusNotFound, "not_found")
	case !hasBearer || token == "":
		reply(http.StatusUnauthorized, "missing_token")
	case c.tokens[token].IsZero() || time.Now().After(c.tokens[token]):
		reply(http.StatusUnauthorized, "invalid_token")
	case string(body["authenticated"]) != "true" && string(body["authenticated"]) != "false":
		reply(http.StatusBadRequest, "missing_authenticated")
	case body["forward_as"] != nil && !validForwardAs(body["forward_as"]):
		reply(http.StatusBadRequest, "bad_forward_as")
	case body["expires_at"] != nil && (json.Unmarshal(body["expires_at"], new(string)) != nil || !parseRFC3339(body["expires_at"], &expires)):
		reply(http.StatusBadRequest, "bad_expires_at")
	default:
		c.pending = append(c.pending, body)
		reply(http.StatusOK, "")
	}
}

func validForwardAs(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	kind, name, ok := strings.Cut(s, ":")
	return ok && name != "" && (kind == "header" || kind == "body" || kind == "query")
}

func parseRFC3339(raw json.RawMessage, t *time.Time) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	v, err := time.Parse(time.RFC3339, s)
	*t = v
	return err == nil
}

// open starts a conversation of the platform's connection holding key.
func (p *fakePlatform) open(id, tenant, key string, headers map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conv[id] = &fakeConversation{id: id, tenant: tenant, key: key, headers: headers, tokens: map[string]time.Time{}}
}

// turn starts a turn of the conversation: the forwarding context is
// assembled once, from the callbacks accepted before it.
func (p *fakePlatform) turn(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.conv[id]
	for _, u := range c.pending {
		c.authenticated = string(u["authenticated"]) == "true"
		if raw, ok := u["forward_payload"]; ok { // omitted keeps it; null clears it
			var s *string
			_ = json.Unmarshal(raw, &s)
			c.payload, c.expiresAt = s, time.Time{}
		}
		if raw, ok := u["forward_as"]; ok {
			_ = json.Unmarshal(raw, &c.forwardAs)
		}
		if raw, ok := u["expires_at"]; ok {
			parseRFC3339(raw, &c.expiresAt)
		}
	}
	c.pending = nil
	c.replayed = ""
	if c.payload != nil && (c.expiresAt.IsZero() || time.Now().Before(c.expiresAt)) {
		c.replayed = *c.payload
	}
}

// headers are one call's headers: identity, a fresh callback token, and
// the forward payload of this turn per forward_as (headers only here).
func (p *fakePlatform) headers(id string) map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.conv[id]
	c.issued++
	c.token = fmt.Sprintf("cbt_%s_%d", id, c.issued)
	c.tokens[c.token] = time.Now().Add(time.Hour)
	if p.staleTokens {
		c.tokens[c.token] = time.Now().Add(-time.Minute)
	}
	base := p.srv.URL
	if p.callbackHost != "" {
		base = p.callbackHost
	}
	h := map[string]string{
		auth.HeaderConversationID: id, auth.HeaderTenantID: c.tenant,
		auth.HeaderAuthCallback:      base + "/conversations/" + id + "/auth-context",
		auth.HeaderAuthCallbackToken: c.token,
	}
	for k, v := range c.headers {
		h[k] = v
	}
	if name, ok := strings.CutPrefix(c.forwardAs, "header:"); ok && c.replayed != "" {
		h[name] = c.replayed
	}
	return h
}

// call is one tools/call of the conversation's current turn.
func (p *fakePlatform) call(id, tool string, args map[string]any) (string, bool) {
	p.t.Helper()
	p.mu.Lock()
	key := p.conv[id].key
	p.mu.Unlock()
	return platformCall{t: p.t, url: p.mcp, key: key, headers: p.headers(id)}.call(tool, args)
}

func (p *fakePlatform) tools(id string) []string {
	p.t.Helper()
	p.mu.Lock()
	key := p.conv[id].key
	p.mu.Unlock()
	return platformCall{t: p.t, url: p.mcp, key: key, headers: p.headers(id)}.tools()
}

// waitCallbacks waits for the n-th callback (they run in the background).
func (p *fakePlatform) waitCallbacks(n int) []fakeCallback {
	p.t.Helper()
	for range 500 {
		p.mu.Lock()
		got := slices.Clone(p.callbacks)
		p.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("the platform got %d callbacks, want %d", len(p.callbacks), n)
	return nil
}

func (p *fakePlatform) replayed(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conv[id].replayed
}

// brokerFixture is Perform with a fake WhatsApp gateway, behind which the
// codes are read, and the lane's log kept.
type brokerFixture struct {
	*mcptest.Fixture
	sms  *fakes.SmartSend
	log  *testkit.Buffer
	sent int
}

func newBrokerFixture(t *testing.T, o mcptest.Options) *brokerFixture {
	sms := fakes.NewSmartSend()
	t.Cleanup(sms.Close)
	log := &testkit.Buffer{}
	o.Codes = agent.NewSmartSend(sms.URL, "test-smartsend-key", nil)
	o.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if o.Broker.Backoff == 0 {
		o.Broker.Backoff = 10 * time.Millisecond
	}
	return &brokerFixture{Fixture: mcptest.NewWith(t, storetest.OpenSQLite(t), o), sms: sms, log: log}
}

// verify runs start_verification and confirm_verification in the
// conversation's current turn; it answers the confirm call's callback token.
func (f *brokerFixture) verify(t *testing.T, p *fakePlatform, id string) string {
	t.Helper()
	if text, failed := p.call(id, toolset.StartVerificationTool, map[string]any{}); failed {
		t.Fatalf("start_verification: %s", text)
	}
	f.sent++
	code, _ := waitCode(t, f.sms, f.sent)
	if text, failed := p.call(id, toolset.ConfirmVerificationTool, map[string]any{"code": code}); failed || !strings.Contains(text, "Verified") {
		t.Fatalf("confirm_verification: %s", text)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conv[id].token
}

// audit is the studio's audit, newest first.
func (f *brokerFixture) audit(t *testing.T, slug string) []domain.AuditEvent {
	t.Helper()
	f.Audit.Flush()
	s, err := f.Store.StudioBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	list, err := f.Store.ListAudit(context.Background(), s.ID, store.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitAudit is the newest event of the conversation whose route has
// route in it, waiting for it: a callback's outcome is recorded after the
// platform answered.
func (f *brokerFixture) waitAudit(t *testing.T, slug, conversation, route string) (domain.AuditEvent, bool) {
	t.Helper()
	for range 250 {
		if e, _, ok := auditOf(f.audit(t, slug), conversation, route); ok {
			return e, true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return domain.AuditEvent{}, false
}

// auditOf is the newest event of the conversation whose route has route in it.
func auditOf(events []domain.AuditEvent, conversation, route string) (domain.AuditEvent, map[string]any, bool) {
	for _, e := range events {
		var c map[string]any
		if json.Unmarshal(e.Conversation, &c) == nil && c["conversationId"] == conversation && strings.Contains(e.Route, route) {
			return e, c, true
		}
	}
	return domain.AuditEvent{}, nil, false
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// The whole broker flow across turns. Turn 1: the conversation is
// anonymous (public tools; a spoofed phone reads nothing), verifies, and
// is the trainee for the rest of the turn without any replay; the
// callback reaches the platform with the newest callback token and the
// seed's body. Turn 2: the platform replays the forward payload and the
// call is the trainee by it (audited verified). The same payload replayed
// by another conversation, another platform key or another studio is
// refused (anonymous, audited why). Turn 3: sign_out tells the platform
// authenticated false, and the payload replayed after it is refused. The
// platform's callback endpoint is HTTPS.
func TestAPlatformBrokerAcrossTurns(t *testing.T) {
	t.Parallel()
	p, tlsConfig := newTLSFakePlatform(t)
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{AllowLoopback: true, TLS: tlsConfig}})
	if !strings.HasPrefix(p.srv.URL, "https://") {
		t.Fatal("the fake platform is not on https")
	}
	p.mcp = f.URL + mcptest.GatedPath
	key := platformKey(t, f.Fixture, f.A.Key)
	p.open("conv_1", "ten_1", key, map[string]string{auth.HeaderChannel: "whatsapp", auth.HeaderEndUserPhone: f.A.Phone})

	p.turn("conv_1")
	if got := p.tools("conv_1"); !slices.Equal(got, toolset.PlatformTools) {
		t.Fatalf("anonymous tools %v", got)
	}
	if text, failed := p.call("conv_1", "get_body_analysis", map[string]any{}); !failed || strings.Contains(text, "81.5") {
		t.Fatalf("a spoofed phone read data: %s", text)
	}
	confirmToken := f.verify(t, p, "conv_1")
	// The rest of the turn: the trainee, before the platform replays anything.
	if text, failed := p.call("conv_1", "get_body_analysis", map[string]any{}); failed || !strings.Contains(text, "81.5") || p.replayed("conv_1") != "" {
		t.Fatalf("the rest of the verifying turn: %s", text)
	}
	cb := p.waitCallbacks(1)[0]
	if cb.status != http.StatusOK || cb.authorization != "Bearer "+confirmToken {
		t.Fatalf("the platform refused the callback: %d %s (authorization %q, the confirm's token %q)", cb.status, cb.reason, cb.authorization, confirmToken)
	}
	var uc struct {
		ExternalID string `json:"external_id"`
		Name       string `json:"name"`
	}
	_ = json.Unmarshal(cb.body["user_context"], &uc)
	payload := str(cb.body["forward_payload"])
	expires, err := time.Parse(time.RFC3339, str(cb.body["expires_at"]))
	if string(cb.body["authenticated"]) != "true" || uc.ExternalID != f.A.TraineeID || uc.Name != "Dana" || !strings.HasPrefix(payload, public.TraineeTokenPrefix) ||
		str(cb.body["forward_as"]) != "header:X-Perform-Trainee-Token" || str(cb.body["trust"]) != "verified" || err != nil ||
		expires.After(time.Now().Add(24*time.Hour)) || expires.Before(time.Now().Add(23*time.Hour)) {
		t.Fatalf("callback body: %v (expires %v)", cb.body, err)
	}
	// Stored hashed, bound to the studio, the trainee and the key.
	tok, err := f.Store.Platform().Token(context.Background(), auth.Hash(payload))
	if err != nil || tok.TraineeID != f.A.TraineeID || bytes.Contains(tok.Hash, []byte(payload)) {
		t.Fatalf("the stored payload: %+v %v", tok, err)
	}

	p.turn("conv_1")
	if p.replayed("conv_1") != payload {
		t.Fatalf("the platform does not replay the payload on the next turn")
	}
	if text, failed := p.call("conv_1", "get_my_plan", map[string]any{}); failed && strings.Contains(text, "verify") {
		t.Fatalf("turn 2 get_my_plan: %s", text)
	}
	if text, failed := p.call("conv_1", "get_body_analysis", map[string]any{}); failed || !strings.Contains(text, "81.5") {
		t.Fatalf("turn 2 with the payload: %s", text)
	}
	if e, c, ok := auditOf(f.audit(t, "aleph"), "conv_1", "body-analysis"); !ok || c["traineeToken"] != auth.TokenVerified || e.Status != 200 {
		t.Fatalf("turn 2's audit: %+v %v", e, c)
	}
	if e, ok := f.waitAudit(t, "aleph", "conv_1", "auth-context callback (verified)"); !ok || e.ResourceID != "accepted" || e.Status != 200 {
		t.Fatalf("the callback's audit: %+v", e)
	}

	// The payload elsewhere: refused, whatever that conversation is.
	replay := func(what, slug, key, conversation, want string) {
		t.Helper()
		h := map[string]string{auth.HeaderConversationID: conversation, auth.HeaderTenantID: "ten_1", auth.HeaderTraineeToken: payload}
		pc := platformCall{t: t, url: p.mcp, key: key, headers: h}
		if got := pc.tools(); !slices.Equal(got, toolset.PlatformTools) {
			t.Errorf("%s lists %v", what, got)
		}
		if text, failed := pc.call(toolset.StudioInfoTool, map[string]any{}); failed {
			t.Errorf("%s: the public tools stop working: %s", what, text)
		}
		if _, c, ok := auditOf(f.audit(t, slug), conversation, "public/studio"); !ok || c["traineeToken"] != want {
			t.Errorf("%s audited %v, want %s", what, c, want)
		}
	}
	replay("another conversation", "aleph", key, "conv_2", auth.TokenAnotherConversation)
	replay("another platform key", "aleph", platformKey(t, f.Fixture, f.A.Key), "conv_1", auth.TokenAnotherKey)
	replay("another studio", "bet", platformKey(t, f.Fixture, f.B.Key), "conv_1", auth.TokenAnotherStudio)
	// A made-up payload in the verified conversation itself: anonymous.
	forged := platformCall{t: t, url: p.mcp, key: key, headers: map[string]string{auth.HeaderConversationID: "conv_1", auth.HeaderTenantID: "ten_1", auth.HeaderTraineeToken: public.TraineeTokenPrefix + strings.Repeat("A", 43)}}
	if got := forged.tools(); !slices.Equal(got, toolset.PlatformTools) {
		t.Errorf("a forged payload lists %v", got)
	}

	// Turn 3: sign out.
	p.turn("conv_1")
	if text, failed := p.call("conv_1", toolset.SignOutTool, map[string]any{}); failed || !strings.Contains(text, "Signed out") {
		t.Fatalf("sign_out: %s", text)
	}
	cb = p.waitCallbacks(2)[1]
	if cb.status != http.StatusOK || string(cb.body["authenticated"]) != "false" || string(cb.body["forward_payload"]) != "null" {
		t.Fatalf("the sign-out callback: %d %v", cb.status, cb.body)
	}
	// Still this turn, the platform still replays it: refused at once.
	if text, failed := p.call("conv_1", "get_body_analysis", map[string]any{}); !failed || strings.Contains(text, "81.5") {
		t.Fatalf("the payload after sign_out: %s", text)
	}
	if _, c, ok := auditOf(f.audit(t, "aleph"), "conv_1", "sign-out"); !ok || c["traineeToken"] != auth.TokenVerified {
		t.Errorf("sign_out's audit: %v", c)
	}
	if e, ok := f.waitAudit(t, "aleph", "conv_1", "auth-context callback (signed out)"); !ok || e.ResourceID != "accepted" {
		t.Errorf("the sign-out callback's audit: %+v", e)
	}
	if text, failed := p.call("conv_1", toolset.StudioInfoTool, map[string]any{}); failed {
		t.Fatal(text)
	}
	if _, c, ok := auditOf(f.audit(t, "aleph"), "conv_1", "public/studio"); !ok || c["traineeToken"] != auth.TokenRevoked {
		t.Errorf("the payload after sign_out audited %v", c)
	}
	p.turn("conv_1")
	if p.replayed("conv_1") != "" {
		t.Errorf("the platform still replays after the sign-out callback")
	}
}

// An expired payload: the lane's clock runs 25 hours behind, so the
// verification it grants (and the payload's expires_at) ended an hour
// ago. The platform stops replaying it; a call that still carries it is
// anonymous and audited expired.
func TestAPlatformBrokerPayloadExpires(t *testing.T) {
	t.Parallel()
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{AllowLoopback: true}, Now: func() time.Time { return time.Now().Add(-25 * time.Hour) }})
	p := newFakePlatform(t)
	p.mcp = f.URL + mcptest.GatedPath
	key := platformKey(t, f.Fixture, f.A.Key)
	p.open("conv_old", "ten_1", key, map[string]string{auth.HeaderEndUserPhone: f.A.Phone})
	p.turn("conv_old")
	f.verify(t, p, "conv_old")
	cb := p.waitCallbacks(1)[0]
	payload := str(cb.body["forward_payload"])
	if cb.status != http.StatusOK || payload == "" {
		t.Fatalf("callback: %d %v", cb.status, cb.body)
	}
	p.turn("conv_old")
	if p.replayed("conv_old") != "" {
		t.Fatal("the platform replays an expired payload")
	}
	stale := platformCall{t: t, url: p.mcp, key: key, headers: map[string]string{auth.HeaderConversationID: "conv_old", auth.HeaderTenantID: "ten_1", auth.HeaderTraineeToken: payload}}
	if got := stale.tools(); !slices.Equal(got, toolset.PlatformTools) {
		t.Fatalf("an expired payload lists %v", got)
	}
	if text, failed := stale.call(toolset.StudioInfoTool, map[string]any{}); failed {
		t.Fatal(text)
	}
	if _, c, ok := auditOf(f.audit(t, "aleph"), "conv_old", "public/studio"); !ok || c["traineeToken"] != auth.TokenExpired {
		t.Fatalf("an expired payload audited %v", c)
	}
	if !strings.Contains(f.log.String(), "verdict=expired") {
		t.Errorf("the gate did not log the expired payload: %s", f.log.String())
	}
}

// Callback URLs Perform will not call: a host not in the setting, and
// plain http to a listed host. The verification itself holds (this
// conversation is the trainee); no payload is issued; the refusal is
// logged and audited with its reason; nothing reaches either host.
func TestAPlatformBrokerRefusesCallbackHosts(t *testing.T) {
	t.Parallel()
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{Hosts: []string{"api.perfox.example"}}})
	p := newFakePlatform(t)
	p.mcp = f.URL + mcptest.GatedPath
	key := platformKey(t, f.Fixture, f.A.Key)
	for conv, c := range map[string]struct{ base, reason string }{
		"conv_evil": {"https://evil.example", "host_not_allowed"},
		"conv_http": {"http://api.perfox.example", "not_https"},
		"conv_loop": {p.srv.URL, "not_https"}, // loopback http without the test setting
	} {
		p.open(conv, "ten_1", key, map[string]string{auth.HeaderEndUserPhone: f.A.Phone})
		p.turn(conv)
		p.callbackHost = c.base
		f.verify(t, p, conv)
		if text, failed := p.call(conv, "get_body_analysis", map[string]any{}); failed || !strings.Contains(text, "81.5") {
			t.Errorf("%s: the verification does not hold: %s", conv, text)
		}
		e, _, ok := auditOf(f.audit(t, "aleph"), conv, "auth-context callback (verified)")
		if !ok || e.ResourceID != c.reason || e.Status != 0 {
			t.Errorf("%s: audited %+v, want %s", conv, e, c.reason)
		}
		if !strings.Contains(f.log.String(), "reason="+c.reason) {
			t.Errorf("%s: not logged: %s", conv, f.log.String())
		}
	}
	if err := f.Areas.CloseWait(); err != nil || len(p.callbacks) != 0 {
		t.Errorf("a refused callback reached the platform: %+v (%v)", p.callbacks, err)
	}
	if n := acceptedCallbacks(t, f); n != 0 {
		t.Errorf("%d callbacks accepted though every one was refused", n)
	}
}

// acceptedCallbacks counts studio A's callbacks the platform accepted.
func acceptedCallbacks(t *testing.T, f *brokerFixture) int {
	t.Helper()
	n := 0
	for _, e := range f.audit(t, "aleph") {
		if strings.Contains(e.Route, "auth-context callback") && e.ResourceID == "accepted" {
			n++
		}
	}
	return n
}

// The platform failing: three 503s are three tries (two retries), then
// Perform gives up, logs and audits it; a 401 invalid_token (a callback
// token past its hour) is not retried and is logged with its reason.
func TestAPlatformBrokerRetriesAndRejections(t *testing.T) {
	t.Parallel()
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{AllowLoopback: true}})
	p := newFakePlatform(t)
	p.mcp = f.URL + mcptest.GatedPath
	key := platformKey(t, f.Fixture, f.A.Key)

	p.open("conv_5xx", "ten_1", key, map[string]string{auth.HeaderEndUserPhone: f.A.Phone})
	p.turn("conv_5xx")
	p.mu.Lock()
	p.answer = []int{503, 503, 503, 503}
	p.mu.Unlock()
	f.verify(t, p, "conv_5xx")
	if _, ok := f.waitAudit(t, "aleph", "conv_5xx", "auth-context callback (verified)"); !ok {
		t.Fatal("the callback's outcome was never audited")
	}
	if got := p.waitCallbacks(3); len(got) != 3 {
		t.Fatalf("%d tries, want 3", len(got))
	}
	e, _, ok := auditOf(f.audit(t, "aleph"), "conv_5xx", "auth-context callback (verified)")
	if !ok || e.Status != 503 || e.ResourceID != "gave_up_after_3_tries_server_error" || !strings.Contains(f.log.String(), "gave_up_after_3_tries_server_error") {
		t.Fatalf("gave up: audited %+v; log %s", e, f.log.String())
	}
	// The conversation is verified all the same.
	if text, failed := p.call("conv_5xx", "get_body_analysis", map[string]any{}); failed || !strings.Contains(text, "81.5") {
		t.Fatalf("after the platform failed: %s", text)
	}

	g := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{AllowLoopback: true}})
	q := newFakePlatform(t)
	q.mcp = g.URL + mcptest.GatedPath
	q.open("conv_401", "ten_1", platformKey(t, g.Fixture, g.A.Key), map[string]string{auth.HeaderEndUserPhone: g.A.Phone})
	q.turn("conv_401")
	q.staleTokens = true
	g.verify(t, q, "conv_401")
	if got := q.waitCallbacks(1); got[0].status != 401 || got[0].reason != "invalid_token" {
		t.Fatalf("callback: %+v", got[0])
	}
	if _, ok := g.waitAudit(t, "aleph", "conv_401", "auth-context callback (verified)"); !ok {
		t.Fatal("the callback's outcome was never audited")
	}
	time.Sleep(100 * time.Millisecond) // ten backoffs: a retry would have come
	q.mu.Lock()
	n := len(q.callbacks)
	q.mu.Unlock()
	if n != 1 {
		t.Fatalf("a 401 was retried: %d callbacks", n)
	}
	e, _, ok = auditOf(g.audit(t, "aleph"), "conv_401", "auth-context callback (verified)")
	if !ok || e.Status != 401 || e.ResourceID != "invalid_token" || !strings.Contains(g.log.String(), "reason=invalid_token") {
		t.Fatalf("invalid_token: audited %+v; log %s", e, g.log.String())
	}
}

// On X-Sa-Channel: phone the answers are shorter: a one-line summary
// first, then the data cut down; the same call from the web answers the
// lane's data as it is. A verified phone conversation's trainee tools
// answer the same way.
func TestAPlatformPhoneAnswersAreShorter(t *testing.T) {
	t.Parallel()
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{AllowLoopback: true}})
	p := newFakePlatform(t)
	p.mcp = f.URL + mcptest.GatedPath
	key := platformKey(t, f.Fixture, f.A.Key)
	contents := func(h map[string]string, tool string) []string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": map[string]any{}}})
		a := post(t, "POST", p.mcp, key, string(b), h)
		var cr struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		if json.Unmarshal(a.Result, &cr) != nil || cr.IsError {
			t.Fatalf("%s: %s", tool, a.Result)
		}
		var out []string
		for _, c := range cr.Content {
			out = append(out, c.Text)
		}
		return out
	}
	web := contents(map[string]string{auth.HeaderChannel: "web", auth.HeaderConversationID: "c_web"}, toolset.StudioInfoTool)
	phone := contents(map[string]string{auth.HeaderChannel: "phone", auth.HeaderConversationID: "c_phone"}, toolset.StudioInfoTool)
	if len(web) != 1 || !strings.Contains(web[0], "howToJoin") {
		t.Fatalf("web: %q", web)
	}
	if len(phone) != 2 || strings.Contains(phone[0], "\n") || !strings.HasPrefix(phone[0], "Studio Aleph offers 2 plans (Gold 300") || !strings.Contains(phone[1], `"plansTotal":2`) || len(phone[1]) >= len(web[0]) {
		t.Fatalf("phone: %q", phone)
	}

	p.open("conv_call", "ten_1", key, map[string]string{auth.HeaderChannel: "phone", auth.HeaderEndUserPhone: f.A.Phone})
	p.turn("conv_call")
	f.verify(t, p, "conv_call")
	out := contents(p.headers("conv_call"), "get_body_analysis")
	if len(out) != 2 || strings.Contains(out[0], "\n") || !strings.Contains(out[1], "81.5") && !strings.Contains(out[0], "81.5") {
		t.Fatalf("a verified phone conversation's trainee tool: %q", out)
	}
}

// A listed host that resolves to a loopback address is refused when the
// connection is dialled (without the test setting): nothing is sent, the
// outcome is audited address_refused.
func TestAPlatformBrokerRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	p := newFakePlatform(t)
	port := p.srv.URL[strings.LastIndex(p.srv.URL, ":")+1:]
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{Hosts: []string{"localhost:" + port}}})
	p.mcp = f.URL + mcptest.GatedPath
	p.callbackHost = "https://localhost:" + port
	p.open("conv_in", "ten_1", platformKey(t, f.Fixture, f.A.Key), map[string]string{auth.HeaderEndUserPhone: f.A.Phone})
	p.turn("conv_in")
	f.verify(t, p, "conv_in")
	e, ok := f.waitAudit(t, "aleph", "conv_in", "auth-context callback (verified)")
	if !ok || e.ResourceID != "address_refused" || len(p.callbacks) != 0 || !strings.Contains(f.log.String(), "address_refused") {
		t.Fatalf("audited %+v, %d callbacks", e, len(p.callbacks))
	}
}

// A new start_verification in a verified conversation ends the earlier
// verification: its payload is revoked and the platform told
// authenticated false; confirming again issues a new payload with its own
// expires_at.
func TestAPlatformBrokerReverifying(t *testing.T) {
	t.Parallel()
	f := newBrokerFixture(t, mcptest.Options{Broker: public.BrokerOptions{AllowLoopback: true}})
	p := newFakePlatform(t)
	p.mcp = f.URL + mcptest.GatedPath
	p.open("conv_re", "ten_1", platformKey(t, f.Fixture, f.A.Key), map[string]string{auth.HeaderEndUserPhone: f.A.Phone})
	p.turn("conv_re")
	f.verify(t, p, "conv_re")
	first := str(p.waitCallbacks(1)[0].body["forward_payload"])
	p.turn("conv_re")
	f.verify(t, p, "conv_re")
	got := p.waitCallbacks(3)
	if string(got[1].body["authenticated"]) != "false" || string(got[2].body["authenticated"]) != "true" || got[2].body["expires_at"] == nil {
		t.Fatalf("callbacks: %v / %v", got[1].body, got[2].body)
	}
	second := str(got[2].body["forward_payload"])
	old, err := f.Store.Platform().Token(context.Background(), auth.Hash(first))
	if err != nil || old.RevokedAt == nil || second == first || second == "" {
		t.Fatalf("the first payload after re-verifying: %+v %v", old, err)
	}
}

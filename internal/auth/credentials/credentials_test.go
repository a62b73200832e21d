package credentials_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// touchCounting is a real store that counts the last-use writes it is asked for.
type touchCounting struct {
	store.Store
	mu      sync.Mutex
	touches []string
}

func (s *touchCounting) TouchAPIKey(ctx context.Context, keyID string, at time.Time) error {
	s.mu.Lock()
	s.touches = append(s.touches, keyID)
	s.mu.Unlock()
	return s.Store.TouchAPIKey(ctx, keyID, at)
}

func (s *touchCounting) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.touches)
}

// fixture is a studio in Europe/London whose week starts on Monday, with a
// studio key and a platform key, on SQLite.
type fixture struct {
	st                     *touchCounting
	studio                 domain.Studio
	studioKey, platformKey string
	studioKeyID, platID    string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{st: &touchCounting{Store: storetest.OpenSQLite(t)}}
	f.studio = domain.Studio{Name: "Auth studio", Slug: "auth-studio", Tier: "pro", Region: "GB",
		Settings: json.RawMessage(`{"timeZone":"Europe/London","weekStartsOn":"monday"}`)}
	if err := f.st.CreateStudio(ctx, &f.studio); err != nil {
		t.Fatal(err)
	}
	newKey := func(kind auth.CredentialKind) (string, string) {
		key := auth.NewKey()
		k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: f.studio.ID, Name: string(kind), Prefix: auth.Display(key), Hash: auth.Hash(key), Kind: string(kind)}
		if err := f.st.CreateAPIKey(ctx, &k); err != nil {
			t.Fatal(err)
		}
		return key, k.ID
	}
	f.studioKey, f.studioKeyID = newKey(auth.KindStudioKey)
	f.platformKey, f.platID = newKey(auth.KindPlatformKey)
	return f
}

func bearer(token string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/automation/validate", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// Every field of a key's principal comes from its studio and its key.
func TestKeyPrincipal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p, err := credentials.New(credentials.Options{Keys: f.st}).Authenticate(context.Background(), bearer(f.studioKey))
	if err != nil {
		t.Fatal(err)
	}
	if p.StudioID != f.studio.ID || p.StudioName != "Auth studio" || p.StudioSlug != "auth-studio" || p.Tier != "pro" || p.Region != "GB" {
		t.Errorf("the studio's fields: %+v", p)
	}
	if p.TimeZone == nil || p.TimeZone.String() != "Europe/London" || p.FirstDay != time.Monday {
		t.Errorf("the studio's calendar: %v, first day %v; want Europe/London from Monday", p.TimeZone, p.FirstDay)
	}
	if p.Kind != auth.KindStudioKey || p.CredentialID != f.studioKeyID || p.Subject != "" || len(p.Scopes) == 0 || p.IsTrainee() {
		t.Errorf("the key's fields: %+v", p)
	}
}

// NewPrincipal is the one place a credential becomes a principal: an OAuth
// grant's carries the person it names.
func TestNewPrincipal(t *testing.T) {
	t.Parallel()
	s := domain.Studio{ID: "std_1", Name: "S", Slug: "s", Region: "IL", Tier: "free"}
	trainee := ids.New(ids.Trainee)
	p := credentials.NewPrincipal(s, credentials.Credential{Kind: auth.KindOAuthGrant, ID: "grt_1", Subject: trainee, Scopes: auth.TraineeScopes})
	if p.StudioID != "std_1" || p.StudioName != "S" || p.StudioSlug != "s" || p.Region != "IL" || p.Tier != "free" ||
		p.Kind != auth.KindOAuthGrant || p.CredentialID != "grt_1" || p.Subject != trainee || !slices.Equal(p.Scopes, auth.TraineeScopes) {
		t.Fatalf("principal %+v", p)
	}
	if p.TimeZone.String() != domain.DefaultTimeZone || p.FirstDay != time.Sunday {
		t.Errorf("a studio without settings: %v from %v; want %s from Sunday", p.TimeZone, p.FirstDay, domain.DefaultTimeZone)
	}
	if !p.IsTrainee() {
		t.Error("a trainee's grant is not a trainee")
	}
	coach := credentials.NewPrincipal(s, credentials.Credential{Kind: auth.KindOAuthGrant, ID: "grt_2", Subject: ids.New(ids.Coach)})
	if coach.IsTrainee() || (&auth.Principal{Subject: "trn_"}).IsTrainee() {
		t.Error("a coach, or a bare prefix, is a trainee")
	}
	as := coach.AsTrainee(trainee)
	if !as.IsTrainee() || as.CredentialID != "grt_2" || !slices.Equal(as.Scopes, auth.TraineeScopes) || coach.IsTrainee() {
		t.Errorf("AsTrainee: %+v (from %+v)", as, coach)
	}
	as.Scopes[0] = "changed"
	if auth.TraineeScopes[0] == "changed" {
		t.Fatal("AsTrainee shares the trainee scopes")
	}
}

// The throttle lets a credential's use be written once per window, each
// credential on its own.
func TestThrottle(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	th := credentials.NewThrottle(time.Minute, clock.Now)
	if at, due := th.Due("key_a"); !due || !at.Equal(start) {
		t.Fatalf("first use: %v %v; want due at %v", at, due, start)
	}
	if _, due := th.Due("key_b"); !due {
		t.Fatal("another credential's first use is not due")
	}
	clock.Advance(59 * time.Second)
	if _, due := th.Due("key_a"); due {
		t.Fatal("due again within the window")
	}
	clock.Advance(time.Second)
	if at, due := th.Due("key_a"); !due || !at.Equal(start.Add(time.Minute)) {
		t.Fatalf("a window later: %v %v; want due", at, due)
	}
}

// A key used twice within its window writes its last use once; a window
// later it writes it again, at the clock's time.
func TestKeyUsedTwiceWithinWindowWritesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	a := credentials.New(credentials.Options{Keys: f.st, Now: clock.Now})
	lastUsed := func() time.Time {
		k, err := f.st.FindAPIKey(context.Background(), f.studio.ID, f.studioKeyID)
		if err != nil || k.LastUsedAt == nil {
			t.Fatalf("key %+v %v", k, err)
		}
		return k.LastUsedAt.UTC()
	}
	for range 2 {
		if _, err := a.Authenticate(context.Background(), bearer(f.studioKey)); err != nil {
			t.Fatal(err)
		}
		clock.Advance(20 * time.Second)
	}
	if n := f.st.count(); n != 1 {
		t.Fatalf("two uses within the window wrote the last use %d times; want once", n)
	}
	if got := lastUsed(); !got.Equal(start) {
		t.Fatalf("lastUsedAt %v, want %v", got, start)
	}
	clock.Advance(20 * time.Second)
	if _, err := a.Authenticate(context.Background(), bearer(f.studioKey)); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); f.st.count() != 2 || !got.Equal(start.Add(time.Minute)) {
		t.Fatalf("a window later: %d writes, lastUsedAt %v; want 2, %v", f.st.count(), got, start.Add(time.Minute))
	}
}

// grants is an authorization server's grants as auth sees them: one live
// access token, and the last uses it is asked to record.
type grants struct {
	token   string
	studio  domain.Studio
	cred    credentials.Credential
	mu      sync.Mutex
	touches []string
}

func (g *grants) AccessGrant(_ context.Context, token string) (credentials.Credential, domain.Studio, error) {
	if token != g.token {
		return credentials.Credential{}, domain.Studio{}, &auth.Refusal{Message: "not valid"}
	}
	return g.cred, g.studio, nil
}

func (g *grants) TouchGrant(_ context.Context, id string, _ time.Time) error {
	g.mu.Lock()
	g.touches = append(g.touches, id)
	g.mu.Unlock()
	return nil
}

// An access token is the grant's principal, its use recorded through the
// same throttle as keys'; keys still answer beside it.
func TestAccessTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	trainee := ids.New(ids.Trainee)
	g := &grants{token: auth.AccessTokenPrefix + "live", studio: f.studio,
		cred: credentials.Credential{Kind: auth.KindOAuthGrant, ID: "grt_1", Subject: trainee, Scopes: auth.TraineeScopes}}
	clock := testkit.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	keysOnly := credentials.New(credentials.Options{Keys: f.st, Now: clock.Now})
	a := credentials.WithGrants(keysOnly, g)
	for range 2 {
		p, err := a.Authenticate(context.Background(), bearer(g.token))
		if err != nil || p.Kind != auth.KindOAuthGrant || p.CredentialID != "grt_1" || !p.IsTrainee() || p.StudioSlug != "auth-studio" || p.FirstDay != time.Monday {
			t.Fatalf("an access token: %+v %v", p, err)
		}
	}
	if len(g.touches) != 1 {
		t.Fatalf("two uses of a grant within the window wrote its last use %d times; want once", len(g.touches))
	}
	var refusal *auth.Refusal
	if _, err := a.Authenticate(context.Background(), bearer(auth.AccessTokenPrefix+"dead")); !errors.As(err, &refusal) || refusal.Message != "not valid" {
		t.Fatalf("an unknown access token: %v; want the grants' refusal", err)
	}
	if _, err := keysOnly.Authenticate(context.Background(), bearer(g.token)); !errors.As(err, &refusal) || refusal.Message != credentials.InvalidKeyMessage {
		t.Fatalf("an access token without grants: %v; want the unknown key's refusal", err)
	}
	if p, err := a.Authenticate(context.Background(), bearer(f.studioKey)); err != nil || p.CredentialID != f.studioKeyID {
		t.Fatalf("a key beside the grants: %+v %v", p, err)
	}
	// The same authenticator: a key's use recorded through one is not
	// recorded again through the other within the window.
	if _, err := keysOnly.Authenticate(context.Background(), bearer(f.studioKey)); err != nil || f.st.count() != 1 {
		t.Fatalf("the key's use was written %d times through both; want once (%v)", f.st.count(), err)
	}
}

// authFunc is an auth.Authenticator of another make than credentials.Authenticator.
type authFunc func(*http.Request) (*auth.Principal, error)

func (f authFunc) Authenticate(_ context.Context, r *http.Request) (*auth.Principal, error) {
	return f(r)
}

// Grants beside an authenticator of another make answer the access tokens
// only: every other credential is still that authenticator's.
func TestGrantsBesideAnotherAuthenticator(t *testing.T) {
	t.Parallel()
	g := &grants{token: auth.AccessTokenPrefix + "live", studio: domain.Studio{ID: "std_1"},
		cred: credentials.Credential{Kind: auth.KindOAuthGrant, ID: "grt_1"}}
	other := authFunc(func(*http.Request) (*auth.Principal, error) { return &auth.Principal{CredentialID: "other"}, nil })
	a := credentials.WithGrants(other, g)
	if p, err := a.Authenticate(context.Background(), bearer(g.token)); err != nil || p.CredentialID != "grt_1" || p.StudioID != "std_1" {
		t.Fatalf("an access token: %+v %v; want the grant's principal", p, err)
	}
	for _, token := range []string{auth.NewKey(), ""} {
		if p, err := a.Authenticate(context.Background(), bearer(token)); err != nil || p.CredentialID != "other" {
			t.Fatalf("%q: %+v %v; want the other authenticator's answer", token, p, err)
		}
	}
}

// conversations says the conversation of every call was verified as one trainee.
type conversations struct {
	trainee string
	asked   int
}

func (c *conversations) VerifiedTrainee(_ context.Context, keyID, studioID string) (string, bool) {
	c.asked++
	return c.trainee, c.trainee != ""
}

// A platform key in a verified conversation is its trainee; a studio key is
// never asked about conversations.
func TestPlatformConversations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	conv := &conversations{trainee: ids.New(ids.Trainee)}
	a := credentials.New(credentials.Options{Keys: f.st, Conversations: conv})
	p, err := a.Authenticate(context.Background(), bearer(f.platformKey))
	if err != nil || p.Kind != auth.KindPlatformKey || p.CredentialID != f.platID || p.Subject != conv.trainee || !slices.Equal(p.Scopes, auth.TraineeScopes) {
		t.Fatalf("a verified conversation: %+v %v", p, err)
	}
	conv.trainee = ""
	if p, err := a.Authenticate(context.Background(), bearer(f.platformKey)); err != nil || p.Subject != "" || p.IsTrainee() {
		t.Fatalf("a conversation not verified: %+v %v", p, err)
	}
	if p, err := a.Authenticate(context.Background(), bearer(f.studioKey)); err != nil || p.Subject != "" || conv.asked != 2 {
		t.Fatalf("a studio key: %+v %v, conversations asked %d times; want 2", p, err, conv.asked)
	}
}

// Missing, malformed, unknown and revoked keys are refused; a revoked
// key's refusal carries its principal (for the audit) and records no use.
func TestKeyRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := credentials.New(credentials.Options{Keys: f.st})
	var refusal *auth.Refusal
	if _, err := a.Authenticate(context.Background(), bearer("")); !errors.As(err, &refusal) || !refusal.Missing {
		t.Fatalf("no credential: %v; want a refusal saying it is missing", err)
	}
	for _, token := range []string{"pf_live_short", auth.NewKey()} {
		if p, err := a.Authenticate(context.Background(), bearer(token)); p != nil || !errors.As(err, &refusal) || refusal.Message != credentials.InvalidKeyMessage {
			t.Fatalf("%s: %+v %v; want the unknown key's refusal", token, p, err)
		}
	}
	if _, err := a.Authenticate(context.Background(), bearer(f.studioKey)); err != nil {
		t.Fatal(err)
	}
	if err := f.st.RevokeAPIKey(context.Background(), f.studioKeyID, time.Now()); err != nil {
		t.Fatal(err)
	}
	before := f.st.count()
	p, err := a.Authenticate(context.Background(), bearer(f.studioKey))
	if !errors.As(err, &refusal) || p == nil || p.StudioID != f.studio.ID || refusal.Missing {
		t.Fatalf("a revoked key (kept before): %+v %v; want its principal and a refusal", p, err)
	}
	if f.st.count() != before {
		t.Fatal("a revoked key's use was recorded")
	}
}

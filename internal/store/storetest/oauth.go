package storetest

import (
	"crypto/rand"
	"errors"
	"github.com/otherwise/perform/internal/domain"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// The authorization server's state (store.OAuthStore). Its rows are found
// by hash, across studios, so each test makes clients and hashes of its own.

func testOAuth(t *testing.T, st store.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"Clients", testOAuthClients},
		{"CodeOnce", testOAuthCodeOnce},
		{"TokensAndRevocation", testOAuthTokens},
		{"Consent", testOAuthConsent},
		{"DeleteExpired", testOAuthDeleteExpired},
		{"DeleteUnusedClients", testOAuthDeleteUnusedClients},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

func randomHash() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}

var oauthClock = time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)

func newOAuthClient(t *testing.T, st store.Store) store.OAuthClient {
	t.Helper()
	c := store.OAuthClient{ID: ids.New(ids.OAuthClient), Name: "App", Source: store.ClientFromRegistered, RedirectURIs: []string{"https://app.example/cb"}, AuthMethod: "client_secret_basic", SecretHash: randomHash()}
	must(t, "CreateOAuthClient", st.OAuth().CreateOAuthClient(ctx, &c))
	return c
}

func testOAuthClients(t *testing.T, st store.Store) {
	o := st.OAuth()
	c := newOAuthClient(t, st)
	got, err := o.OAuthClient(ctx, c.ID)
	must(t, "OAuthClient", err)
	if got.Name != "App" || !slices.Equal(got.RedirectURIs, c.RedirectURIs) || !slices.Equal(got.SecretHash, c.SecretHash) || got.AuthMethod != "client_secret_basic" || got.ExpiresAt != nil {
		t.Fatalf("client read back as %+v", got)
	}
	mustConflict(t, "a second client with the id", o.CreateOAuthClient(ctx, &store.OAuthClient{ID: c.ID, Name: "x", Source: "cli", RedirectURIs: []string{"https://x/cb"}, AuthMethod: "none"}), c.ID)
	_, err = o.OAuthClient(ctx, "ocl_missing")
	mustNotFound(t, "an unknown client", err)

	// A metadata document's cached copy is replaced when refetched.
	url := "https://app.example/" + randomHex(4) + "/client.json"
	exp := oauthClock.Add(time.Hour)
	m := store.OAuthClient{ID: url, Name: "Doc", Source: store.ClientFromMetadata, RedirectURIs: []string{"http://127.0.0.1/cb"}, AuthMethod: "none", ExpiresAt: &exp}
	must(t, "PutOAuthClient", o.PutOAuthClient(ctx, &m))
	m.Name, m.RedirectURIs = "Doc 2", []string{"http://127.0.0.1/cb2"}
	must(t, "PutOAuthClient again", o.PutOAuthClient(ctx, &m))
	got, err = o.OAuthClient(ctx, url)
	must(t, "OAuthClient (metadata)", err)
	if got.Name != "Doc 2" || got.RedirectURIs[0] != "http://127.0.0.1/cb2" || got.SecretHash != nil || got.ExpiresAt == nil || !sameTime(*got.ExpiresAt, exp) {
		t.Fatalf("metadata client read back as %+v", got)
	}
}

func newCode(t *testing.T, st store.Store, c store.OAuthClient, studioID string) store.OAuthCode {
	t.Helper()
	code := store.OAuthCode{Hash: randomHash(), ClientID: c.ID, StudioID: studioID, Subject: ids.New(ids.Coach), Scopes: []string{"studio:read", "studio:write"},
		RedirectURI: c.RedirectURIs[0], CodeChallenge: "challenge", Resource: "https://p.example/mcp", CreatedAt: oauthClock, ExpiresAt: oauthClock.Add(10 * time.Minute)}
	must(t, "CreateOAuthCode", st.OAuth().CreateOAuthCode(ctx, &code))
	return code
}

func testOAuthCodeOnce(t *testing.T, st store.Store) {
	o := st.OAuth()
	studio := newStudio(t, st)
	c := newOAuthClient(t, st)
	code := newCode(t, st, c, studio.ID)
	_, err := o.UseOAuthCode(ctx, randomHash(), oauthClock)
	mustNotFound(t, "an unknown code", err)

	// Of concurrent uses exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, used := 0, 0
	for range 4 {
		wg.Go(func() {
			got, err := o.UseOAuthCode(ctx, code.Hash, oauthClock)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
				if got.Subject != code.Subject || !slices.Equal(got.Scopes, code.Scopes) || got.RedirectURI != code.RedirectURI || got.CodeChallenge != "challenge" || !sameTime(got.ExpiresAt, code.ExpiresAt) {
					t.Errorf("the code read back as %+v", got)
				}
			case errors.Is(err, store.ErrCodeUsed):
				used++
			default:
				t.Errorf("UseOAuthCode: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 || used != 3 {
		t.Fatalf("concurrent uses: %d won, %d found it used; want 1 and 3", wins, used)
	}
	g := store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studio.ID, Subject: code.Subject, ClientID: c.ID, Scopes: code.Scopes, Resource: code.Resource, CreatedAt: oauthClock}
	must(t, "CreateOAuthGrant", o.CreateOAuthGrant(ctx, &g, code.Hash, nil))
	again, err := o.UseOAuthCode(ctx, code.Hash, oauthClock.Add(time.Second))
	if !errors.Is(err, store.ErrCodeUsed) || again.GrantID != g.ID || again.UsedAt == nil || !sameTime(*again.UsedAt, oauthClock) {
		t.Fatalf("a second use: %+v, %v; want ErrCodeUsed naming grant %s, used at the first use", again, err, g.ID)
	}
}

func testOAuthTokens(t *testing.T, st store.Store) {
	o := st.OAuth()
	studio := newStudio(t, st)
	c := newOAuthClient(t, st)
	trainee := newTrainee(t, st.Studio(studio.ID), "Grant", "Holder")
	subject := trainee.ID
	g := store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studio.ID, Subject: subject, ClientID: c.ID, Scopes: []string{"profile:read", "health:read"}, Resource: "https://p.example/mcp", CreatedAt: oauthClock}
	exp := oauthClock.Add(time.Hour)
	access, refresh := randomHash(), randomHash()
	must(t, "CreateOAuthGrant", o.CreateOAuthGrant(ctx, &g, nil, []store.OAuthToken{
		{Hash: access, GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: oauthClock, ExpiresAt: &exp},
		{Hash: refresh, GrantID: g.ID, Kind: store.TokenRefresh, CreatedAt: oauthClock},
	}))
	tok, grant, st2, err := o.OAuthToken(ctx, access)
	must(t, "OAuthToken", err)
	if tok.Kind != store.TokenAccess || tok.GrantID != g.ID || tok.ExpiresAt == nil || !sameTime(*tok.ExpiresAt, exp) ||
		grant.Subject != subject || !slices.Equal(grant.Scopes, g.Scopes) || grant.RevokedAt != nil || st2.ID != studio.ID || st2.Slug != studio.Slug {
		t.Fatalf("token %+v, grant %+v, studio %+v", tok, grant, st2)
	}
	must(t, "AddOAuthTokens to an unknown grant is refused", func() error {
		err := o.AddOAuthTokens(ctx, []store.OAuthToken{{Hash: randomHash(), GrantID: "ogr_missing", Kind: store.TokenAccess}})
		if !errors.Is(err, store.ErrNotFound) {
			return errors.New("not ErrNotFound: " + errString(err))
		}
		return nil
	}())

	// Rotation keeps the first time.
	first, err := o.RotateOAuthToken(ctx, refresh, oauthClock.Add(time.Minute))
	must(t, "RotateOAuthToken", err)
	second, err := o.RotateOAuthToken(ctx, refresh, oauthClock.Add(2*time.Minute))
	must(t, "RotateOAuthToken again", err)
	if !sameTime(first, oauthClock.Add(time.Minute)) || !sameTime(second, first) {
		t.Fatalf("rotations at %v then %v; want both the first", first, second)
	}

	must(t, "TouchOAuthGrant", o.TouchOAuthGrant(ctx, g.ID, oauthClock.Add(time.Minute)))
	list, err := o.PersonOAuthGrants(ctx, studio.ID, subject)
	must(t, "PersonOAuthGrants", err)
	if len(list) != 1 || list[0].ClientName != "App" || list[0].LastUsedAt == nil || !sameTime(*list[0].LastUsedAt, oauthClock.Add(time.Minute)) {
		t.Fatalf("the person's grants: %+v", list)
	}
	if other, _ := o.PersonOAuthGrants(ctx, newStudio(t, st).ID, subject); len(other) != 0 {
		t.Fatalf("another studio lists the grant: %+v", other)
	}

	// A grant works while its person could sign in: an archived trainee's
	// tokens are refused, and work again when the trainee is back.
	trainee.Status = domain.TraineeArchived
	must(t, "UpdateTrainee archived", st.Studio(studio.ID).UpdateTrainee(ctx, &trainee))
	_, _, _, err = o.OAuthToken(ctx, access)
	mustNotFound(t, "the token of an archived trainee", err)
	trainee.Status = domain.TraineeActive
	must(t, "UpdateTrainee active", st.Studio(studio.ID).UpdateTrainee(ctx, &trainee))
	_, _, _, err = o.OAuthToken(ctx, access)
	must(t, "the token of a trainee made active again", err)

	must(t, "RevokeOAuthGrant", o.RevokeOAuthGrant(ctx, g.ID, oauthClock.Add(3*time.Minute)))
	must(t, "RevokeOAuthGrant again", o.RevokeOAuthGrant(ctx, g.ID, oauthClock.Add(4*time.Minute)))
	for _, h := range [][]byte{access, refresh} {
		_, _, _, err := o.OAuthToken(ctx, h)
		mustNotFound(t, "a token of a revoked grant", err)
	}
	got, err := o.OAuthGrant(ctx, g.ID)
	must(t, "OAuthGrant", err)
	if got.RevokedAt == nil || !sameTime(*got.RevokedAt, oauthClock.Add(3*time.Minute)) {
		t.Fatalf("revoked at %v; want the first revocation", got.RevokedAt)
	}
	if list, _ := o.PersonOAuthGrants(ctx, studio.ID, subject); len(list) != 0 {
		t.Fatalf("a revoked grant is still listed: %+v", list)
	}
	mustNotFound(t, "revoking an unknown grant", o.RevokeOAuthGrant(ctx, "ogr_missing", oauthClock))
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

func testOAuthConsent(t *testing.T, st store.Store) {
	o := st.OAuth()
	studio := newStudio(t, st)
	c := newOAuthClient(t, st)
	subject := ids.New(ids.Coach)
	_, err := o.OAuthConsent(ctx, studio.ID, subject, c.ID)
	mustNotFound(t, "no consent yet", err)
	must(t, "PutOAuthConsent", o.PutOAuthConsent(ctx, studio.ID, subject, c.ID, []string{"studio:read"}, oauthClock))
	must(t, "PutOAuthConsent wider", o.PutOAuthConsent(ctx, studio.ID, subject, c.ID, []string{"studio:read", "studio:write"}, oauthClock))
	got, err := o.OAuthConsent(ctx, studio.ID, subject, c.ID)
	if err != nil || !slices.Equal(got, []string{"studio:read", "studio:write"}) {
		t.Fatalf("consent: %v, %v", got, err)
	}
	must(t, "DeleteOAuthConsent", o.DeleteOAuthConsent(ctx, studio.ID, subject, c.ID))
	_, err = o.OAuthConsent(ctx, studio.ID, subject, c.ID)
	mustNotFound(t, "a deleted consent", err)
}

func testOAuthDeleteExpired(t *testing.T, st store.Store) {
	o := st.OAuth()
	studio := newStudio(t, st)
	c := newOAuthClient(t, st)
	code := newCode(t, st, c, studio.ID) // expires at oauthClock+10m
	coach := domain.Coach{Name: "Grant Coach", Active: true}
	must(t, "CreateCoach", st.Studio(studio.ID).CreateCoach(ctx, &coach))
	g := store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studio.ID, Subject: coach.ID, ClientID: c.ID, Scopes: []string{"studio:read"}, Resource: "r", CreatedAt: oauthClock}
	soon, later := oauthClock.Add(time.Hour), oauthClock.Add(48*time.Hour)
	old, fresh := randomHash(), randomHash()
	must(t, "CreateOAuthGrant", o.CreateOAuthGrant(ctx, &g, nil, []store.OAuthToken{
		{Hash: old, GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: oauthClock, ExpiresAt: &soon},
		{Hash: fresh, GrantID: g.ID, Kind: store.TokenRefresh, CreatedAt: oauthClock, ExpiresAt: &later},
	}))
	n, err := o.DeleteExpiredOAuth(ctx, oauthClock.Add(2*time.Hour))
	must(t, "DeleteExpiredOAuth", err)
	if n < 2 {
		t.Fatalf("deleted %d rows; want at least the code and the access token", n)
	}
	_, err = o.UseOAuthCode(ctx, code.Hash, oauthClock)
	mustNotFound(t, "an expired code after the sweep", err)
	_, _, _, err = o.OAuthToken(ctx, old)
	mustNotFound(t, "an expired token after the sweep", err)
	_, _, _, err = o.OAuthToken(ctx, fresh)
	must(t, "a live token survives the sweep", err)
	coach.Active = false
	must(t, "UpdateCoach inactive", st.Studio(studio.ID).UpdateCoach(ctx, &coach))
	_, _, _, err = o.OAuthToken(ctx, fresh)
	mustNotFound(t, "the token of a coach made inactive", err)
}

// testOAuthDeleteUnusedClients: registered clients no grant or code names
// go once registered before the cut, metadata documents once their cache
// expired before it; command-line clients and clients in use stay. The
// times are long past, so no other test's client is in reach.
func testOAuthDeleteUnusedClients(t *testing.T, st store.Store) {
	o := st.OAuth()
	cut := time.Date(2001, 1, 2, 0, 0, 0, 0, time.UTC)
	before, after := cut.Add(-time.Hour), cut.Add(time.Hour)
	client := func(source string, created time.Time, expires *time.Time) store.OAuthClient {
		c := store.OAuthClient{ID: ids.New(ids.OAuthClient), Name: "App", Source: source, RedirectURIs: []string{"https://app.example/cb"}, AuthMethod: "none", CreatedAt: created, ExpiresAt: expires}
		must(t, "CreateOAuthClient", o.CreateOAuthClient(ctx, &c))
		return c
	}
	unused := client(store.ClientFromRegistered, before, nil)
	granted := client(store.ClientFromRegistered, before, nil)
	coded := client(store.ClientFromRegistered, before, nil)
	recent := client(store.ClientFromRegistered, after, nil)
	cli := client(store.ClientFromCLI, before, nil)
	staleDoc := client(store.ClientFromMetadata, before.Add(-time.Hour), &before)
	freshDoc := client(store.ClientFromMetadata, before, &after)

	studio := newStudio(t, st)
	coach := domain.Coach{Name: "Unused Coach", Active: true}
	must(t, "CreateCoach", st.Studio(studio.ID).CreateCoach(ctx, &coach))
	g := store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studio.ID, Subject: coach.ID, ClientID: granted.ID, Scopes: []string{"profile"}, Resource: "r", CreatedAt: before}
	must(t, "CreateOAuthGrant", o.CreateOAuthGrant(ctx, &g, nil, nil))
	newCode(t, st, coded, studio.ID)

	n, err := o.DeleteUnusedOAuthClients(ctx, cut)
	must(t, "DeleteUnusedOAuthClients", err)
	if n != 2 {
		t.Fatalf("deleted %d clients; want 2 (the unused registered one and the stale document)", n)
	}
	for _, c := range []store.OAuthClient{unused, staleDoc} {
		_, err := o.OAuthClient(ctx, c.ID)
		mustNotFound(t, "an unused "+c.Source+" client after the sweep", err)
	}
	for _, c := range []store.OAuthClient{granted, coded, recent, cli, freshDoc} {
		_, err := o.OAuthClient(ctx, c.ID)
		must(t, "a "+c.Source+" client that stays", err)
	}
}

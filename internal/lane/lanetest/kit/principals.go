package kit

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/store"
)

// SpeakingFor is the in-process transport rt of a caller that speaks for
// one coach with the studio key (the WhatsApp assistant).
func SpeakingFor(rt http.RoundTripper, coachID string) http.RoundTripper {
	return speakingFor{rt: rt, coachID: coachID}
}

type speakingFor struct {
	rt      http.RoundTripper
	coachID string
}

func (s speakingFor) RoundTrip(r *http.Request) (*http.Response, error) {
	return s.rt.RoundTrip(r.WithContext(auth.WithCoach(r.Context(), s.coachID)))
}

// KeyWith mints a key holding scopes for studioID.
func (e *Env) KeyWith(studioID string, scopes ...string) string {
	e.T.Helper()
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: studioID, Name: strings.Join(scopes, "+"), Prefix: auth.Display(key), Hash: auth.Hash(key), Scopes: scopes}
	if err := e.St.CreateAPIKey(context.Background(), &k); err != nil {
		e.T.Fatalf("create key: %v", err)
	}
	return key
}

// Grant connects subject (a trainee or coach id of the studio) with scopes
// and returns the access token, as the token endpoint would hand it out.
func (e *Env) Grant(studioID, subject string, scopes ...string) string {
	e.T.Helper()
	ctx := context.Background()
	now := time.Now()
	c, _, err := oauth.AddClient(ctx, e.St, now, store.ClientFromCLI, "Test app", []string{"http://127.0.0.1/cb"}, "none")
	if err != nil {
		e.T.Fatal(err)
	}
	g := &store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studioID, Subject: subject, ClientID: c.ID, Scopes: scopes, Resource: "http://127.0.0.1/mcp"}
	token := auth.AccessTokenPrefix + strings.TrimPrefix(ids.New(ids.Request), "req_") + strings.TrimPrefix(ids.New(ids.Request), "req_")
	h := sha256.Sum256([]byte(token))
	exp := now.Add(time.Hour)
	if err := e.St.OAuth().CreateOAuthGrant(ctx, g, nil, []store.OAuthToken{{Hash: h[:], GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: now, ExpiresAt: &exp}}); err != nil {
		e.T.Fatal(err)
	}
	return token
}

// TraineeToken is a grant of f's trainee with every trainee scope.
func (e *Env) TraineeToken(f Fixture) string {
	return e.Grant(f.Studio.ID, f.Trainee.ID, auth.TraineeScopes...)
}

// OtherRecords are the ids of SecondTrainee's trainee and records.
type OtherRecords struct {
	Trainee, Session, Goal, Benchmark, Program string
}

// SecondTrainee adds another trainee to f's studio with a session, a goal,
// a benchmark and a program of their own.
func (e *Env) SecondTrainee(f Fixture) OtherRecords {
	e.T.Helper()
	k := f.Key
	var o OtherRecords
	var tr struct{ ID string }
	e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "Other", "phone": "050-765-4321"})).Into(e.T, &tr)
	o.Trainee = tr.ID
	tp := "/trainees/" + o.Trainee
	var rec struct{ ID string }
	e.OK(201, e.Call(k, "POST", tp+"/sessions", map[string]any{"date": Today(), "sport": "run", "title": "Easy run"})).Into(e.T, &rec)
	o.Session = rec.ID
	e.OK(201, e.Call(k, "POST", tp+"/goals", map[string]any{"title": "Run 4 times a week", "kind": "consistency", "targetValue": 4})).Into(e.T, &rec)
	o.Goal = rec.ID
	var bm struct {
		Benchmark struct{ ID string } `json:"benchmark"`
	}
	e.OK(201, e.Call(k, "POST", tp+"/benchmarks", map[string]any{"name": "5 km", "unit": "s", "direction": "lower", "value": 1500})).Into(e.T, &bm)
	o.Benchmark = bm.Benchmark.ID
	e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Template.ID})).Into(e.T, &rec)
	o.Program = rec.ID
	return o
}

// OtherKey mints a second key, so revoking one leaves the test's own.
func (e *Env) OtherKey(f Fixture) string {
	_, id := e.NewKey(f.Studio.ID, "other")
	return id
}

// PlatformKey is a new agent platform key of the studio whose key is
// studioKey, minted as the studio's app mints one (POST /keys, on a lane
// with the studio's routes): it reads only the public offer.
func (e *Env) PlatformKey(studioKey string) string {
	e.T.Helper()
	var created struct {
		Key string `json:"key"`
	}
	e.OK(201, e.Call(studioKey, "POST", "/keys", map[string]any{"name": "Agent platform", "kind": "platform"})).Into(e.T, &created)
	return created.Key
}

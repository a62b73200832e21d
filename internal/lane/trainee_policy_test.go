package lane_test

import (
	"context"
	"crypto/sha256"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/areas/weekplans"
	"github.com/otherwise/perform/internal/audit"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// traineeEnvOptions are the person limits of a lane that admits OAuth grants.
type traineeEnvOptions struct {
	reads, writes ratelimit.Limiter
	now           func() time.Time // the lane's clock; nil: time.Now
	weekPlans     weekplans.Options
	limits        map[string]ratelimit.Limiter // the areas' declared limits (lane.Options.Limits)
	// areas, when set, is handed the areas before the lane serves them
	// (to give the weekly plans their River client).
	areas func(*areas.Set)
}

// newTraineeEnv is a lane that takes OAuth access tokens beside studio keys,
// as the server composes it.
func newTraineeEnv(t *testing.T, st store.Store, o traineeEnvOptions) *env {
	t.Helper()
	aw := audit.NewWriter(st, audit.Options{})
	authn := credentials.New(credentials.Options{Keys: st, Grants: oauth.New(oauth.Options{Store: st})})
	set := areas.New(areas.Options{WeekPlans: o.weekPlans})
	if o.areas != nil {
		o.areas(set)
	}
	l := areas.Lane(lane.Options{Store: st, Audit: aw, Authenticator: authn, TraineeReads: o.reads, TraineeWrites: o.writes, Now: o.now,
		Areas: set.Areas(), Limits: o.limits})
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		srv.Close()
		aw.Close()
	})
	return &env{t: t, st: st, lane: l, srv: srv, audit: aw}
}

// grant connects subject (a trainee or coach id of the studio) with scopes
// and returns the access token, as the token endpoint would hand it out.
func (e *env) grant(studioID, subject string, scopes ...string) string {
	e.t.Helper()
	ctx := context.Background()
	now := time.Now()
	c, _, err := oauth.AddClient(ctx, e.st, now, store.ClientFromCLI, "Test app", []string{"http://127.0.0.1/cb"}, "none")
	if err != nil {
		e.t.Fatal(err)
	}
	g := &store.OAuthGrant{ID: ids.New(ids.OAuthGrant), StudioID: studioID, Subject: subject, ClientID: c.ID, Scopes: scopes, Resource: "http://127.0.0.1/mcp"}
	token := auth.AccessTokenPrefix + strings.TrimPrefix(ids.New(ids.Request), "req_") + strings.TrimPrefix(ids.New(ids.Request), "req_")
	h := sha256.Sum256([]byte(token))
	exp := now.Add(time.Hour)
	if err := e.st.OAuth().CreateOAuthGrant(ctx, g, nil, []store.OAuthToken{{Hash: h[:], GrantID: g.ID, Kind: store.TokenAccess, CreatedAt: now, ExpiresAt: &exp}}); err != nil {
		e.t.Fatal(err)
	}
	return token
}

// traineeToken is a grant of f's trainee with every trainee scope.
func (e *env) traineeToken(f fixture) string {
	return e.grant(f.studio.ID, f.trainee.ID, auth.TraineeScopes...)
}

// secondTrainee adds another trainee to f's studio with a session, a goal
// and a benchmark of their own.
type otherRecords struct {
	trainee, session, goal, benchmark, program string
}

func (e *env) secondTrainee(f fixture) otherRecords {
	e.t.Helper()
	k := f.key
	var o otherRecords
	var tr struct{ ID string }
	e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "Other", "phone": "050-765-4321"})).into(e.t, &tr)
	o.trainee = tr.ID
	tp := "/trainees/" + o.trainee
	var rec struct{ ID string }
	e.ok(201, e.call(k, "POST", tp+"/sessions", map[string]any{"date": today(), "sport": "run", "title": "Easy run"})).into(e.t, &rec)
	o.session = rec.ID
	e.ok(201, e.call(k, "POST", tp+"/goals", map[string]any{"title": "Run 4 times a week", "kind": "consistency", "targetValue": 4})).into(e.t, &rec)
	o.goal = rec.ID
	var bm struct {
		Benchmark struct{ ID string } `json:"benchmark"`
	}
	e.ok(201, e.call(k, "POST", tp+"/benchmarks", map[string]any{"name": "5 km", "unit": "s", "direction": "lower", "value": 1500})).into(e.t, &bm)
	o.benchmark = bm.Benchmark.ID
	e.ok(201, e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.template.ID})).into(e.t, &rec)
	o.program = rec.ID
	return o
}

func TestTraineeMe(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("me")
		tok := e.traineeToken(f)

		var got struct {
			ID string `json:"id"`
		}
		e.ok(200, e.call(tok, "GET", "/trainees/me", nil)).into(t, &got)
		if got.ID != f.trainee.ID {
			t.Fatalf("me is %q, want %q", got.ID, f.trainee.ID)
		}
		e.ok(200, e.call(tok, "GET", "/trainees/me/weights", nil))
		e.ok(200, e.call(tok, "GET", "/trainees/"+f.trainee.ID, nil))
		var v struct {
			Slug       string   `json:"slug"`
			Credential string   `json:"credential"`
			Scopes     []string `json:"scopes"`
		}
		e.ok(200, e.call(tok, "GET", "/validate", nil)).into(t, &v)
		if v.Slug != "me" || v.Credential != string(auth.KindOAuthGrant) || len(v.Scopes) != len(auth.TraineeScopes) {
			t.Errorf("validate for a trainee: %+v", v)
		}

		// A studio key, and a coach's connection, name trainees by id.
		coach := e.grant(f.studio.ID, f.coach.ID, auth.ScopeStudioRead)
		for name, cred := range map[string]string{"studio key": f.key, "coach grant": coach} {
			a := e.fails(404, lane.CodeNotFound, e.call(cred, "GET", "/trainees/me", nil))
			if !strings.Contains(a.message(), "trainee's own connection") || !strings.Contains(a.message(), "trn_") {
				t.Errorf("%s: me answered %q", name, a.message())
			}
		}
	})
}

func TestTraineeOwnsOnlyTheirRecords(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("own")
		same := e.secondTrainee(f)
		g := e.seed("elsewhere")
		far := e.secondTrainee(g)
		tok := e.traineeToken(f)

		// Their own records answer.
		e.ok(200, e.call(tok, "GET", "/sessions/"+f.session.ID, nil))
		e.ok(200, e.call(tok, "GET", "/benchmarks/"+f.benchmark.ID, nil))
		e.ok(200, e.call(tok, "PATCH", "/goals/"+f.goal.ID, map[string]any{"title": "Train 4 times a week"}))

		for where, o := range map[string]otherRecords{"same studio": same, "other studio": far} {
			for _, c := range []struct{ method, path string }{
				{"GET", "/trainees/" + o.trainee},
				{"GET", "/trainees/" + o.trainee + "/weights"},
				{"GET", "/sessions/" + o.session},
				{"POST", "/sessions/" + o.session + "/modify"},
				{"GET", "/benchmarks/" + o.benchmark},
				{"PATCH", "/goals/" + o.goal},
			} {
				a := e.fails(404, lane.CodeNotFound, e.call(tok, c.method, c.path, map[string]any{}))
				// The same sentence as for an id no studio has.
				if !strings.HasPrefix(a.message(), "No ") {
					t.Errorf("%s %s %s: %q", where, c.method, c.path, a.message())
				}
			}
		}
		// The studio key still reaches every trainee's records.
		e.ok(200, e.call(f.key, "GET", "/sessions/"+same.session, nil))
		e.ok(200, e.call(f.key, "GET", "/trainees/"+same.trainee, nil))
	})
}

func TestTraineeOnCoachRouteIsRefused(t *testing.T) {
	e := newTraineeEnv(t, openSQLite(t), traineeEnvOptions{})
	f := e.seed("coachonly")
	tok := e.traineeToken(f)
	for _, c := range []struct{ method, path string }{
		{"GET", "/trainees/search"},
		{"GET", "/tasks"},
		{"PATCH", "/trainees/me"},
		{"GET", "/trainees/me/injuries"},
	} {
		a := e.fails(403, lane.CodeForbidden, e.call(tok, c.method, c.path, map[string]any{}))
		if !strings.Contains(a.message(), "not a trainee's connection") {
			t.Errorf("%s %s: %q", c.method, c.path, a.message())
		}
	}
}

func TestTraineeScopeShortfallNamesTheScope(t *testing.T) {
	e := newTraineeEnv(t, openSQLite(t), traineeEnvOptions{})
	f := e.seed("scopes")
	tok := e.grant(f.studio.ID, f.trainee.ID, auth.ScopeTrainingRead)
	e.ok(200, e.call(tok, "GET", "/trainees/me/programs", nil))
	a := e.fails(403, lane.CodeForbidden, e.call(tok, "GET", "/trainees/me/weights", nil))
	if !strings.Contains(a.message(), auth.ScopeHealthRead) || !strings.Contains(a.message(), "allow "+auth.ScopeHealthRead) {
		t.Errorf("shortfall: %q", a.message())
	}
}

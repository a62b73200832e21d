package roster_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

func TestTraineeMe(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("me")
		tok := e.TraineeToken(f)

		var got struct {
			ID string `json:"id"`
		}
		e.OK(200, e.Call(tok, "GET", "/trainees/me", nil)).Into(t, &got)
		if got.ID != f.Trainee.ID {
			t.Fatalf("me is %q, want %q", got.ID, f.Trainee.ID)
		}
		e.OK(200, e.Call(tok, "GET", "/trainees/me/weights", nil))
		e.OK(200, e.Call(tok, "GET", "/trainees/"+f.Trainee.ID, nil))
		var v struct {
			Slug       string   `json:"slug"`
			Credential string   `json:"credential"`
			Scopes     []string `json:"scopes"`
		}
		e.OK(200, e.Call(tok, "GET", "/validate", nil)).Into(t, &v)
		if v.Slug != "me" || v.Credential != string(auth.KindOAuthGrant) || len(v.Scopes) != len(auth.TraineeScopes) {
			t.Errorf("validate for a trainee: %+v", v)
		}

		// A studio key, and a coach's connection, name trainees by id.
		coach := e.Grant(f.Studio.ID, f.Coach.ID, auth.ScopeStudioRead)
		for name, cred := range map[string]string{"studio key": f.Key, "coach grant": coach} {
			a := e.Fails(404, lane.CodeNotFound, e.Call(cred, "GET", "/trainees/me", nil))
			if !strings.Contains(a.Message(), "trainee's own connection") || !strings.Contains(a.Message(), "trn_") {
				t.Errorf("%s: me answered %q", name, a.Message())
			}
		}
	})
}

func TestTraineeOwnsOnlyTheirRecords(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("own")
		same := e.SecondTrainee(f)
		g := e.Seed("elsewhere")
		far := e.SecondTrainee(g)
		tok := e.TraineeToken(f)

		// Their own records answer.
		e.OK(200, e.Call(tok, "GET", "/sessions/"+f.Session.ID, nil))
		e.OK(200, e.Call(tok, "GET", "/benchmarks/"+f.Benchmark.ID, nil))
		e.OK(200, e.Call(tok, "PATCH", "/goals/"+f.Goal.ID, map[string]any{"title": "Train 4 times a week"}))

		for where, o := range map[string]kit.OtherRecords{"same studio": same, "other studio": far} {
			for _, c := range []struct{ method, path string }{
				{"GET", "/trainees/" + o.Trainee},
				{"GET", "/trainees/" + o.Trainee + "/weights"},
				{"GET", "/sessions/" + o.Session},
				{"POST", "/sessions/" + o.Session + "/modify"},
				{"GET", "/benchmarks/" + o.Benchmark},
				{"PATCH", "/goals/" + o.Goal},
			} {
				a := e.Fails(404, lane.CodeNotFound, e.Call(tok, c.method, c.path, map[string]any{}))
				// The same sentence as for an id no studio has.
				if !strings.HasPrefix(a.Message(), "No ") {
					t.Errorf("%s %s %s: %q", where, c.method, c.path, a.Message())
				}
			}
		}
		// The studio key still reaches every trainee's records.
		e.OK(200, e.Call(f.Key, "GET", "/sessions/"+same.Session, nil))
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+same.Trainee, nil))
	})
}

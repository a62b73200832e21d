package lane_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A route that takes no trainee refuses a trainee's grant, saying why.
func TestTraineeOnCoachRouteIsRefused(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	e := newToyTrainees(t, st, nil, nil, nil)
	s, _, _ := e.Studio("coachonly", "pro")
	trainee, _ := toyTrainee(t, st, s.ID, "Dana")
	tok := e.Grant(s.ID, trainee, auth.TraineeScopes...)
	for _, c := range []struct{ method, path string }{
		{"GET", "/tasks"},
		{"POST", "/tasks"},
		{"POST", "/tags"},
	} {
		a := e.Fails(403, lane.CodeForbidden, e.Call(tok, c.method, c.path, map[string]any{}))
		if !strings.Contains(a.Message(), "not a trainee's connection") {
			t.Errorf("%s %s: %q", c.method, c.path, a.Message())
		}
	}
}

// A trainee's grant short of a route's scope is refused naming the scope.
func TestTraineeScopeShortfallNamesTheScope(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t)
	e := newToyTrainees(t, st, nil, nil, nil)
	s, _, _ := e.Studio("scopes", "pro")
	trainee, session := toyTrainee(t, st, s.ID, "Dana")
	tok := e.Grant(s.ID, trainee, auth.ScopeTrainingRead)
	e.OK(200, e.Call(tok, "GET", "/sessions/"+session, nil))
	a := e.Fails(403, lane.CodeForbidden, e.Call(tok, "GET", "/trainees/me/weights", nil))
	if !strings.Contains(a.Message(), auth.ScopeHealthRead) || !strings.Contains(a.Message(), "allow "+auth.ScopeHealthRead) {
		t.Errorf("shortfall: %q", a.Message())
	}
}

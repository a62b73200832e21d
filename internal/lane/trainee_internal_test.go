package lane

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A trainee route of none of the three shapes, or without its allow
// list, stops the lane at start-up.
func TestTraineeRouteShapesAreCheckedAtStart(t *testing.T) {
	type empty struct{}
	for _, c := range []struct {
		name, method, path string
		opts               []Opt
		panics             string
	}{
		{"own", "GET", "/trainees/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, ""},
		{"record", "GET", "/sessions/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, ""},
		{"program", "GET", "/programs/{id}", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, ""},
		{"shared", "GET", "/methodologies", []Opt{Trainee(auth.ScopeCoachRead), Shared(), Allow("a")}, ""},
		{"coach only", "GET", "/tasks", nil, ""},
		{"no allow", "GET", "/trainees/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead)}, "no allow() list"},
		{"untraced record", "PATCH", "/injuries/{id}", []Opt{Trainee(auth.ScopeHealthWrite), Allow("a")}, "neither"},
		{"no id, not shared", "GET", "/tasks", []Opt{Trainee(auth.ScopeTrainingRead), Allow("a")}, "neither"},
		{"shared with an id", "GET", "/trainees/{id}/x", []Opt{Trainee(auth.ScopeTrainingRead), Shared(), Allow("a")}, "shared() but names a record"},
		{"allow without trainee", "GET", "/tasks", []Opt{Allow("a")}, "no trainee(scope)"},
		{"tool without trainee", "GET", "/tasks", []Opt{TraineeTool("x")}, "no trainee(scope)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				v := recover()
				msg, _ := v.(string)
				switch {
				case c.panics == "" && v != nil:
					t.Fatalf("panicked: %v", v)
				case c.panics != "" && !strings.Contains(msg, c.panics):
					t.Fatalf("panic %v, want one saying %q", v, c.panics)
				}
			}()
			// The areas' nouns, and the one route: the shapes are checked when the lane is built.
			list := []Area{routesOf(func(rs *Routes) {
				Add(rs, c.method, c.path, "test", func(*Call, *NoInput) (empty, error) { return empty{}, nil }, c.opts...)
			})}
			for _, a := range allAreas {
				if d, ok := a.(Declarer); ok {
					list = append(list, nounsOf{d})
				}
			}
			New(Options{Areas: list})
		})
	}
}

// routesOf is an area of routes only; nounsOf, an area's declaration without its routes.
type routesOf func(rs *Routes)

func (f routesOf) Routes(rs *Routes) { f(rs) }

type nounsOf struct{ Declarer }

func (nounsOf) Routes(*Routes) {}

// ownerOf answers the trainee of each record kind a trainee's route may
// name, and not found for a record of another studio.
func TestOwnerOfEachKind(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			l := newFull(Options{Store: st})
			a, akey := studioWithKey(t, st, "owner-a")
			b, _ := studioWithKey(t, st, "owner-b")
			var tr, tpl struct{ ID string }
			do(t, l, akey, "POST", "/trainees", map[string]any{"firstName": "Dana", "lastName": "Levi", "phone": "050-123-4567"}, &tr)
			do(t, l, akey, "POST", "/program-templates", map[string]any{"name": "Base", "weeks": 4}, &tpl)
			tp := "/trainees/" + tr.ID
			var ses, gol, prg struct{ ID string }
			var bmk struct{ Benchmark struct{ ID string } }
			do(t, l, akey, "POST", tp+"/sessions", map[string]any{"date": "2026-07-01", "sport": "running", "title": "Easy"}, &ses)
			do(t, l, akey, "POST", tp+"/goals", map[string]any{"title": "3 a week", "kind": "consistency", "targetValue": 3}, &gol)
			do(t, l, akey, "POST", tp+"/benchmarks", map[string]any{"name": "5 km", "unit": "s", "direction": "lower", "value": 1500}, &bmk)
			do(t, l, akey, "POST", tp+"/programs/assign", map[string]any{"templateId": tpl.ID}, &prg)
			for kind, id := range map[ids.Kind]string{ids.Session: ses.ID, ids.Goal: gol.ID, ids.Benchmark: bmk.Benchmark.ID, ids.Program: prg.ID} {
				owner, err := l.ownerOf(context.Background(), st.Studio(a.ID), kind, id)
				if err != nil || owner != tr.ID {
					t.Errorf("%s %s: owner %q %v, want %s", kind, id, owner, err, tr.ID)
				}
				if _, err := l.ownerOf(context.Background(), st.Studio(b.ID), kind, id); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s %s from another studio: %v, want not found", kind, id, err)
				}
			}
			if _, err := l.ownerOf(context.Background(), st.Studio(a.ID), ids.Injury, ids.New(ids.Injury)); err == nil {
				t.Error("ownerOf answered a kind it has no lookup for")
			}
		})
	}
}

func studioWithKey(t *testing.T, st store.Store, slug string) (domain.Studio, string) {
	t.Helper()
	ctx := context.Background()
	s := domain.Studio{Name: "Studio " + slug, Slug: slug, Tier: "pro"}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatal(err)
	}
	key := auth.NewKey()
	k := domain.APIKey{ID: ids.New(ids.APIKey), StudioID: s.ID, Name: "test", Prefix: auth.Display(key), Hash: auth.Hash(key), Scopes: auth.DefaultKeyScopes}
	if err := st.CreateAPIKey(ctx, &k); err != nil {
		t.Fatal(err)
	}
	return s, key
}

func do(t *testing.T, l *Lane, key, method, path string, body, into any) {
	t.Helper()
	b, _ := json.Marshal(body)
	r := httptest.NewRequest(method, Prefix+path, bytes.NewReader(b))
	r.Header.Set("Authorization", "Bearer "+key)
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	l.ServeHTTP(w, r)
	var env struct {
		OK   bool            `json:"ok"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || !env.OK || w.Code >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body.String())
	}
	if err := json.Unmarshal(env.Data, into); err != nil {
		t.Fatal(err)
	}
}

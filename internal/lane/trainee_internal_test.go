package lane

import (
	"context"
	"errors"
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
			Add(&Routes{}, c.method, c.path, "test", func(*Call, *NoInput) (empty, error) { return empty{}, nil }, c.opts...)
		})
	}
}

// ownerOf answers the trainee of each record kind a trainee's route may
// name, and not found for a record of another studio. The records are
// written straight to the store: the kernel's tests link no area.
func TestOwnerOfEachKind(t *testing.T) {
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := context.Background()
			a, _ := studioWithKey(t, st, "owner-a")
			b, _ := studioWithKey(t, st, "owner-b")
			ss := st.Studio(a.ID)
			must := func(what string, err error) {
				t.Helper()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			tr := domain.Trainee{FirstName: "Dana", LastName: "Levi", Phone: "+972501234567"}
			must("trainee", ss.CreateTrainee(ctx, &tr))
			weeks := 4
			tpl := domain.ProgramTemplate{Name: "Base", Weeks: &weeks}
			must("template", ss.CreateProgramTemplate(ctx, &tpl))
			prg := domain.Program{TraineeID: tr.ID, TemplateID: tpl.ID, StartsOn: "2026-07-01"}
			must("program", ss.CreateProgram(ctx, &prg))
			ses := &domain.Session{TraineeID: tr.ID, Date: "2026-07-01", Sport: "running", Title: "Easy", Status: domain.SessionPlanned}
			must("session", ss.CreateSessions(ctx, []*domain.Session{ses}))
			target := 3.0
			gol := domain.Goal{TraineeID: tr.ID, Title: "3 a week", Kind: domain.GoalConsistency, TargetValue: &target}
			must("goal", ss.CreateGoal(ctx, &gol))
			bmk := domain.Benchmark{TraineeID: tr.ID, Name: "5 km", Unit: "s", Direction: domain.LowerIsBetter}
			must("benchmark", ss.CreateBenchmark(ctx, &bmk))
			for kind, id := range map[ids.Kind]string{ids.Session: ses.ID, ids.Goal: gol.ID, ids.Benchmark: bmk.ID, ids.Program: prg.ID} {
				owner, err := ownerOf(ctx, st.Studio(a.ID), kind, id)
				if err != nil || owner != tr.ID {
					t.Errorf("%s %s: owner %q %v, want %s", kind, id, owner, err, tr.ID)
				}
				if _, err := ownerOf(ctx, st.Studio(b.ID), kind, id); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s %s from another studio: %v, want not found", kind, id, err)
				}
			}
			if _, err := ownerOf(ctx, st.Studio(a.ID), ids.Injury, ids.New(ids.Injury)); err == nil {
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

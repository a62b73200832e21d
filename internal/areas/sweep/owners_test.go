package sweep_test

import (
	"context"
	"errors"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// Every record kind a trainee's route may name by its {id} is traced to
// its trainee through the noun its area declares, and another studio's
// record is not found; a kind no area traces is refused.
func TestOwnerOfEachKind(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := areas.Lane(lane.Options{Store: st})
		a, b := domain.Studio{Name: "Owner A", Slug: "owner-a"}, domain.Studio{Name: "Owner B", Slug: "owner-b"}
		for _, s := range []*domain.Studio{&a, &b} {
			if err := st.CreateStudio(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
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
			owner, err := l.OwnerOf(ctx, st.Studio(a.ID), kind, id)
			if err != nil || owner != tr.ID {
				t.Errorf("%s %s: owner %q %v, want %s", kind, id, owner, err, tr.ID)
			}
			if _, err := l.OwnerOf(ctx, st.Studio(b.ID), kind, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s %s from another studio: %v, want not found", kind, id, err)
			}
		}
		if _, err := l.OwnerOf(ctx, st.Studio(a.ID), ids.Injury, ids.New(ids.Injury)); err == nil {
			t.Error("ownerOf answered a kind no area traces")
		}
	})
}

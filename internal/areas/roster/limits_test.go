package roster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// N concurrent creates at limit − 1 leave exactly the limit: the active
// trainees of a free studio, through the lane.
func TestActiveTraineeLimitHoldsUnderConcurrency(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, key, _ := e.Studio("race", "free")
		limit := domain.Tiers["free"].MaxActiveTrainees
		ctx := context.Background()
		for i := range limit - 1 {
			tr := domain.Trainee{FirstName: "T", LastName: fmt.Sprint(i), Phone: fmt.Sprintf("+97250100%04d", i), Status: domain.TraineeActive}
			if err := st.Studio(s.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
		}
		// A paused trainee that half of the requests try to reactivate.
		paused := domain.Trainee{FirstName: "P", LastName: "Aused", Phone: "+972509999999", Status: domain.TraineePaused}
		if err := st.Studio(s.ID).CreateTrainee(ctx, &paused); err != nil {
			t.Fatal(err)
		}
		const n = 12
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				var a kit.Answer
				var err error
				if i%3 == 2 {
					a, err = e.Try(key, "PATCH", "/trainees/"+paused.ID, map[string]any{"status": "active"})
				} else {
					a, err = e.Try(key, "POST", "/trainees", map[string]any{"firstName": "New", "lastName": fmt.Sprint(i), "phone": fmt.Sprintf("05420000%02d", i)})
				}
				if err != nil {
					t.Error(err)
					return
				}
				statuses[i] = a.Status
				if a.Status != 201 && a.Status != 200 && a.Code() != "PLAN_LIMIT" {
					t.Errorf("request %d: %d %s", i, a.Status, a.Raw)
				}
			})
		}
		wg.Wait()
		active, err := st.Studio(s.ID).CountActiveTrainees(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if active != limit {
			t.Fatalf("%d active trainees after %d concurrent writes at %d of %d (statuses %v)", active, n, limit-1, limit, statuses)
		}
	})
}

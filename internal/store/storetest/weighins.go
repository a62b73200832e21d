package storetest

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func testWeights(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	tr := newTrainee(t, ss, "Heavy", "Lifter")
	other := newTrainee(t, st.Studio(b.ID), "Other", "Lifter")
	base := time.Date(2026, 1, 1, 7, 0, 0, 0, time.UTC)
	for i, kg := range []float64{80, 79.5, 79.1} {
		wt := domain.Weight{TraineeID: tr.ID, WeightKg: kg, RecordedAt: base.AddDate(0, 0, 7*i)}
		must(t, "CreateWeight", ss.CreateWeight(ctx, &wt))
	}
	list, err := ss.ListWeights(ctx, tr.ID, page(2, 0))
	must(t, "ListWeights", err)
	if list.Total != 3 || len(list.Items) != 2 || list.Items[0].WeightKg != 79.1 || !list.Items[0].RecordedAt.Equal(base.AddDate(0, 0, 14)) || list.Items[1].WeightKg != 79.5 {
		t.Fatalf("ListWeights = %+v", list)
	}
	wt := domain.Weight{TraineeID: other.ID, WeightKg: 60}
	mustNotFound(t, "CreateWeight for another studio's trainee", ss.CreateWeight(ctx, &wt))
	_, err = ss.ListWeights(ctx, other.ID, page(10, 0))
	mustNotFound(t, "ListWeights of another studio's trainee", err)
	now := domain.Weight{TraineeID: tr.ID, WeightKg: 78}
	must(t, "CreateWeight without recordedAt", ss.CreateWeight(ctx, &now))
	if now.RecordedAt.IsZero() || !now.RecordedAt.Equal(now.CreatedAt) {
		t.Fatalf("recordedAt defaults to createdAt: %+v", now)
	}
}

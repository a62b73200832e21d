package storetest

import (
	"errors"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func testTransactions(t *testing.T, st store.Store) {
	a := newStudio(t, st)
	if st.SQLTx() != nil {
		t.Fatal("SQLTx outside a transaction is not nil")
	}
	errStop := errors.New("stop")
	var rolledBack domain.Trainee
	err := st.InTx(ctx, func(tx store.Store) error {
		if tx.SQLTx() == nil {
			t.Error("SQLTx inside InTx is nil")
		}
		rolledBack = domain.Trainee{FirstName: "Roll", LastName: "Back", Phone: newPhone(), Tags: []string{"tx-tag"}}
		if err := tx.Studio(a.ID).CreateTrainee(ctx, &rolledBack); err != nil {
			return err
		}
		// Reads inside the transaction see its writes.
		if _, err := tx.Studio(a.ID).GetTrainee(ctx, rolledBack.ID); err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("InTx = %v, want the function's error", err)
	}
	_, err = st.Studio(a.ID).GetTrainee(ctx, rolledBack.ID)
	mustNotFound(t, "a rolled-back trainee", err)
	tags, _ := st.Studio(a.ID).ListTags(ctx, page(50, 0))
	if tags.Total != 0 {
		t.Fatalf("a rolled-back tag survived: %+v", tags)
	}

	var kept domain.Trainee
	must(t, "InTx commit", st.InTx(ctx, func(tx store.Store) error {
		kept = domain.Trainee{FirstName: "Kept", LastName: "Trainee", Phone: newPhone()}
		if err := tx.Studio(a.ID).CreateTrainee(ctx, &kept); err != nil {
			return err
		}
		// A nested InTx joins the outer transaction.
		return tx.InTx(ctx, func(inner store.Store) error {
			if inner.SQLTx() != tx.SQLTx() {
				t.Error("nested InTx opened a second transaction")
			}
			w := domain.Weight{TraineeID: kept.ID, WeightKg: 70}
			return inner.Studio(a.ID).CreateWeight(ctx, &w)
		})
	}))
	weights, err := st.Studio(a.ID).ListWeights(ctx, kept.ID, page(10, 0))
	must(t, "ListWeights", err)
	if weights.Total != 1 {
		t.Fatalf("committed weight count = %d, want 1", weights.Total)
	}

	// A failed write inside a transaction rolls back the earlier ones.
	dupPhone := kept.Phone
	var first domain.Trainee
	err = st.InTx(ctx, func(tx store.Store) error {
		first = domain.Trainee{FirstName: "First", LastName: "Write", Phone: newPhone()}
		if err := tx.Studio(a.ID).CreateTrainee(ctx, &first); err != nil {
			return err
		}
		second := domain.Trainee{FirstName: "Dup", LastName: "Phone", Phone: dupPhone}
		return tx.Studio(a.ID).CreateTrainee(ctx, &second)
	})
	var ce *store.ConflictError
	if !errors.As(err, &ce) || ce.ExistingID != kept.ID {
		t.Fatalf("InTx with a duplicate phone = %v, want a conflict naming %s", err, kept.ID)
	}
	_, err = st.Studio(a.ID).GetTrainee(ctx, first.ID)
	mustNotFound(t, "the write before the conflict", err)
}

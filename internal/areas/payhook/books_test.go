package payhook_test

import (
	"context"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// paymentsOf are the trainee's payments in the studio's books.
func (w *world) paymentsOf(t *testing.T, studioID, traineeID string) []int64 {
	t.Helper()
	l, err := w.st.Studio(studioID).ListPayments(context.Background(), store.PaymentFilter{TraineeID: traineeID, Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	out := []int64{}
	for _, p := range l.Items {
		if p.Source != domain.PaidByProcessor || p.Method != domain.PayCard || p.ExternalID == nil {
			t.Errorf("a payment the webhook recorded as %+v", p)
		}
		out = append(out, p.Amount.Minor)
	}
	return out
}

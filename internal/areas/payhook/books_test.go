package payhook_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/store"
)

// memBooks stands in for the studio's books until they record payments.
type memBooks struct {
	mu    sync.Mutex
	byExt map[string]string
	all   map[string][]int64 // studio|trainee → amounts
}

func newBooks() *memBooks { return &memBooks{byExt: map[string]string{}, all: map[string][]int64{}} }

func (b *memBooks) RecordPayment(_ context.Context, _ store.Store, studioID string, p payhook.Payment) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := studioID + "|" + p.ExternalID
	if id, ok := b.byExt[k]; ok {
		return id, false, nil
	}
	id := fmt.Sprintf("pay_%d", len(b.byExt)+1)
	b.byExt[k] = id
	b.all[studioID+"|"+p.TraineeID] = append(b.all[studioID+"|"+p.TraineeID], p.Amount)
	return id, true, nil
}

func (w *world) paymentsOf(_ *testing.T, studioID, traineeID string) []int64 {
	w.books.mu.Lock()
	defer w.books.mu.Unlock()
	return append([]int64(nil), w.books.all[studioID+"|"+traineeID]...)
}

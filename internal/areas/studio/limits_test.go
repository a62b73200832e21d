package studio_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// The API key limit holds whoever mints at once: the lane's POST /keys and
// store.MintAPIKey as the CLI and the assistant call it.
func TestKeyLimitHoldsUnderConcurrency(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, key, _ := e.Studio("keyrace", "free")
		limit := domain.Tiers["free"].MaxAPIKeys
		ctx := context.Background()
		for range limit - 2 { // the studio's own key is one
			e.NewKey(s.ID, "more")
		}
		const n = 10
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if i%2 == 0 {
					a, err := e.Try(key, "POST", "/keys", map[string]any{"name": fmt.Sprint("lane ", i)})
					if err != nil || (a.Status != 201 && a.Code() != "PLAN_LIMIT") {
						t.Errorf("POST /keys: %v %s", err, a.Raw)
					}
					return
				}
				secret := auth.NewKey()
				k := domain.APIKey{StudioID: s.ID, Name: fmt.Sprint("direct ", i), Prefix: auth.Display(secret), Hash: auth.Hash(secret)}
				err := st.MintAPIKey(ctx, &k, limit, &domain.AuditEvent{Method: "POST", Route: "test mint", Status: 201, Source: domain.SourceCLI})
				if _, full := err.(*store.LimitError); err != nil && !full {
					t.Errorf("MintAPIKey: %v", err)
				}
			})
		}
		wg.Wait()
		live, err := st.CountLiveAPIKeys(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if live != limit {
			t.Fatalf("%d live keys after %d concurrent mints at %d of %d", live, n, limit-1, limit)
		}
	})
}

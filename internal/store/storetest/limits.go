package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func mintable(studioID, name string, scopes ...string) *domain.APIKey {
	secret := auth.NewKey()
	return &domain.APIKey{StudioID: studioID, Name: name, Prefix: auth.Display(secret), Hash: auth.Hash(secret), Scopes: scopes}
}

// testPlanLimits: MintAPIKey keeps scopes, audits in its transaction and
// stops at the limit; ReserveActiveTrainee only inside a transaction; both
// hold under concurrent writers.
func testPlanLimits(t *testing.T, st store.Store) {
	s := newStudio(t, st)
	ev := &domain.AuditEvent{CredentialID: "cli", Method: "POST", Route: "perform key create", Status: 201, Source: domain.SourceCLI, RequestID: "req_test"}
	k := mintable(s.ID, "reader", auth.ScopeStudioRead)
	must(t, "MintAPIKey", st.MintAPIKey(ctx, k, 2, ev))
	got, _, err := st.APIKeyByHash(ctx, k.Hash)
	must(t, "APIKeyByHash", err)
	if !slices.Equal(got.Scopes, []string{auth.ScopeStudioRead}) {
		t.Fatalf("scopes read back: %v", got.Scopes)
	}
	def := mintable(s.ID, "default")
	must(t, "MintAPIKey default", st.MintAPIKey(ctx, def, 2, nil))
	if list, _ := st.ListAPIKeys(ctx, s.ID); len(list) != 2 || !slices.Equal(list[1].Scopes, auth.DefaultKeyScopes) {
		t.Fatalf("a key minted without scopes: %+v", list)
	}
	var le *store.LimitError
	if err := st.MintAPIKey(ctx, mintable(s.ID, "third"), 2, ev); !errors.As(err, &le) || le.Limit != 2 || le.Count != 2 {
		t.Fatalf("at the limit: %v", err)
	}
	audit, err := st.ListAudit(ctx, s.ID, store.Page{Limit: 10})
	must(t, "ListAudit", err)
	if audit.Total != 1 || audit.Items[0].ResourceID != k.ID || audit.Items[0].Route != "perform key create" || audit.Items[0].StudioID != s.ID {
		t.Fatalf("audit of the mints: %+v; want the one with an event", audit.Items)
	}
	// Revoked keys free their slot; a rolled-back caller's transaction takes the key and its event with it.
	must(t, "RevokeAPIKey", st.RevokeAPIKey(ctx, def.ID, def.CreatedAt))
	rolled := mintable(s.ID, "rolled back")
	boom := errors.New("boom")
	if err := st.InTx(ctx, func(tx store.Store) error {
		must(t, "MintAPIKey in a transaction", tx.MintAPIKey(ctx, rolled, 2, ev))
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("InTx: %v", err)
	}
	if n, _ := st.CountLiveAPIKeys(ctx, s.ID); n != 1 {
		t.Fatalf("%d live keys after the rollback, want 1", n)
	}
	if audit, _ := st.ListAudit(ctx, s.ID, store.Page{Limit: 10}); audit.Total != 1 {
		t.Fatalf("the rolled-back mint left an audit event: %+v", audit.Items)
	}
	mustNotFound(t, "MintAPIKey for a missing studio", st.MintAPIKey(ctx, mintable("std_missing", "x"), 2, nil))

	// N concurrent mints at limit − 1 leave exactly the limit.
	race := newStudio(t, st)
	must(t, "MintAPIKey", st.MintAPIKey(ctx, mintable(race.ID, "first"), 3, nil))
	must(t, "MintAPIKey", st.MintAPIKey(ctx, mintable(race.ID, "second"), 3, nil))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := st.MintAPIKey(ctx, mintable(race.ID, fmt.Sprint(i)), 3, ev); err != nil && !errors.As(err, new(*store.LimitError)) {
				t.Errorf("concurrent MintAPIKey: %v", err)
			}
		})
	}
	wg.Wait()
	if n, _ := st.CountLiveAPIKeys(ctx, race.ID); n != 3 {
		t.Fatalf("%d live keys after concurrent mints at 2 of 3", n)
	}

	// Active trainees.
	ss := st.Studio(s.ID)
	if err := ss.ReserveActiveTrainee(ctx, 5); err == nil {
		t.Fatal("ReserveActiveTrainee outside a transaction must refuse: its lock would not hold")
	}
	create := func(i int) error {
		return st.InTx(ctx, func(tx store.Store) error {
			if err := tx.Studio(s.ID).ReserveActiveTrainee(ctx, 4); err != nil {
				return err
			}
			tr := domain.Trainee{FirstName: "L", LastName: fmt.Sprint(i), Phone: newPhone(), Status: domain.TraineeActive}
			return tx.Studio(s.ID).CreateTrainee(ctx, &tr)
		})
	}
	for i := range 3 {
		must(t, "create under the limit", create(i))
	}
	for i := range 8 {
		wg.Go(func() {
			if err := create(10 + i); err != nil && !errors.As(err, new(*store.LimitError)) {
				t.Errorf("concurrent create: %v", err)
			}
		})
	}
	wg.Wait()
	if n, _ := ss.CountActiveTrainees(ctx); n != 4 {
		t.Fatalf("%d active trainees after concurrent creates at 3 of 4", n)
	}
	if err := create(99); !errors.As(err, &le) || le.What != "active trainees" || le.Count != 4 {
		t.Fatalf("at the limit: %v", err)
	}
}

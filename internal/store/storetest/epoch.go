package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// testCredentialsEpoch: the epoch moves with every change a key's principal
// is made of, in the change's own transaction (a rolled-back revocation
// leaves it), and not with a key's last use, which is written once a minute.
func testCredentialsEpoch(t *testing.T, st store.Store) {
	epoch := func() int64 {
		t.Helper()
		n, err := st.CredentialsEpoch(ctx)
		must(t, "CredentialsEpoch", err)
		return n
	}
	s := newStudio(t, st)
	_, k := newKey(t, st, s.ID, "epoch")

	before := epoch()
	must(t, "TouchAPIKey", st.TouchAPIKey(ctx, k.ID, time.Now().Add(time.Hour)))
	if got := epoch(); got != before {
		t.Fatalf("a key's last use moved the epoch from %d to %d; it must not (it is written once a minute)", before, got)
	}

	errRollback := errors.New("roll back")
	err := st.InTx(ctx, func(tx store.Store) error {
		must(t, "RevokeAPIKey in a transaction", tx.RevokeAPIKey(ctx, k.ID, time.Now()))
		if n, err := tx.CredentialsEpoch(ctx); err != nil || n == before {
			t.Errorf("inside the revoking transaction the epoch is %d (%v); want it moved from %d", n, err, before)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("InTx = %v", err)
	}
	if got := epoch(); got != before {
		t.Fatalf("a rolled-back revocation moved the epoch from %d to %d", before, got)
	}

	must(t, "UpdateStudioSettings", st.UpdateStudioSettings(ctx, s.ID, json.RawMessage(`{"timeZone":"Europe/London"}`)))
	afterSettings := epoch()
	if afterSettings <= before {
		t.Fatalf("a studio's settings change left the epoch at %d (was %d)", afterSettings, before)
	}
	must(t, "RevokeAPIKey", st.RevokeAPIKey(ctx, k.ID, time.Now()))
	if got := epoch(); got <= afterSettings {
		t.Fatalf("a revocation left the epoch at %d (was %d)", got, afterSettings)
	}
}

// testAPIKeyScopes: a live key's scopes change in one transaction with its
// audit event, and the credentials epoch moves with them; another studio's
// key is not found, a revoked key is a conflict, and a refused change
// writes nothing.
func testAPIKeyScopes(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	_, k := newKey(t, st, a.ID, "scopes")
	old := []string{auth.ScopeStudioRead, auth.ScopeStudioWrite}
	_, err := st.SetAPIKeyScopes(ctx, a.ID, k.ID, func(domain.APIKey) ([]string, error) { return old, nil }, nil)
	must(t, "SetAPIKeyScopes", err)

	before, err := st.CredentialsEpoch(ctx)
	must(t, "CredentialsEpoch", err)
	ev := &domain.AuditEvent{CredentialID: "cli", Method: "PATCH", Route: "perform key scopes", Status: 200, Source: domain.SourceCLI}
	var had []string
	got, err := st.SetAPIKeyScopes(ctx, a.ID, k.ID, func(have domain.APIKey) ([]string, error) {
		had = have.Scopes
		return auth.ScopeChange{Add: []string{auth.ScopeBilling}}.Apply(have.Scopes)
	}, ev)
	must(t, "SetAPIKeyScopes add billing", err)
	want := []string{auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeBilling}
	if !slices.Equal(had, old) || !slices.Equal(got.Scopes, want) || got.ID != k.ID {
		t.Fatalf("the change saw %v and answered %+v; want it to see %v and answer %v", had, got, old, want)
	}
	if after, _ := st.CredentialsEpoch(ctx); after <= before {
		t.Fatalf("a scope change left the credentials epoch at %d (was %d)", after, before)
	}
	stored, err := st.FindAPIKey(ctx, a.ID, k.ID)
	must(t, "FindAPIKey", err)
	if !slices.Equal(stored.Scopes, want) {
		t.Fatalf("stored scopes %v; want %v", stored.Scopes, want)
	}
	audit, err := st.ListAudit(ctx, a.ID, page(50, 0))
	must(t, "ListAudit", err)
	if len(audit.Items) == 0 || audit.Items[0].Route != "perform key scopes" || audit.Items[0].ResourceID != k.ID {
		t.Fatalf("the change's audit event: %+v", audit.Items)
	}

	for name, studio := range map[string]string{"another studio's key": b.ID, "no key": a.ID} {
		id := k.ID
		if name == "no key" {
			id = "key_nothing"
		}
		if _, err := st.SetAPIKeyScopes(ctx, studio, id, func(have domain.APIKey) ([]string, error) { return have.Scopes, nil }, nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: %v; want not found", name, err)
		}
	}
	refused := errors.New("refused")
	if _, err := st.SetAPIKeyScopes(ctx, "", k.ID, func(domain.APIKey) ([]string, error) { return nil, refused }, ev); !errors.Is(err, refused) {
		t.Fatalf("a refused change: %v", err)
	}
	must(t, "RevokeAPIKey", st.RevokeAPIKey(ctx, k.ID, time.Now()))
	var ce *store.ConflictError
	if _, err := st.SetAPIKeyScopes(ctx, "", k.ID, func(have domain.APIKey) ([]string, error) { return have.Scopes, nil }, ev); !errors.As(err, &ce) || !strings.Contains(ce.Message, "revoked") {
		t.Fatalf("a revoked key's scopes: %v; want a conflict saying it was revoked", err)
	}
	if stored, _ := st.FindAPIKey(ctx, a.ID, k.ID); !slices.Equal(stored.Scopes, want) {
		t.Fatalf("refused changes wrote %v", stored.Scopes)
	}
	if again, _ := st.ListAudit(ctx, a.ID, page(50, 0)); again.Total != audit.Total {
		t.Fatalf("refused changes were audited: %d events, were %d", again.Total, audit.Total)
	}
}

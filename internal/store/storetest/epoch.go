package storetest

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

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

package storetest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// The one-time codes (store.CodeStore). The table is global and keyed by
// hash, so each test uses keys of its own.
func testCodes(t *testing.T, st store.Store) {
	cs := st.Codes()
	key := hashOf("subject")
	_, err := cs.TryCode(ctx, key)
	mustNotFound(t, "TryCode before any code", err)

	c := store.OneTimeCode{Key: key, CodeHash: hashOf("code"), Data: "+972581112233",
		CreatedAt: loginClock, ExpiresAt: loginClock.Add(10 * time.Minute)}
	must(t, "PutCode", cs.PutCode(ctx, c))
	for want := 1; want <= 3; want++ {
		got, err := cs.TryCode(ctx, key)
		if err != nil || got.Tries != want || !bytes.Equal(got.CodeHash, c.CodeHash) || got.Data != c.Data ||
			!sameTime(got.CreatedAt, c.CreatedAt) || !sameTime(got.ExpiresAt, c.ExpiresAt) {
			t.Fatalf("TryCode #%d = %+v, %v; want %+v with %d tries", want, got, err, c, want)
		}
	}

	// Tries at once each get a count of their own.
	const parallel = 20
	seen := make([]bool, parallel+4)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := cs.TryCode(ctx, key)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || got.Tries < 4 || got.Tries >= len(seen) || seen[got.Tries] {
				t.Errorf("a parallel TryCode = %d tries, %v: a count was shared or lost", got.Tries, err)
				return
			}
			seen[got.Tries] = true
		}()
	}
	wg.Wait()

	// A new code replaces the old one whole, its tries too.
	c2 := c
	c2.CodeHash, c2.Data = hashOf("code2"), "trn_2"
	must(t, "PutCode again", cs.PutCode(ctx, c2))
	if got, err := cs.TryCode(ctx, key); err != nil || got.Tries != 1 || !bytes.Equal(got.CodeHash, c2.CodeHash) || got.Data != "trn_2" {
		t.Fatalf("the replaced code = %+v, %v", got, err)
	}

	// A code is used once, and only while it is the code hashed.
	if ok, err := cs.UseCode(ctx, key, c.CodeHash); err != nil || ok {
		t.Fatalf("UseCode with the replaced code's hash = %v, %v; want false", ok, err)
	}
	if ok, err := cs.UseCode(ctx, key, c2.CodeHash); err != nil || !ok {
		t.Fatalf("UseCode = %v, %v; want true", ok, err)
	}
	if ok, err := cs.UseCode(ctx, key, c2.CodeHash); err != nil || ok {
		t.Fatalf("UseCode a second time = %v, %v; want false", ok, err)
	}
	_, err = cs.TryCode(ctx, key)
	mustNotFound(t, "TryCode of a used code", err)

	must(t, "PutCode for delete", cs.PutCode(ctx, c))
	must(t, "DeleteCode", cs.DeleteCode(ctx, key))
	must(t, "DeleteCode again", cs.DeleteCode(ctx, key))
	_, err = cs.TryCode(ctx, key)
	mustNotFound(t, "TryCode after delete", err)

	// The sweep forgets what expired at its instant or before.
	now := loginClock.AddDate(50, 0, 0)
	old, live := hashOf("old"), hashOf("live")
	must(t, "PutCode old", cs.PutCode(ctx, store.OneTimeCode{Key: old, CodeHash: old, CreatedAt: now, ExpiresAt: now}))
	must(t, "PutCode live", cs.PutCode(ctx, store.OneTimeCode{Key: live, CodeHash: live, CreatedAt: now, ExpiresAt: now.Add(time.Millisecond)}))
	must(t, "SweepCodes", cs.SweepCodes(ctx, now))
	_, err = cs.TryCode(ctx, old)
	mustNotFound(t, "TryCode of a swept code", err)
	if _, err := cs.TryCode(ctx, live); err != nil {
		t.Fatalf("a live code was swept: %v", err)
	}
}

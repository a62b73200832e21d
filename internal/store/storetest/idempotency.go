package storetest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// testIdempotency covers the Idempotency-Key records: claim, replay,
// concurrent claims, stale takeover, release, expiry and tenancy.
func testIdempotency(t *testing.T, st store.Store) {
	const stale = time.Minute
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

	t.Run("ClaimThenReplay", func(t *testing.T) {
		ss := st.Studio(newStudio(t, st).ID)
		rec, started, err := ss.BeginIdempotent(ctx, "k1", "hash-a", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent", err)
		if !started || rec.Key != "k1" || rec.RequestHash != "hash-a" || !rec.InProgress() {
			t.Fatalf("first claim: started %v, record %+v; want a fresh in-progress claim", started, rec)
		}
		claim := rec
		rec, started, err = ss.BeginIdempotent(ctx, "k1", "hash-b", t0.Add(time.Second), stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent again", err)
		if started || !rec.InProgress() || rec.RequestHash != "hash-a" || !sameTime(rec.CreatedAt, t0) {
			t.Fatalf("second claim while running: started %v, record %+v; want the first claim", started, rec)
		}
		body := []byte(`{"ok":true,"data":{"id":"tsk_1"}}`)
		must(t, "FinishIdempotent", ss.FinishIdempotent(ctx, claim, 201, body))
		// Long past staleAfter: a finished record is never taken over.
		rec, started, err = ss.BeginIdempotent(ctx, "k1", "hash-a", t0.Add(time.Hour), stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent after finish", err)
		if started || rec.Status != 201 || !bytes.Equal(rec.Body, body) || rec.RequestHash != "hash-a" {
			t.Fatalf("replay: started %v, record %+v; want status 201 and the stored body", started, rec)
		}
		// Releasing a finished record does nothing.
		must(t, "ReleaseIdempotent", ss.ReleaseIdempotent(ctx, claim))
		if _, started, _ := ss.BeginIdempotent(ctx, "k1", "hash-a", t0.Add(time.Hour), stale, store.IdempotencyTTL); started {
			t.Fatal("a finished record was released")
		}
		// An empty body is stored as empty, not as in progress.
		claim2, _, err := ss.BeginIdempotent(ctx, "k2", "h", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent k2", err)
		must(t, "FinishIdempotent k2", ss.FinishIdempotent(ctx, claim2, 204, nil))
		if rec, started, _ := ss.BeginIdempotent(ctx, "k2", "h", t0, stale, store.IdempotencyTTL); started || rec.Status != 204 || len(rec.Body) != 0 {
			t.Fatalf("empty body: started %v, record %+v", started, rec)
		}
	})

	t.Run("ConcurrentClaims", func(t *testing.T) {
		ss := st.Studio(newStudio(t, st).ID)
		const n = 16
		var wg sync.WaitGroup
		var mu sync.Mutex
		starts, errs := 0, []error{}
		for range n {
			wg.Go(func() {
				_, started, err := ss.BeginIdempotent(ctx, "same", "h", t0, stale, store.IdempotencyTTL)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				}
				if started {
					starts++
				}
			})
		}
		wg.Wait()
		if len(errs) > 0 || starts != 1 {
			t.Fatalf("%d of %d concurrent claims started (errors %v); want exactly one", starts, n, errs)
		}
	})

	t.Run("StaleTakeover", func(t *testing.T) {
		ss := st.Studio(newStudio(t, st).ID)
		first, _, err := ss.BeginIdempotent(ctx, "k", "h", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent", err)
		if _, started, _ := ss.BeginIdempotent(ctx, "k", "h", t0.Add(stale), stale, store.IdempotencyTTL); started {
			t.Fatal("a claim exactly staleAfter old was taken over; it is still live")
		}
		later := t0.Add(stale + time.Millisecond)
		rec, started, err := ss.BeginIdempotent(ctx, "k", "h2", later, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent stale", err)
		if !started || rec.RequestHash != "h2" {
			t.Fatalf("stale claim: started %v, record %+v; want it taken over", started, rec)
		}
		// The takeover is a fresh claim: a third caller sees it in progress.
		rec, started, _ = ss.BeginIdempotent(ctx, "k", "h", later.Add(time.Second), stale, store.IdempotencyTTL)
		if started || !rec.InProgress() || rec.RequestHash != "h2" || !sameTime(rec.CreatedAt, later) {
			t.Fatalf("after takeover: started %v, record %+v", started, rec)
		}
		// The first claimer, outliving its claim, neither finishes nor
		// releases the claim that took its place.
		must(t, "FinishIdempotent by the first claimer", ss.FinishIdempotent(ctx, first, 201, []byte("late")))
		must(t, "ReleaseIdempotent by the first claimer", ss.ReleaseIdempotent(ctx, first))
		rec, started, _ = ss.BeginIdempotent(ctx, "k", "h2", later.Add(2*time.Second), stale, store.IdempotencyTTL)
		if started || !rec.InProgress() || rec.RequestHash != "h2" {
			t.Fatalf("after the first claimer's late finish and release: started %v, record %+v; want the takeover still in progress", started, rec)
		}
	})

	t.Run("RenewedClaimIsHeld", func(t *testing.T) {
		// A request that keeps renewing its claim holds it however long it
		// runs; once it stops (its process died), the claim is taken over
		// a lease after its last renewal.
		ss := st.Studio(newStudio(t, st).ID)
		claim, _, err := ss.BeginIdempotent(ctx, "k", "h", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent", err)
		at := t0
		for range 10 { // ten minutes of a live request, renewed every 30 s
			at = at.Add(stale / 2)
			held, err := ss.RenewIdempotent(ctx, claim, at.Add(stale))
			must(t, "RenewIdempotent", err)
			if !held {
				t.Fatalf("at %v the live claim was not its request's any more", at)
			}
			if rec, started, _ := ss.BeginIdempotent(ctx, "k", "h", at.Add(stale/2), stale, store.IdempotencyTTL); started || !rec.InProgress() {
				t.Fatalf("at %v a retry took over a renewed claim", at.Add(stale/2))
			}
		}
		rec, started, err := ss.BeginIdempotent(ctx, "k", "h2", at.Add(stale+time.Millisecond), stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent after the renewals stopped", err)
		if !started || rec.RequestHash != "h2" {
			t.Fatalf("a lease after the last renewal: started %v, record %+v; want it taken over", started, rec)
		}
		if held, err := ss.RenewIdempotent(ctx, claim, at.Add(2*stale)); err != nil || held {
			t.Fatalf("the first request renewed the claim taken from it: %v, %v", held, err)
		}
		// A finished claim is not renewed either.
		must(t, "FinishIdempotent", ss.FinishIdempotent(ctx, rec, 201, []byte("done")))
		if held, err := ss.RenewIdempotent(ctx, rec, at.Add(3*stale)); err != nil || held {
			t.Fatalf("a finished claim was renewed: %v, %v", held, err)
		}
	})

	t.Run("Release", func(t *testing.T) {
		ss := st.Studio(newStudio(t, st).ID)
		claim, _, err := ss.BeginIdempotent(ctx, "k", "h", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent", err)
		must(t, "ReleaseIdempotent", ss.ReleaseIdempotent(ctx, claim))
		if _, started, err := ss.BeginIdempotent(ctx, "k", "h", t0.Add(time.Second), stale, store.IdempotencyTTL); err != nil || !started {
			t.Fatalf("after release: started %v, %v; want a new claim", started, err)
		}
	})

	t.Run("ShorterKeep", func(t *testing.T) {
		// A key kept for ten minutes replays within them and is claimed
		// afresh after.
		ss := st.Studio(newStudio(t, st).ID)
		keep := 10 * time.Minute
		claim, started, err := ss.BeginIdempotent(ctx, "repeat:k", "h", t0, stale, keep)
		if err != nil || !started {
			t.Fatalf("claim: %v, %v", started, err)
		}
		must(t, "FinishIdempotent", ss.FinishIdempotent(ctx, claim, 201, []byte("first")))
		rec, started, _ := ss.BeginIdempotent(ctx, "repeat:k", "h", t0.Add(keep), stale, keep)
		if started || string(rec.Body) != "first" {
			t.Fatalf("at the window's end: started %v, record %+v; want the first answer", started, rec)
		}
		rec, started, _ = ss.BeginIdempotent(ctx, "repeat:k", "h", t0.Add(keep+time.Millisecond), stale, keep)
		if !started || !rec.InProgress() {
			t.Fatalf("after the window: started %v, record %+v; want a fresh claim", started, rec)
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		ss := st.Studio(newStudio(t, st).ID)
		finish := func(key string, at time.Time) {
			t.Helper()
			claim, started, err := ss.BeginIdempotent(ctx, key, "h-"+key, at, stale, store.IdempotencyTTL)
			if err != nil || !started {
				t.Fatalf("claim %s: started %v, %v", key, started, err)
			}
			must(t, "FinishIdempotent "+key, ss.FinishIdempotent(ctx, claim, 200, []byte("{}")))
		}
		finish("day-old", t0)
		finish("half-day", t0.Add(12*time.Hour))
		// Before any upkeep runs, a record past its 24 hours is free anyway.
		now := t0.Add(store.IdempotencyTTL + time.Millisecond)
		dayOld, started, _ := ss.BeginIdempotent(ctx, "day-old", "other", now, stale, store.IdempotencyTTL)
		if !started || dayOld.RequestHash != "other" {
			t.Fatalf("a record past 24 hours: started %v, record %+v; want a new claim", started, dayOld)
		}
		if _, started, _ := ss.BeginIdempotent(ctx, "half-day", "other", now, stale, store.IdempotencyTTL); started {
			t.Fatal("a record 12 hours old was taken over")
		}
		must(t, "FinishIdempotent day-old", ss.FinishIdempotent(ctx, dayOld, 200, []byte("{}")))
		// Expiry deletes what was created before the cutoff, in any state.
		n, err := st.ExpireIdempotencyKeys(ctx, now.Add(-12*time.Hour))
		must(t, "ExpireIdempotencyKeys", err)
		if n < 1 {
			t.Fatalf("expired %d records; want at least half-day", n)
		}
		if _, started, _ := ss.BeginIdempotent(ctx, "half-day", "h2", now, stale, store.IdempotencyTTL); !started {
			t.Fatal("a record created before the cutoff survived expiry")
		}
		if rec, _, _ := ss.BeginIdempotent(ctx, "day-old", "h3", now, stale, store.IdempotencyTTL); rec.RequestHash != "other" {
			t.Fatalf("a record created after the cutoff was expired: %+v", rec)
		}
		// The daily upkeep expires on both engines and keeps recent records.
		finish("ancient", time.Unix(0, 0))
		finish("recent", time.Now())
		must(t, "Optimize", store.Optimize(ctx, st))
		if _, started, _ := ss.BeginIdempotent(ctx, "ancient", "h", time.Unix(0, 0), stale, store.IdempotencyTTL); !started {
			t.Fatal("store.Optimize left a record decades old")
		}
		if _, started, _ := ss.BeginIdempotent(ctx, "recent", "h-recent", time.Now(), stale, store.IdempotencyTTL); started {
			t.Fatal("store.Optimize deleted a record made just now")
		}
	})

	t.Run("Tenancy", func(t *testing.T) {
		a := st.Studio(newStudio(t, st).ID)
		b := st.Studio(newStudio(t, st).ID)
		claimA, _, err := a.BeginIdempotent(ctx, "shared", "ha", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent a", err)
		must(t, "FinishIdempotent a", a.FinishIdempotent(ctx, claimA, 201, []byte("a")))
		rec, started, err := b.BeginIdempotent(ctx, "shared", "hb", t0, stale, store.IdempotencyTTL)
		must(t, "BeginIdempotent b", err)
		if !started || rec.RequestHash != "hb" {
			t.Fatalf("studio B's claim: started %v, record %+v; want its own", started, rec)
		}
		// B releasing and finishing touches only B's row, even with A's
		// claim in hand.
		must(t, "ReleaseIdempotent b", b.ReleaseIdempotent(ctx, rec))
		must(t, "FinishIdempotent b", b.FinishIdempotent(ctx, claimA, 500, []byte("b")))
		must(t, "ReleaseIdempotent b with A's claim", b.ReleaseIdempotent(ctx, claimA))
		if rec, started, _ := a.BeginIdempotent(ctx, "shared", "ha", t0, stale, store.IdempotencyTTL); started || rec.Status != 201 || string(rec.Body) != "a" {
			t.Fatalf("studio A's record after B's calls: started %v, %+v", started, rec)
		}
	})
}

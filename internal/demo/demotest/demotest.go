// Package demotest gives tests the demo studio without seeding it for each
// one: the demo is seeded once per test binary and instant on a SQLite
// template, and every test gets its own copy (seeding took a second, ten
// under -race, and a dozen packages' tests read it).
package demotest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/demo"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

var now struct {
	once sync.Once
	t    time.Time
}

// Now is the instant Open seeds the demo at: the first call's time, the
// same for every test of the binary (so they share one seeding).
func Now() time.Time {
	now.once.Do(func() { now.t = time.Now().UTC() })
	return now.t
}

// Open is a fresh SQLite store holding the demo studio seeded at Now(),
// closed when the test ends.
func Open(t testing.TB, opts ...store.Option) (store.Store, domain.Studio) {
	t.Helper()
	return OpenAt(t, Now(), opts...)
}

// OpenAt is Open with the demo seeded at at (a test's fixed clock).
func OpenAt(t testing.TB, at time.Time, opts ...store.Option) (store.Store, domain.Studio) {
	t.Helper()
	st := storetest.OpenSQLiteSeeded(t, name(at), seeder(at), opts...)
	return st, studio(t, st)
}

// FileAt is the path of a fresh SQLite file holding the demo seeded at at,
// for a test that opens the store itself (a server from its
// configuration).
func FileAt(t testing.TB, at time.Time) string {
	t.Helper()
	return storetest.SeededSQLiteFile(t, name(at), seeder(at))
}

func name(at time.Time) string { return "demo@" + at.UTC().Format(time.RFC3339Nano) }

func seeder(at time.Time) func(context.Context, store.Store) error {
	return func(ctx context.Context, st store.Store) error {
		_, err := demo.SeedAt(ctx, st, at)
		return err
	}
}

func studio(t testing.TB, st store.Store) domain.Studio {
	t.Helper()
	s, err := st.StudioBySlug(context.Background(), demo.Slug)
	if err != nil {
		t.Fatalf("the demo studio: %v", err)
	}
	return s
}

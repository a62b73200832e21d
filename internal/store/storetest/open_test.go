package storetest

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// A seeded SQLite template is seeded once per name, and each test's copy
// is its own: what one copy writes, the next copy does not hold.
func TestSeededSQLiteCopiesAreTheirOwn(t *testing.T) {
	ctx := context.Background()
	var seeds atomic.Int32
	seed := func(ctx context.Context, st store.Store) error {
		seeds.Add(1)
		return st.CreateStudio(ctx, &domain.Studio{Name: "Seeded", Slug: "seeded"})
	}
	name := t.Name()
	a := OpenSQLiteSeeded(t, name, seed)
	if _, err := a.StudioBySlug(ctx, "seeded"); err != nil {
		t.Fatalf("the first copy lacks the seeded studio: %v", err)
	}
	if err := a.CreateStudio(ctx, &domain.Studio{Name: "Only in A", Slug: "only-a"}); err != nil {
		t.Fatal(err)
	}
	b := OpenSQLiteSeeded(t, name, seed)
	if _, err := b.StudioBySlug(ctx, "seeded"); err != nil {
		t.Fatalf("the second copy lacks the seeded studio: %v", err)
	}
	if _, err := b.StudioBySlug(ctx, "only-a"); err == nil {
		t.Fatal("the second copy holds what the first wrote")
	}
	if n := seeds.Load(); n != 1 {
		t.Fatalf("seeded %d times, want once", n)
	}
	if _, err := OpenSQLite(t).StudioBySlug(ctx, "seeded"); err == nil {
		t.Fatal("the migrated template holds the seeded studio")
	}
}

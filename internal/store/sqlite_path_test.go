package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// A SQLite path is a file name, whatever it holds: '#', '?' and '%' mean
// something in the file: URI the driver is given, and must not here.
func TestSQLitePathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"studio#1.db", "100%.db", "a%23b.db", "with space.db", "what?.db", "a?mode=ro.db"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			st, err := store.Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			studio := domain.Studio{Name: "Hash", Slug: "hash"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if _, err := os.Stat(path); err != nil || len(names) != 1 {
				t.Fatalf("the database is not the file %q alone: the directory holds %q", name, names)
			}
			again, err := store.Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if _, err := again.StudioBySlug(ctx, "hash"); err != nil {
				t.Fatalf("reopened %q: %v", name, err)
			}
		})
	}
}

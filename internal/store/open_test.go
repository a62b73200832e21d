package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/text"
)

// Two processes starting at once on one database both come up, and each
// migration is recorded once.
func TestOpenConcurrently(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "shared.db")
		openMany(t, path, 4)
		st, err := store.Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		checkMigrationsOnce(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		base := os.Getenv(storetest.PostgresEnv)
		if base == "" {
			t.Skip(storetest.PostgresEnv + " is not set")
		}
		// A fresh, empty schema: the concurrent opens race to migrate it.
		st, url := storetest.OpenPostgresSchema(t, base)
		if _, err := st.DB().ExecContext(ctx, `DROP TABLE schema_migrations, studios, river_migration CASCADE`); err != nil {
			t.Fatal(err)
		}
		schema := strings.TrimSuffix(strings.SplitN(strings.SplitN(url, "search_path=", 2)[1], "&", 2)[0], "%2Cpublic")
		if _, err := st.DB().ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB().ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
			t.Fatal(err)
		}
		openMany(t, url, 4)
		again, err := store.Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		checkMigrationsOnce(t, again)
	})
}

func openMany(t *testing.T, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := store.Open(context.Background(), url, nil)
			if err == nil {
				st.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Open: %v", err)
	}
}

func checkMigrationsOnce(t *testing.T, st store.Store) {
	t.Helper()
	want, err := store.Migrations(st.Engine())
	if err != nil {
		t.Fatal(err)
	}
	var n, distinct int
	if err := st.DB().QueryRow(`SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != len(want) || distinct != len(want) {
		t.Fatalf("schema_migrations has %d rows (%d distinct), want %d", n, distinct, len(want))
	}
	if err := store.Migrate(context.Background(), st.DB(), st.Engine()); err != nil {
		t.Fatalf("Migrate on an up-to-date database: %v", err)
	}
	var riverVersions int
	if err := st.DB().QueryRow(`SELECT count(*) FROM river_migration`).Scan(&riverVersions); err != nil || riverVersions == 0 {
		t.Fatalf("river migrations: %d rows, %v", riverVersions, err)
	}
}

// A CLI process and a server share one SQLite file: a key the CLI revokes
// is revoked for the server's very next lookup.
func TestSQLiteSharedBetweenProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "perform.db")
	server, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	cli, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	studio := domain.Studio{Name: "Shared", Slug: "shared"}
	if err := cli.CreateStudio(ctx, &studio); err != nil {
		t.Fatal(err)
	}
	secret := auth.NewKey()
	key := domain.APIKey{StudioID: studio.ID, Name: "ci", Prefix: auth.Display(secret), Hash: auth.Hash(secret)}
	if err := cli.CreateAPIKey(ctx, &key); err != nil {
		t.Fatal(err)
	}
	got, _, err := server.APIKeyByHash(ctx, auth.Hash(secret))
	if err != nil || got.RevokedAt != nil {
		t.Fatalf("server sees the new key: %+v, %v", got, err)
	}
	if err := cli.RevokeAPIKey(ctx, key.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	got, _, err = server.APIKeyByHash(ctx, auth.Hash(secret))
	if err != nil || got.RevokedAt == nil {
		t.Fatalf("server after the CLI revoked: %+v, %v", got, err)
	}
}

// Many concurrent writers on SQLite wait for the lock instead of failing
// with SQLITE_BUSY, from one store and from a second one on the same file.
func TestSQLiteConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "perform.db")
	a, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	studio := domain.Studio{Name: "Busy", Slug: "busy"}
	if err := a.CreateStudio(ctx, &studio); err != nil {
		t.Fatal(err)
	}
	const writers, each = 64, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := a
			if w%2 == 1 {
				st = b
			}
			for i := range each {
				tr := domain.Trainee{FirstName: "W", LastName: fmt.Sprint(w), Phone: fmt.Sprintf("+9725%08d", w*100+i), Tags: []string{fmt.Sprint("t", w%4)}}
				if err := st.Studio(studio.ID).CreateTrainee(ctx, &tr); err != nil {
					errs <- err
					return
				}
				if _, err := st.Studio(studio.ID).SearchTrainees(ctx, store.TraineeFilter{Q: "w", Page: store.Page{Limit: 5}}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent write: %v", err)
	}
	n, err := a.Studio(studio.ID).CountActiveTrainees(ctx)
	if err != nil || n != writers*each {
		t.Fatalf("CountActiveTrainees = %d, %v; want %d", n, err, writers*each)
	}
}

// FuzzTraineeSearchFindsSubstring: a piece of each word of a trainee's
// name, the pieces in any order and separated by any mix of spaces and
// hyphens, in any case, finds that trainee (through the trigram index or
// the short-word scan, whatever quotes or wildcards it holds), with an
// exact total.
func FuzzTraineeSearchFindsSubstring(f *testing.F) {
	f.Add("Dana", "Cohen", 0, 4, uint8(0))
	f.Add("Daniel", "Levi", 0, 9, uint8(1))
	f.Add("נועה", "כהן", 0, 3, uint8(1))
	f.Add("יעל", "בן-דוד", 1, 3, uint8(6))
	f.Add("Avi", "Ben-David", 0, 9, uint8(3))
	f.Add(`O"Brien`, "Smith", 0, 3, uint8(2))
	f.Add("50%", "Off_Peak", 2, 6, uint8(5))
	f.Add("a", "b", 0, 3, uint8(7))
	f.Add("Ärzte", "ÉCOLE", 0, 7, uint8(4))
	f.Add("ab\x00", "c", 0, 3, uint8(0))
	f.Add("\x00", "x", 0, 1, uint8(0))
	f.Add("a\xff", "b", 0, 2, uint8(0))
	st := storetest.OpenSQLite(f)
	ctx := context.Background()
	studio := domain.Studio{Name: "Fuzz", Slug: "fuzz"}
	if err := st.CreateStudio(ctx, &studio); err != nil {
		f.Fatal(err)
	}
	ss := st.Studio(studio.ID)
	seps := []string{" ", "  ", "-", " - ", "\t"}
	f.Fuzz(func(t *testing.T, first, last string, from, length int, order uint8) {
		if text.Problem(first+last) != "" {
			// Text the lane refuses (a NUL, invalid UTF-8, a control
			// character) never becomes a name, and a search for it is
			// refused rather than matching every trainee or failing.
			res, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: first + " " + last, Page: store.Page{Limit: 10}})
			if !errors.Is(err, store.ErrInvalidText) || res.Total != 0 {
				t.Fatalf("search %q: total %d, err %v; want ErrInvalidText", first+" "+last, res.Total, err)
			}
			return
		}
		if len(first)+len(last) > 200 || len(store.SearchWords(first)) == 0 || len(store.SearchWords(last)) == 0 || from < 0 || length <= 0 {
			return
		}
		// A piece of every word, the pieces rotated and reversed by order.
		var pieces []string
		for _, w := range store.SearchWords(first + " " + last) {
			rs := []rune(w)
			start := min(from, len(rs)-1)
			pieces = append(pieces, string(rs[start:min(len(rs), start+length)]))
		}
		k := int(order) % len(pieces)
		pieces = append(pieces[k:], pieces[:k]...)
		if order&0x80 != 0 {
			slices.Reverse(pieces)
		}
		var q strings.Builder
		for i, p := range pieces {
			if i > 0 {
				q.WriteString(seps[(int(order)+i)%len(seps)])
			}
			if order&0x40 != 0 {
				p = strings.ToUpper(p)
			}
			q.WriteString(p)
		}
		if !slices.Equal(store.QueryWords(q.String()), pieces) {
			return // phone-like or case-folding-changed input: another property
		}
		tr := domain.Trainee{FirstName: first, LastName: last, Phone: fmt.Sprintf("+97259%07d", time.Now().UnixNano()%10_000_000)}
		if err := ss.CreateTrainee(ctx, &tr); err != nil {
			var ce *store.ConflictError
			if errors.As(err, &ce) {
				return
			}
			t.Fatal(err)
		}
		defer ss.DeleteTrainee(ctx, tr.ID)
		got, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: q.String(), Page: store.Page{Limit: 200}})
		if err != nil {
			t.Fatalf("search %q: %v", q.String(), err)
		}
		found := false
		for _, it := range got.Items {
			found = found || it.ID == tr.ID
		}
		if !found || got.Total < len(got.Items) {
			t.Fatalf("search %q for %q %q: total %d, found=%v", q.String(), first, last, got.Total, found)
		}
	})
}

// A database migrated before the phone suffix and trigram tables existed
// gets its trainees' suffixes, trigrams and search documents backfilled.
func TestPhoneSuffixBackfill(t *testing.T) {
	ctx := context.Background()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			studio := domain.Studio{Name: "Old", Slug: "old"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			email := "noa@example.com"
			tr := domain.Trainee{FirstName: "Noa", LastName: "Ben-Old", Phone: "+972521234567", Email: &email}
			if err := st.Studio(studio.ID).CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
			// Back to the state before 0002: no suffixes, no trigrams, phones
			// in the document, the name as typed.
			// Back to the state before 0002: no suffixes, no trigrams, no name
			// keys, phones in the document, the name as typed.
			undo := []string{`DROP TABLE trainee_phone_suffixes`, `DROP TABLE trainee_trigrams`, `DROP TABLE trainee_name_keys`,
				`UPDATE trainees SET search_doc = 'noa ben-old | 972521234567 | 0521234567'`,
				`DELETE FROM schema_migrations WHERE version IN ('0002_phone_suffixes', '0020_search_words', '0750_name_keys')`}
			if st.Engine() == store.EnginePostgres {
				undo = append(undo, `ALTER TABLE trainees DROP COLUMN seq`)
			}
			for _, q := range undo {
				if _, err := st.DB().ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := store.Migrate(ctx, st.DB(), st.Engine()); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"0521234", "97252", "noa ben old", "old-noa", "example.com"} {
				got, err := st.Studio(studio.ID).SearchTrainees(ctx, store.TraineeFilter{Q: q, Page: store.Page{Limit: 5}})
				if err != nil || got.Total != 1 || got.Items[0].ID != tr.ID {
					t.Fatalf("search %q after backfill: %+v, %v", q, got, err)
				}
			}
			// 0750 backfilled the name keys: the name in Hebrew letters finds her.
			if got, err := st.Studio(studio.ID).SearchTrainees(ctx, store.TraineeFilter{Q: "נועה", Sounds: true, Page: store.Page{Limit: 5}}); err != nil || got.Total != 1 {
				t.Fatalf("sounds search after backfill: %+v, %v", got, err)
			}
			near, err := st.Studio(studio.ID).NearTrainees(ctx, store.TraineeFilter{Q: "Ben-Olt"}, 5)
			if err != nil || len(near) != 1 || near[0].ID != tr.ID {
				t.Fatalf("near match after backfill: %v, %v", near, err)
			}
		})
	}
}

// Optimize keeps every search answer the same.
func TestOptimize(t *testing.T) {
	ctx := context.Background()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			studio := domain.Studio{Name: "Upkeep", Slug: "upkeep"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			ss := st.Studio(studio.ID)
			for i := range 30 {
				tr := domain.Trainee{FirstName: fmt.Sprint("Name", i), LastName: "Upkeep", Phone: fmt.Sprintf("+97250%07d", i)}
				if err := ss.CreateTrainee(ctx, &tr); err != nil {
					t.Fatal(err)
				}
			}
			before, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "name1", Page: store.Page{Limit: 50}})
			if err != nil || before.Total != 11 {
				t.Fatalf("before: %d, %v; want 11 (name1, name10..name19)", before.Total, err)
			}
			if err := store.Optimize(ctx, st); err != nil {
				t.Fatal(err)
			}
			after, err := ss.SearchTrainees(ctx, store.TraineeFilter{Q: "name1", Page: store.Page{Limit: 50}})
			if err != nil || after.Total != before.Total {
				t.Fatalf("after Optimize: %d, %v; want %d", after.Total, err, before.Total)
			}
		})
	}
}

// WithMaxConns sizes the PostgreSQL pool; without it the pool keeps its
// default, so several instances can be fitted under max_connections.
func TestPostgresPoolSize(t *testing.T) {
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skip(storetest.PostgresEnv + " is not set")
	}
	st, url := storetest.OpenPostgresSchema(t, base)
	if got, want := st.DB().Stats().MaxOpenConnections, max(8, 2*runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("default pool: %d connections, want %d", got, want)
	}
	small, err := store.Open(context.Background(), url, nil, store.WithMaxConns(3))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	if got := small.DB().Stats().MaxOpenConnections; got != 3 {
		t.Errorf("WithMaxConns(3): %d connections", got)
	}
}

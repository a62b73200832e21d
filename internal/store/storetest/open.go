// Package storetest is the contract every store engine passes, and helpers
// that give other packages' tests a fresh, migrated store on each engine.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for schema set-up

	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

// PostgresEnv names the variable holding the Postgres URL tests may use.
const PostgresEnv = "PERFORM_TEST_POSTGRES_URL"

// OpenSQLite returns a migrated store on a fresh SQLite file in t's temp
// directory, closed when the test ends. The file is a copy of a migrated
// one (sqliteTemplate): a copy takes a few milliseconds, migrating tens
// to hundreds on a busy machine.
func OpenSQLite(t testing.TB, opts ...store.Option) store.Store {
	t.Helper()
	return openSQLiteFile(t, SQLiteFile(t), opts...)
}

// SQLiteFile is the path of a fresh copy of the migrated SQLite template
// in t's temp directory, for a test that opens the store itself (a server
// from its configuration, a child process).
func SQLiteFile(t testing.TB) string {
	t.Helper()
	data, err := sqliteTemplate()
	if err != nil {
		t.Fatalf("sqlite test template: %v", err)
	}
	return writeSQLiteFile(t, data)
}

// OpenSQLiteSeeded is OpenSQLite on a database seed has filled: seed runs
// once per test binary and name, on a migrated template, and each test
// gets a copy of the result. seed must depend on nothing but its name (a
// fixed clock, say), for every test of that name shares what it wrote.
func OpenSQLiteSeeded(t testing.TB, name string, seed func(context.Context, store.Store) error, opts ...store.Option) store.Store {
	t.Helper()
	return openSQLiteFile(t, SeededSQLiteFile(t, name, seed), opts...)
}

// SeededSQLiteFile is SQLiteFile for OpenSQLiteSeeded's database.
func SeededSQLiteFile(t testing.TB, name string, seed func(context.Context, store.Store) error) string {
	t.Helper()
	v, _ := seeded.LoadOrStore(name, &template{})
	tpl := v.(*template)
	tpl.once.Do(func() { tpl.data, tpl.err = buildSeeded(seed) })
	if tpl.err != nil {
		t.Fatalf("sqlite test template %q: %v", name, tpl.err)
	}
	return writeSQLiteFile(t, tpl.data)
}

// seeded holds the seeded templates of this test binary, by name.
var seeded sync.Map // name → *template

// template is a database file's bytes, built once.
type template struct {
	once sync.Once
	data []byte
	err  error
}

func buildSeeded(seed func(context.Context, store.Store) error) ([]byte, error) {
	base, err := sqliteTemplate()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "perform-test-seed-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "seed.db")
	if err := os.WriteFile(path, base, 0o600); err != nil {
		return nil, err
	}
	ctx := context.Background()
	st, err := store.Open(ctx, path, quietLogger())
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := seed(ctx, st); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return vacuumInto(st, filepath.Join(dir, "seeded.db"))
}

// vacuumInto writes st's database to path as one self-contained file
// (nothing left in a WAL) and returns its bytes.
func vacuumInto(st store.Store, path string) ([]byte, error) {
	db, err := store.Pool(st)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(context.Background(), "VACUUM INTO ?", path); err != nil {
		return nil, fmt.Errorf("copy the database: %w", err)
	}
	return os.ReadFile(path)
}

func writeSQLiteFile(t testing.TB, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "perform.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func openSQLiteFile(t testing.TB, path string, opts ...store.Option) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, quietLogger(), opts...)
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// sqliteTpl is the migrated template, built once per test binary.
var sqliteTpl template

// sqliteTemplate is a SQLite database migrated to this binary's migrations.
// It is kept in the system's temp directory under the migrations' digest,
// so the next run and other test binaries with the same migrations read it
// instead of migrating; it is written whole under a temporary name and
// renamed into place, so no process reads half of one.
func sqliteTemplate() ([]byte, error) {
	sqliteTpl.once.Do(func() { sqliteTpl.data, sqliteTpl.err = buildSQLiteTemplate() })
	return sqliteTpl.data, sqliteTpl.err
}

func buildSQLiteTemplate() ([]byte, error) {
	digest, err := store.MigrationsDigest(store.EngineSQLite)
	if err != nil {
		return nil, err
	}
	final := filepath.Join(os.TempDir(), "perform-test-"+digest[:16]+".db")
	if data, err := os.ReadFile(final); err == nil {
		return data, nil
	}
	dir, err := os.MkdirTemp("", "perform-test-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	st, err := store.Open(context.Background(), filepath.Join(dir, "migrate.db"), quietLogger())
	if err != nil {
		return nil, err
	}
	defer st.Close()
	built := filepath.Join(dir, "template.db")
	data, err := vacuumInto(st, built)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(built, final); err != nil {
		return nil, err
	}
	return data, nil
}

// OpenPostgres returns a migrated store in a fresh schema of the database
// PERFORM_TEST_POSTGRES_URL names, dropped when the test ends. It skips
// the test when the variable is unset.
func OpenPostgres(t testing.TB, opts ...store.Option) store.Store {
	t.Helper()
	st, _ := OpenPostgresSchema(t, PostgresURL(t), opts...)
	return st
}

// OpenPostgresSchema is OpenPostgres on an explicit URL; it also returns the
// URL of the fresh schema (so a test can open a second process's store on
// it). The schema comes from a pool of migrated ones (see pgPool), reset to
// its just-migrated state in one statement instead of migrated anew.
func OpenPostgresSchema(t testing.TB, base string, opts ...store.Option) (store.Store, string) {
	t.Helper()
	ctx := context.Background()
	pool, err := postgresPool(base)
	if err != nil {
		t.Fatalf("postgres test schemas: %v", err)
	}
	schema, err := pool.acquire(ctx)
	if err != nil {
		t.Fatalf("postgres test schema: %v", err)
	}
	t.Cleanup(func() { pool.release(schema) })
	u, err := schemaURL(base, schema)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	st, err := store.Open(ctx, u, quietLogger(), opts...)
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st, u
}

// schemaURL is base with its search path set to schema. pg_trgm lives in
// public; the schema comes first so every table is ours.
func schemaURL(base, schema string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	// A test's commits need not outlive a crash of the database server, so
	// they do not wait for the write-ahead log to reach the disk (the lane's
	// PostgreSQL route sweeps took a tenth longer waiting). Only the test
	// schemas' connections set it.
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Engines returns an opener per engine: sqlite and postgres. The postgres
// opener skips its test, visibly, when PERFORM_TEST_POSTGRES_URL is unset
// (.ci/run fails on such a skip). Use it to run a test on both:
//
//	for name, open := range storetest.Engines(t) {
//		t.Run(name, func(t *testing.T) { st := open(t); … })
//	}
func Engines(t testing.TB) map[string]func(*testing.T) store.Store {
	return map[string]func(*testing.T) store.Store{
		store.EngineSQLite:   func(t *testing.T) store.Store { return OpenSQLite(t) },
		store.EnginePostgres: func(t *testing.T) store.Store { return OpenPostgres(t) },
	}
}

// Opener opens a fresh store on one engine with the options given.
type Opener func(t *testing.T, opts ...store.Option) store.Store

// Openers is Engines with options (a fixed clock, say), what Run takes.
func Openers(t testing.TB) map[string]Opener {
	return map[string]Opener{
		store.EngineSQLite:   func(t *testing.T, opts ...store.Option) store.Store { return OpenSQLite(t, opts...) },
		store.EnginePostgres: func(t *testing.T, opts ...store.Option) store.Store { return OpenPostgres(t, opts...) },
	}
}

// PostgresURL is PERFORM_TEST_POSTGRES_URL; it skips the test when unset.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	return base
}

// RedisEnv names the variable holding the Redis URL tests may use.
const RedisEnv = "PERFORM_TEST_REDIS_URL"

// RedisURL is PERFORM_TEST_REDIS_URL; it skips the test when unset.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(RedisEnv)
	if u == "" {
		t.Skip(RedisEnv + " is not set")
	}
	return u
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func quietLogger() *slog.Logger { return testkit.QuietLogger(slog.LevelWarn) }

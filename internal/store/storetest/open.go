// Package storetest is the contract every store engine passes, and helpers
// that give other packages' tests a fresh, migrated store on each engine.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for schema set-up

	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
)

// PostgresEnv names the variable holding the Postgres URL tests may use.
const PostgresEnv = "PERFORM_TEST_POSTGRES_URL"

// OpenSQLite returns a migrated store on a fresh SQLite file in t's temp
// directory, closed when the test ends.
func OpenSQLite(t testing.TB, opts ...store.Option) store.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "perform.db")
	st, err := store.Open(context.Background(), path, quietLogger(), opts...)
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
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

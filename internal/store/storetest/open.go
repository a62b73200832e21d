// Package storetest is the contract every store engine passes, and helpers
// that give other packages' tests a fresh, migrated store on each engine.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for schema set-up

	"github.com/otherwise/perform/internal/store"
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
// URL of the fresh schema (so a test can open a second process's store on it).
func OpenPostgresSchema(t testing.TB, base string, opts ...store.Option) (store.Store, string) {
	t.Helper()
	ctx := context.Background()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	defer admin.Close()
	ensureTrigram(t, admin)
	schema := "t_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	// pg_trgm lives in public; the schema comes first so every table is ours.
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	st, err := store.Open(ctx, u.String(), quietLogger(), opts...)
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st, u.String()
}

// ensureTrigram installs pg_trgm in public once per database, so each
// test schema finds it there (CREATE EXTENSION IF NOT EXISTS then no-ops).
func ensureTrigram(t testing.TB, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	var installed bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')").Scan(&installed); err != nil {
		t.Fatalf("check pg_trgm: %v", err)
	}
	if installed {
		return
	}
	// Serialise with other test processes doing the same.
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(7486024001)"); err != nil {
		t.Fatalf("lock: %v", err)
	}
	defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock(7486024001)") //nolint:errcheck
	if _, err := conn.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public"); err != nil {
		t.Fatalf("create extension pg_trgm: %v", err)
	}
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

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

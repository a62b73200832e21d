package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// migrationLockID seeds the Postgres advisory lock key that serialises
// migrations of processes starting at once ("perform" in ASCII); the key is
// its hash with the schema migrated (current_schema()), so processes
// migrating different schemas of one database (tests) do not wait on each
// other.
const migrationLockID int64 = 0x706572666f726d

// Migrate applies every pending migration of the engine's dialect, in
// lexical order, each once and in its own transaction, then River's.
// Two processes may call it at once: Postgres serialises them on an advisory
// lock, SQLite on its immediate write transaction.
func Migrate(ctx context.Context, db *sql.DB, engine string) error {
	return migrate(ctx, db, engine, slog.Default())
}

// Migration is one embedded migration file.
type Migration struct {
	Version string // the file name without ".sql", e.g. "0001_core"
	SQL     string
}

// Migrations lists the embedded migrations of an engine in the order they apply.
func Migrations(engine string) ([]Migration, error) {
	dir := path.Join("migrations", engine)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, fmt.Errorf("no migrations for engine %q: %w", engine, err)
	}
	var out []Migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		body, err := fs.ReadFile(migrationFiles, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: strings.TrimSuffix(e.Name(), ".sql"), SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

func migrate(ctx context.Context, db *sql.DB, engine string, logger *slog.Logger) error {
	migrations, err := Migrations(engine)
	if err != nil {
		return err
	}
	switch engine {
	case EnginePostgres:
		// A session advisory lock held on one connection for the whole run,
		// River's migrations included, so a second process waits and then
		// finds nothing left to do.
		conn, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(hashtextextended(current_schema(), $1))", migrationLockID); err != nil {
			return fmt.Errorf("migrate: take the migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtextextended(current_schema(), $1))", migrationLockID) //nolint:errcheck // released with the session anyway
		if err := applyMigrations(ctx, db, engine, migrations, logger); err != nil {
			return err
		}
		return migrateRiver(ctx, db, engine, logger)
	case EngineSQLite:
		if err := applyMigrations(ctx, db, engine, migrations, logger); err != nil {
			return err
		}
		// River migrates each version in its own transaction; when another
		// process applies the same version first, ours fails on the
		// duplicate and a second pass finds it done.
		var riverErr error
		for attempt := 0; attempt < 5; attempt++ {
			if riverErr = migrateRiver(ctx, db, engine, logger); riverErr == nil {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
			}
		}
		return riverErr
	default:
		return fmt.Errorf("unknown database engine %q", engine)
	}
}

// applyMigrations runs each pending file in a transaction with its record in
// schema_migrations. On SQLite the transaction is BEGIN IMMEDIATE (the DSN's
// _txlock), so the check for "already applied" and the apply are one step.
func applyMigrations(ctx context.Context, db *sql.DB, engine string, migrations []Migration, logger *slog.Logger) error {
	create := `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`
	if _, err := db.ExecContext(ctx, create); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	// One read finds what is applied already (every migration, on all
	// but the first start); each one missing is checked again inside its
	// own transaction, where another process may have applied it since.
	applied, err := appliedVersions(ctx, db)
	if err != nil {
		return fmt.Errorf("migrate: read schema_migrations: %w", err)
	}
	check := rebind(engine, `SELECT count(*) FROM schema_migrations WHERE version = ?`)
	record := rebind(engine, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`)
	for _, m := range migrations {
		if applied[m.Version] {
			continue
		}
		err := func() error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback() //nolint:errcheck // no-op after commit
			var n int
			if err := tx.QueryRowContext(ctx, check, m.Version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return err
			}
			if step := goMigrations[m.Version]; step != nil {
				if err := step(ctx, tx, engine); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, record, m.Version, time.Now().UnixMilli()); err != nil {
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
			logger.InfoContext(ctx, "applied migration", "engine", engine, "version", m.Version)
			return nil
		}()
		if err != nil {
			return fmt.Errorf("migrate %s %s: %w", engine, m.Version, err)
		}
	}
	return nil
}

func appliedVersions(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[string]bool{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

func migrateRiver(ctx context.Context, db *sql.DB, engine string, logger *slog.Logger) error {
	var err error
	cfg := &rivermigrate.Config{Logger: logger}
	if engine == EnginePostgres {
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riverdatabasesql.New(db), cfg); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	} else {
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riversqlite.New(db), cfg); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	}
	if err != nil {
		return fmt.Errorf("migrate river on %s: %w", engine, err)
	}
	return nil
}

// goMigrations are steps in Go that follow a migration's SQL in its
// transaction, for data SQL cannot compute (phone formats need libphonenumber).
var goMigrations = map[string]func(ctx context.Context, tx *sql.Tx, engine string) error{
	"0002_phone_suffixes": backfillTraineeSearch,
	"0101_agent_studios":  backfillCoachPhoneKeys,
	"0020_search_words":   backfillTraineeWords,
	"0750_name_keys":      backfillNameKeys,
	"0800_money_minor":    convertPricesToMinor,
}

// backfillNameKeys writes every trainee's name sound keys.
func backfillNameKeys(ctx context.Context, tx *sql.Tx, engine string) error {
	return rewriteTraineeSearch(ctx, tx, engine, func(r traineeSearchRow) error {
		return writeNameKeys(ctx, tx, engine, r.studioID, r.id, r.first, r.last)
	})
}

// backfillTraineeWords rewrites every trainee's search document in words
// and writes their name trigrams.
func backfillTraineeWords(ctx context.Context, tx *sql.Tx, engine string) error {
	return rewriteTraineeSearch(ctx, tx, engine, func(r traineeSearchRow) error {
		return writeTrigrams(ctx, tx, engine, r.studioID, r.id, r.first, r.last)
	})
}

// backfillTraineeSearch rewrites every trainee's search document (phones
// left it for the suffix table) and phone suffixes.
func backfillTraineeSearch(ctx context.Context, tx *sql.Tx, engine string) error {
	return rewriteTraineeSearch(ctx, tx, engine, func(r traineeSearchRow) error {
		return writeDigitSuffixes(ctx, tx, engine, r.studioID, r.id, DigitSuffixes(r.phone, r.first, r.last, r.email.V))
	})
}

// traineeSearchRow is what a search backfill reads of a trainee.
type traineeSearchRow struct {
	studioID, id, first, last, phone string
	email                            sql.Null[string]
}

// rewriteTraineeSearch rewrites every trainee's search document and then
// calls also for it, to write the search keys a migration adds.
func rewriteTraineeSearch(ctx context.Context, tx *sql.Tx, engine string, also func(traineeSearchRow) error) error {
	rows, err := tx.QueryContext(ctx, `SELECT studio_id, id, first_name, last_name, phone, email FROM trainees`)
	if err != nil {
		return err
	}
	var all []traineeSearchRow
	for rows.Next() {
		var r traineeSearchRow
		if err := rows.Scan(&r.studioID, &r.id, &r.first, &r.last, &r.phone, &r.email); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	update := rebind(engine, `UPDATE trainees SET search_doc = ? WHERE studio_id = ? AND id = ?`)
	for _, r := range all {
		if _, err := tx.ExecContext(ctx, update, SearchDoc(r.first, r.last, valueOrNil(r.email)), r.studioID, r.id); err != nil {
			return err
		}
		if err := also(r); err != nil {
			return err
		}
	}
	return nil
}

// backfillCoachPhoneKeys writes the lookup form of every coach's phone.
func backfillCoachPhoneKeys(ctx context.Context, tx *sql.Tx, engine string) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, phone FROM coaches WHERE phone IS NOT NULL`)
	if err != nil {
		return err
	}
	keys := map[string]any{}
	for rows.Next() {
		var id, p string
		if err := rows.Scan(&id, &p); err != nil {
			rows.Close()
			return err
		}
		keys[id] = coachPhoneKey(&p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	update := rebind(engine, `UPDATE coaches SET phone_key = ? WHERE id = ?`)
	for id, key := range keys {
		if _, err := tx.ExecContext(ctx, update, key, id); err != nil {
			return err
		}
	}
	return nil
}

// MigrationsDigest is a hex SHA-256 of every migration an engine applies,
// Perform's and River's, in order: two databases migrated by binaries with
// the same digest have the same schema. Tests key migrated templates by it.
func MigrationsDigest(engine string) (string, error) {
	migrations, err := Migrations(engine)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, m := range migrations {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", m.Version, len(m.SQL), m.SQL)
	}
	var river []rivermigrate.Migration
	if engine == EnginePostgres {
		m, err := rivermigrate.New(riverdatabasesql.New(nil), nil)
		if err != nil {
			return "", err
		}
		river = m.AllVersions()
	} else {
		m, err := rivermigrate.New(riversqlite.New(nil), nil)
		if err != nil {
			return "", err
		}
		river = m.AllVersions()
	}
	for _, m := range river {
		fmt.Fprintf(h, "river\x00%d\x00%d\x00%s\x00", m.Version, len(m.SQLUp), m.SQLUp)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqlStore implements Store on database/sql for both engines. Queries are
// written once with ? placeholders; q() rebinds them for Postgres.
type sqlStore struct {
	db     *sql.DB
	tx     *sql.Tx // set inside InTx
	engine string
}

func newSQLStore(db *sql.DB, engine string) *sqlStore {
	return &sqlStore{db: db, engine: engine}
}

func (s *sqlStore) DB() *sql.DB            { return s.db }
func (s *sqlStore) SQLTx() *sql.Tx         { return s.tx }
func (s *sqlStore) Engine() string         { return s.engine }
func (s *sqlStore) Rebind(q string) string { return rebind(s.engine, q) }

func (s *sqlStore) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

func (s *sqlStore) Close() error {
	if s.tx != nil {
		return errors.New("store: Close called on a transaction-bound store")
	}
	return s.db.Close()
}

// conn is the transaction when bound to one, else the pool.
func (s *sqlStore) conn() querier {
	if s.tx != nil {
		return s.tx
	}
	return s.db
}

func (s *sqlStore) InTx(ctx context.Context, fn func(tx Store) error) error {
	if s.tx != nil {
		return fn(s) // already in one: join it
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(&sqlStore{db: s.db, tx: tx, engine: s.engine}); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// atomic runs fn in the bound transaction, or in a fresh one.
func (s *sqlStore) atomic(ctx context.Context, fn func(q querier) error) error {
	if s.tx != nil {
		return fn(s.tx)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// q returns the query in the engine's placeholder form.
func (s *sqlStore) q(query string) string { return rebind(s.engine, query) }

func (s *sqlStore) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.conn().ExecContext(ctx, s.q(query), args...)
}

func (s *sqlStore) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.conn().QueryContext(ctx, s.q(query), args...)
}

func (s *sqlStore) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return s.conn().QueryRowContext(ctx, s.q(query), args...)
}

// rebound caches the Postgres form of each query string.
var rebound sync.Map // string -> string

// rebind turns ? placeholders into $1, $2, … for Postgres. Question marks
// inside string literals are left alone.
func rebind(engine, query string) string {
	if engine != EnginePostgres {
		return query
	}
	if v, ok := rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	inString := false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			inString = !inString
			b.WriteByte(c)
		case c == '?' && !inString:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	rebound.Store(query, out)
	return out
}

// placeholders returns "?, ?, ?" for n values.
func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// notFound maps sql.ErrNoRows to ErrNotFound and leaves other errors be.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// missing is ErrNotFound with the id and noun the caller asked for, so the
// lane can say which id was wrong; errors.Is(err, ErrNotFound) holds.
func missing(noun, id string) error {
	return fmt.Errorf("%w: no %s with id %s in this studio", ErrNotFound, noun, id)
}

// isUniqueViolation reports whether err is a unique or primary key conflict.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	return false
}

// isForeignKeyViolation reports whether err is a foreign key failure.
func isForeignKeyViolation(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23503"
	}
	return false
}

// Instants are stored as unix milliseconds.

func ms(t time.Time) int64 { return t.UnixMilli() }

func msPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

func nullString(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

func nullFloat(v sql.NullFloat64) *float64 {
	if !v.Valid {
		return nil
	}
	f := v.Float64
	return &f
}

func nullInt(v sql.NullInt64) *int {
	if !v.Valid {
		return nil
	}
	i := int(v.Int64)
	return &i
}

func nullBool(v sql.NullBool) *bool {
	if !v.Valid {
		return nil
	}
	b := v.Bool
	return &b
}

// now is the store's clock in milliseconds, truncated so a value written
// reads back equal.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// likePattern escapes % _ and \ for LIKE … ESCAPE '\' and wraps s in %.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// pageArgs clamps a page to sane bounds (the lane validates it first).
func pageArgs(p Page) (limit, offset int) {
	limit, offset = p.Limit, p.Offset
	if limit <= 0 {
		limit = 50
	}
	if limit > 1000 {
		limit = 1000
	}
	if offset < 0 {
		offset = 0
	}
	return limit, offset
}

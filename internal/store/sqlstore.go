package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	stmts  *stmtCache // shared by the store and its transactions
	// writer is held by this process's one SQLite writer (nil on
	// Postgres). Writers queue here, holding no connection, instead of
	// each taking a pooled connection and sleeping on the file lock:
	// blocked writers cannot starve the pool, and the queue is FIFO-ish
	// rather than SQLite's backoff sleeps. Other processes still meet
	// busy_timeout.
	writer chan struct{}
	// clock stamps the rows the store times itself (created_at when the
	// caller left it zero, updated_at); the server passes its own.
	clock func() time.Time
}

func newSQLStore(db *sql.DB, engine string, clock func() time.Time) *sqlStore {
	if clock == nil {
		clock = time.Now
	}
	s := &sqlStore{db: db, engine: engine, stmts: &stmtCache{}, clock: clock}
	if engine == EngineSQLite {
		s.writer = make(chan struct{}, 1)
	}
	return s
}

// writerWait bounds the wait for the writer slot, like busy_timeout does
// for the file lock.
const writerWait = 30 * time.Second

// errWriterBusy is returned when the writer slot stays taken: usually a
// write on the store while a transaction of the same store is open.
var errWriterBusy = errors.New("store: the database stayed busy with other writes for 30s; retry the request")

// lockWriter takes the writer slot; the returned func gives it back.
func (s *sqlStore) lockWriter(ctx context.Context) (func(), error) {
	if s.writer == nil {
		return func() {}, nil
	}
	timer := time.NewTimer(writerWait)
	defer timer.Stop()
	select {
	case s.writer <- struct{}{}:
		return func() { <-s.writer }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, errWriterBusy
	}
}

// stmtCache keeps SQLite statements prepared: modernc.org/sqlite parses a
// query on every call otherwise, which costs as much as running a point
// lookup. (pgx caches prepared statements per connection by itself.)
type stmtCache struct {
	m sync.Map // query -> *sql.Stmt
	n atomic.Int64
}

// maxCachedStmts bounds the cache; the store's queries are a fixed set plus
// IN lists of up to a page's length, well under it.
const maxCachedStmts = 2000

// runner runs queries on the transaction or the pool, through prepared
// statements on SQLite.
type runner struct{ s *sqlStore }

func (r runner) stmt(ctx context.Context, query string) *sql.Stmt {
	if r.s.engine != EngineSQLite {
		return nil
	}
	c := r.s.stmts
	v, ok := c.m.Load(query)
	if r.s.tx != nil {
		// Inside a transaction only a statement already cached is used:
		// preparing a new one would take a second connection from the pool
		// while this one holds the write lock, and with every connection
		// in that state the pool deadlocks.
		if !ok {
			return nil
		}
		return r.s.tx.StmtContext(ctx, v.(*sql.Stmt))
	}
	if !ok {
		if c.n.Load() >= maxCachedStmts {
			return nil
		}
		st, err := r.s.db.PrepareContext(ctx, query)
		if err != nil {
			return nil // let the plain call report the error
		}
		var loaded bool
		if v, loaded = c.m.LoadOrStore(query, st); loaded {
			st.Close()
		} else {
			c.n.Add(1)
		}
	}
	return v.(*sql.Stmt)
}

func (r runner) plain() querier {
	if r.s.tx != nil {
		return r.s.tx
	}
	return r.s.db
}

func (r runner) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if r.s.tx == nil {
		unlock, err := r.s.lockWriter(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	if st := r.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return r.plain().ExecContext(ctx, query, args...)
}

func (r runner) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := r.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return r.plain().QueryContext(ctx, query, args...)
}

func (r runner) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := r.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return r.plain().QueryRowContext(ctx, query, args...)
}

func (s *sqlStore) DB() *sql.DB { return s.db }

// Pool is the connection pool of a store Open returned, for what must run
// beside the store on its own database: River's driver takes a *sql.DB.
// A store bound to a transaction, or any other Store, has none to give.
func Pool(st Store) (*sql.DB, error) {
	s, ok := st.(*sqlStore)
	switch {
	case !ok:
		return nil, fmt.Errorf("store: a %T has no database pool; pass the store store.Open returned", st)
	case s.tx != nil:
		return nil, errors.New("store: a store bound to a transaction has no pool of its own; pass the store store.Open returned")
	}
	return s.db, nil
}
func (s *sqlStore) SQLTx() *sql.Tx         { return s.tx }
func (s *sqlStore) Engine() string         { return s.engine }
func (s *sqlStore) Rebind(q string) string { return rebind(s.engine, q) }

func (s *sqlStore) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

func (s *sqlStore) Close() error {
	if s.tx != nil {
		return errors.New("store: Close called on a transaction-bound store")
	}
	s.stmts.m.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	return s.db.Close()
}

// conn runs on the transaction when bound to one, else on the pool.
func (s *sqlStore) conn() querier { return runner{s} }

// bound is this store on transaction tx.
func (s *sqlStore) bound(tx *sql.Tx) *sqlStore {
	return &sqlStore{db: s.db, tx: tx, engine: s.engine, stmts: s.stmts, writer: s.writer, clock: s.clock}
}

func (s *sqlStore) InTx(ctx context.Context, fn func(tx Store) error) error {
	if s.tx != nil {
		return fn(s) // already in one: join it
	}
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(s.bound(tx)); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// atomic runs fn in the bound transaction, or in a fresh one.
func (s *sqlStore) atomic(ctx context.Context, fn func(q querier) error) error {
	if s.tx != nil {
		return fn(s.conn())
	}
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(runner{s.bound(tx)}); err != nil {
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

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
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

// valueOrNil turns a nullable column into the domain's optional field.
func valueOrNil[T any](v sql.Null[T]) *T {
	if !v.Valid {
		return nil
	}
	return &v.V
}

// now is the store's clock in milliseconds, truncated so a value written
// reads back equal.
func (s *sqlStore) now() time.Time { return s.clock().UTC().Truncate(time.Millisecond) }

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

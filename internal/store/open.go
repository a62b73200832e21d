package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Engines.
const (
	EngineSQLite   = "sqlite"
	EnginePostgres = "postgres"
)

// DefaultSQLitePath is the database file used when no URL is configured.
const DefaultSQLitePath = "perform.db"

// sqliteBusyTimeout is how long a SQLite writer waits for the file lock.
const sqliteBusyTimeout = 30 * time.Second

// sqlitePragmas make one file safe to share between a server and a CLI
// process: WAL lets readers run beside the one writer, busy_timeout makes a
// writer wait for the lock instead of failing, and immediate transactions
// take the write lock up front so two transactions never deadlock upgrading
// a read lock. Each connection may cache up to 32 MiB of pages (SQLite's
// default is 2 MiB): a studio-wide read such as the roster triage otherwise
// rereads its indexes from the file on every call. The cache only grows to
// what is read, so a small studio's stays small.
var sqlitePragmas = []string{
	fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()),
	"journal_mode(WAL)",
	"synchronous(NORMAL)",
	"foreign_keys(ON)",
	"cache_size(-32768)",
}

// EngineOf tells which engine a database URL selects: "" and anything that
// is not a postgres:// or postgresql:// URL is a SQLite file path.
func EngineOf(databaseURL string) string {
	lower := strings.ToLower(databaseURL)
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		return EnginePostgres
	}
	return EngineSQLite
}

// sqlitePath is the file a SQLite database URL names: a plain path is a
// file name whatever it holds ("what?.db" is that file), and a file: URI
// loses its options (ours are set in SQLiteDSN).
func sqlitePath(path string) string {
	if path == "" {
		path = DefaultSQLitePath
	}
	rest, uri := strings.CutPrefix(path, "file:")
	if !uri {
		return path
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// urlLike matches a value that starts like a URL ("scheme://").
var urlLike = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// checkScheme refuses a URL whose scheme Perform does not know, which would
// otherwise be taken for a SQLite file name ("postgress://…" makes a file
// in a directory named "postgress:"). Only the scheme is repeated: the rest
// may hold a password.
func checkScheme(databaseURL string) error {
	m := urlLike.FindStringSubmatch(databaseURL)
	if m == nil || EngineOf(databaseURL) == EnginePostgres {
		return nil
	}
	return fmt.Errorf("the database URL starts with %s://, a scheme Perform does not know; use postgres:// (or postgresql://) for PostgreSQL, or a file path such as %s for SQLite", m[1], DefaultSQLitePath)
}

// checkSQLitePath says what stops SQLite from using path, in a sentence
// naming the path, the cause and the fix; SQLite itself only answers
// "unable to open database file (14)". SQLite needs the file readable and
// writable and its directory writable (for the -wal and -shm files).
func checkSQLitePath(path string) error {
	abs := absPath(path)
	dir := filepath.Dir(abs)
	info, err := os.Stat(abs)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("the SQLite database path %s is a directory; give a file path such as %s", abs, filepath.Join(abs, DefaultSQLitePath))
	case err == nil:
		f, err := os.OpenFile(abs, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("the SQLite database %s cannot be opened for reading and writing (%s); give this user read and write access to it or choose another path", abs, cause(err))
		}
		f.Close()
	case errors.Is(err, fs.ErrNotExist):
		di, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("the SQLite database %s cannot be created: the directory %s does not exist; create it (mkdir -p %s) or choose another path", abs, dir, dir)
		}
		if err == nil && !di.IsDir() {
			return fmt.Errorf("the SQLite database %s cannot be created: %s is not a directory; choose another path", abs, dir)
		}
	default:
		return fmt.Errorf("the SQLite database %s cannot be used (%s); check the path or choose another", abs, cause(err))
	}
	probe, err := os.CreateTemp(dir, ".perform-probe-*")
	if err != nil {
		return fmt.Errorf("the SQLite database %s cannot be used: this user cannot create files in %s (%s), which SQLite needs for the database and its -wal and -shm files; make the directory writable or choose another path", abs, dir, cause(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// cause is the operating system's reason in err ("permission denied").
func cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// SQLiteDSN is the modernc.org/sqlite data source name for a file path.
// SQLite reads it as a file: URI, where '#' would end the path (a#b.db
// opened the file "a"), '?' starts the options and %HH is decoded, so a
// plain path has '%', '#' and '?' escaped; a file: URI given as such is
// the caller's, kept as written.
func SQLiteDSN(path string) string {
	uri := strings.HasPrefix(path, "file:")
	path = sqlitePath(path)
	if !uri {
		path = strings.NewReplacer("%", "%25", "#", "%23", "?", "%3F").Replace(path)
	}
	q := url.Values{}
	for _, p := range sqlitePragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Option configures Open.
type Option func(*options)

type options struct {
	clock    func() time.Time
	maxConns int
}

// WithMaxConns caps a PostgreSQL pool at n connections, open and idle
// (PERFORM_DATABASE_MAX_CONNS); 0 keeps the default, max(8, 2×GOMAXPROCS).
// Several instances share the server's max_connections, so a deployment
// sets n to fit. SQLite keeps its own small pool, sized for one file lock.
func WithMaxConns(n int) Option {
	return func(o *options) { o.maxConns = n }
}

// WithClock sets the clock the store stamps rows with when the caller gives
// no time (created_at left zero, updated_at); time.Now when unset.
func WithClock(clock func() time.Time) Option {
	return func(o *options) { o.clock = clock }
}

// Open connects to the database the URL names, applies every pending
// migration (Perform's, then River's) and returns the store.
func Open(ctx context.Context, databaseURL string, logger *slog.Logger, opts ...Option) (Store, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := checkScheme(databaseURL); err != nil {
		return nil, err
	}
	engine := EngineOf(databaseURL)
	var (
		db  *sql.DB
		err error
	)
	switch engine {
	case EnginePostgres:
		cfg, err := pgx.ParseConfig(databaseURL)
		if err != nil {
			return nil, fmt.Errorf("the postgres URL is not valid: %w", err)
		}
		// pgx prepares and caches every statement; after five runs
		// Postgres may switch one to a generic plan, which cannot see a
		// LIKE pattern and walks the whole studio instead of the trigram
		// index (measured: 180ms instead of 1ms at 100k trainees). Custom
		// plans cost a little planning per query and keep the index.
		if _, set := cfg.RuntimeParams["plan_cache_mode"]; !set {
			cfg.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
		}
		db = stdlib.OpenDB(*cfg)
		n := o.maxConns
		if n <= 0 {
			n = max(8, 2*runtime.GOMAXPROCS(0))
		}
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		db.SetConnMaxIdleTime(5 * time.Minute)
	default:
		if err := checkSQLitePath(sqlitePath(databaseURL)); err != nil {
			return nil, err
		}
		db, err = sql.Open("sqlite", SQLiteDSN(databaseURL))
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", databaseURL, err)
		}
		// WAL serves readers concurrently; writes serialise on the file lock
		// (busy_timeout queues them). A handful of connections keeps reads
		// parallel without many writers sleeping on the lock.
		n := max(4, runtime.GOMAXPROCS(0))
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		db.SetConnMaxIdleTime(0)
	}
	if err := ping(ctx, db); err != nil {
		db.Close()
		if engine == EngineSQLite {
			return nil, fmt.Errorf("cannot open the SQLite database %s: %w", absPath(sqlitePath(databaseURL)), err)
		}
		return nil, fmt.Errorf("connect to the %s database: %w", engine, err)
	}
	if err := migrate(ctx, db, engine, logger); err != nil {
		db.Close()
		return nil, err
	}
	return newSQLStore(db, engine, o.clock), nil
}

// ping opens the first connection. On SQLite a connection's setup switches
// a new file to WAL, and that switch answers SQLITE_BUSY at once, without
// waiting out busy_timeout, while another process is doing the same; so a
// busy answer is retried, with backoff, for as long as busy_timeout would
// have waited.
func ping(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(sqliteBusyTimeout)
	wait := 5 * time.Millisecond
	for {
		err := db.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

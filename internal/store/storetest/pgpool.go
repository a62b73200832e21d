package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// pgPool hands out migrated schemas of one database (river's riverdbtest
// pattern): a test gets one in a single statement instead of the half
// second migrating a new one takes.
//
// Schemas are named pt_<digest>_<random>, the digest being that of the
// migrations (store.MigrationsDigest), so a binary with other migrations
// (another branch) never takes one of ours. They outlive the process: the
// next run and every test binary running beside this one reuse them. A
// process owns a schema while it holds a session advisory lock on its name,
// on one connection it keeps open, so two processes never share a schema
// and a crashed process's schemas are free again.
//
// A schema is reset when taken, not when given back, so one a crash left
// dirty is reset too: every table emptied (with triggers and foreign keys
// off), the rows the migrations inserted copied back from its seed schema
// (pts_<digest>_<random>), every sequence restarted. One that is not ready
// (a build died half-way, a test dropped its tables) is built again.
type pgPool struct {
	base   string
	digest string
	admin  *sql.DB   // resets and builds
	holder *sql.Conn // holds the advisory locks; used under mu

	mu    sync.Mutex
	known []string // schemas of our digest seen, owned or not
	owned map[string]bool
	inUse map[string]bool
}

var (
	pgPoolsMu sync.Mutex
	pgPools   = map[string]*pgPool{}
)

func postgresPool(base string) (*pgPool, error) {
	pgPoolsMu.Lock()
	defer pgPoolsMu.Unlock()
	if p := pgPools[base]; p != nil {
		return p, nil
	}
	p, err := newPGPool(base)
	if err != nil {
		return nil, err
	}
	pgPools[base] = p
	return p, nil
}

// newPGPool is a pool of its own, holding its locks on a session of its
// own (what another test process would have).
func newPGPool(base string) (*pgPool, error) {
	digest, err := store.MigrationsDigest(store.EnginePostgres)
	if err != nil {
		return nil, err
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := ensureTrigram(ctx, admin); err != nil {
		admin.Close()
		return nil, err
	}
	holder, err := admin.Conn(ctx)
	if err != nil {
		admin.Close()
		return nil, err
	}
	return &pgPool{base: base, digest: digest[:12], admin: admin, holder: holder, owned: map[string]bool{}, inUse: map[string]bool{}}, nil
}

// close ends the pool's session, freeing its schemas for other processes.
func (p *pgPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holder.Close()
	p.admin.Close()
}

// acquire returns a reset schema this process owns, reusing one when it can.
func (p *pgPool) acquire(ctx context.Context) (string, error) {
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			if err := p.refresh(ctx); err != nil {
				return "", err
			}
		}
		for {
			name, err := p.take(ctx)
			if err != nil {
				return "", err
			}
			if name == "" {
				break
			}
			if p.reset(ctx, name) == nil || p.build(ctx, name) == nil {
				return name, nil
			}
			p.forget(name) // still locked, so no other process takes it either
		}
	}
	name := "pt_" + p.digest + "_" + randomHex(6)
	p.mu.Lock()
	_, err := p.holder.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lockKey(name))
	if err == nil {
		p.known = append(p.known, name)
		p.owned[name], p.inUse[name] = true, true
	}
	p.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("lock schema %s: %w", name, err)
	}
	if err := p.build(ctx, name); err != nil {
		p.release(name)
		return "", err
	}
	return name, nil
}

// take marks as in use and returns a known schema this process owns or can
// lock; "" when there is none.
func (p *pgPool) take(ctx context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range p.known {
		if p.inUse[name] {
			continue
		}
		if !p.owned[name] {
			var got bool
			if err := p.holder.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", lockKey(name)).Scan(&got); err != nil {
				return "", fmt.Errorf("lock schema %s: %w", name, err)
			}
			if !got {
				continue
			}
			p.owned[name] = true
		}
		p.inUse[name] = true
		return name, nil
	}
	return "", nil
}

// release gives a schema back to this process's pool; it stays locked, so
// other processes build or find their own.
func (p *pgPool) release(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inUse, name)
}

// forget drops a schema that could be neither reset nor rebuilt from
// this process's pool, keeping its lock.
func (p *pgPool) forget(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inUse, name)
	p.known = slices.DeleteFunc(p.known, func(k string) bool { return k == name })
}

// refresh learns the schemas other processes (or earlier runs) built.
func (p *pgPool) refresh(ctx context.Context) error {
	rows, err := p.admin.QueryContext(ctx, "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname", "pt_"+p.digest+"_")
	if err != nil {
		return fmt.Errorf("list test schemas: %w", err)
	}
	defer rows.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if !slices.Contains(p.known, name) && !p.owned[name] {
			p.known = append(p.known, name)
		}
	}
	return rows.Err()
}

// pgReady is the comment on a schema whose build finished.
const pgReady = "perform test schema, migrated"

// reset brings a schema this process owns back to its just-migrated state
// in one statement; it fails on a schema that is not ready.
func (p *pgPool) reset(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	seed := seedSchema(name)
	_, err := p.admin.ExecContext(ctx, `DO $$
DECLARE r record;
BEGIN
	IF obj_description(to_regnamespace('`+name+`'), 'pg_namespace') IS DISTINCT FROM '`+pgReady+`' THEN
		RAISE EXCEPTION 'schema `+name+` is not ready';
	END IF;
	PERFORM set_config('lock_timeout', '5s', true);
	PERFORM set_config('session_replication_role', 'replica', true);
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = '`+name+`' AND tablename NOT IN ('schema_migrations', 'river_migration') LOOP
		EXECUTE format('DELETE FROM %I.%I', '`+name+`', r.tablename);
	END LOOP;
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = '`+seed+`' LOOP
		EXECUTE format('INSERT INTO %I.%I SELECT * FROM %I.%I', '`+name+`', r.tablename, '`+seed+`', r.tablename);
	END LOOP;
	FOR r IN SELECT sequencename FROM pg_sequences WHERE schemaname = '`+name+`' LOOP
		EXECUTE format('ALTER SEQUENCE %I.%I RESTART', '`+name+`', r.sequencename);
	END LOOP;
END $$`)
	return err
}

// build (re)creates a schema this process owns: migrated, the rows its
// migrations inserted copied to its seed schema, and marked ready.
func (p *pgPool) build(ctx context.Context, name string) error {
	seed := seedSchema(name)
	for _, q := range []string{
		"DROP SCHEMA IF EXISTS " + name + " CASCADE",
		"DROP SCHEMA IF EXISTS " + seed + " CASCADE",
		"CREATE SCHEMA " + name,
		"CREATE SCHEMA " + seed,
	} {
		if _, err := p.admin.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	u, err := schemaURL(p.base, name)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, u, quietLogger())
	if err != nil {
		return fmt.Errorf("migrate test schema %s: %w", name, err)
	}
	if err := st.Close(); err != nil {
		return err
	}
	_, err = p.admin.ExecContext(ctx, `DO $$
DECLARE r record; n bigint;
BEGIN
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = '`+name+`' AND tablename NOT IN ('schema_migrations', 'river_migration') LOOP
		EXECUTE format('SELECT count(*) FROM %I.%I', '`+name+`', r.tablename) INTO n;
		IF n > 0 THEN
			EXECUTE format('CREATE TABLE %I.%I AS TABLE %I.%I', '`+seed+`', r.tablename, '`+name+`', r.tablename);
		END IF;
	END LOOP;
	COMMENT ON SCHEMA `+name+` IS '`+pgReady+`';
END $$`)
	if err != nil {
		return fmt.Errorf("seed test schema %s: %w", name, err)
	}
	return nil
}

func seedSchema(name string) string { return "pts_" + strings.TrimPrefix(name, "pt_") }

func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("perform test schema " + name))
	return int64(h.Sum64())
}

// ensureTrigram installs pg_trgm in public once per database, so each
// test schema finds it there (CREATE EXTENSION IF NOT EXISTS then no-ops).
func ensureTrigram(ctx context.Context, db *sql.DB) error {
	var installed bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')").Scan(&installed); err != nil {
		return fmt.Errorf("check pg_trgm: %w", err)
	}
	if installed {
		return nil
	}
	// Serialise with other test processes doing the same.
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(7486024001)"); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock(7486024001)") //nolint:errcheck // released with the session anyway
	if _, err := conn.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public"); err != nil {
		return fmt.Errorf("create extension pg_trgm: %w", err)
	}
	return nil
}

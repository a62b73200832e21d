package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The pool of PostgreSQL test schemas: a schema taken again is as the
// migrations left it, one whose tables a test dropped is built again, and
// a schema one process holds is never handed to another.
func TestPostgresSchemaPool(t *testing.T) {
	base := PostgresURL(t)
	ctx := context.Background()
	a, err := newPGPool(base)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	b, err := newPGPool(base)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()

	open := func(name string) store.Store {
		t.Helper()
		u, err := schemaURL(base, name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(ctx, u, quietLogger())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	scalar := func(st store.Store, q string) int64 {
		t.Helper()
		var n int64
		if err := st.DB().QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	one, err := a.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	two, err := a.acquire(ctx)
	if err != nil || two == one {
		t.Fatalf("a second schema in use at once: %q, %v; want one other than %q", two, err, one)
	}
	st := open(one)
	must(t, "CreateStudio", st.CreateStudio(ctx, &domain.Studio{Name: "Pool", Slug: "pool"}))
	for _, q := range []string{`UPDATE credentials_epoch SET n = 41`, `SELECT nextval('trainees_seq_seq')`, `SELECT nextval('trainees_seq_seq')`} {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st.Close()
	a.release(one)

	// Another process takes neither the schema in use nor the one given
	// back: this process still holds both.
	other, err := b.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if other == one || other == two {
		t.Fatalf("another process was given %s, which this one holds", other)
	}

	again, err := a.acquire(ctx)
	if err != nil || again != one {
		t.Fatalf("acquire after release = %q, %v; want %q back", again, err, one)
	}
	st = open(again)
	if n := scalar(st, `SELECT count(*) FROM studios`); n != 0 {
		t.Errorf("%d studios left from the last use", n)
	}
	if n := scalar(st, `SELECT n FROM credentials_epoch WHERE id = 1`); n != 0 {
		t.Errorf("credentials_epoch = %d; want the migration's 0", n)
	}
	if n := scalar(st, `SELECT nextval('trainees_seq_seq')`); n != 1 {
		t.Errorf("trainees_seq_seq went on at %d; want it restarted at 1", n)
	}
	if n := scalar(st, `SELECT count(*) FROM schema_migrations`); n == 0 {
		t.Error("the migrations' record was emptied")
	}
	// A test that drops what the migrations made leaves a schema the next
	// taker finds not ready, and builds again.
	if _, err := st.DB().ExecContext(ctx, `DROP SCHEMA `+again+` CASCADE`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `CREATE SCHEMA `+again); err != nil {
		t.Fatal(err)
	}
	st.Close()
	a.release(again)
	rebuilt, err := a.acquire(ctx)
	if err != nil || rebuilt != one {
		t.Fatalf("acquire of a dropped schema = %q, %v; want %q rebuilt", rebuilt, err, one)
	}
	st = open(rebuilt)
	defer st.Close()
	if n := scalar(st, `SELECT n FROM credentials_epoch WHERE id = 1`); n != 0 {
		t.Errorf("rebuilt schema: credentials_epoch = %d", n)
	}
	must(t, "CreateStudio in the rebuilt schema", st.CreateStudio(ctx, &domain.Studio{Name: "Pool", Slug: "pool"}))

	// Once this process ends (its session closes), another may take its
	// schemas.
	a.close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got bool
		if err := b.holder.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", lockKey(one)).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still locked after its process ended", one)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

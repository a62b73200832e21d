package store

import (
	"context"
	"fmt"
	"time"
)

// Optimize is the periodic upkeep of the database (jobs runs it daily). On
// both engines it deletes idempotency records older than IdempotencyTTL
// (BeginIdempotent already ignores them; this keeps the table small). On
// SQLite it also merges the trainee search index into one segment (many
// small segments, left by a day of writes or a bulk import, slow every
// search) and refreshes the planner's statistics where they are stale.
// Postgres does that part by itself (autovacuum).
func Optimize(ctx context.Context, st Store) error {
	at := time.Now()
	if c, ok := st.(interface{ now() time.Time }); ok {
		at = c.now() // the store's clock
	}
	if _, err := st.ExpireIdempotencyKeys(ctx, at.Add(-IdempotencyTTL)); err != nil {
		return fmt.Errorf("optimize: expire idempotency keys: %w", err)
	}
	if st.Engine() != EngineSQLite {
		return nil
	}
	db, err := Pool(st)
	if err != nil {
		return fmt.Errorf("optimize: %w", err)
	}
	for _, q := range []string{
		`INSERT INTO trainee_search (trainee_search) VALUES ('optimize')`,
		`PRAGMA optimize`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("optimize: %s: %w", q, err)
		}
	}
	return nil
}

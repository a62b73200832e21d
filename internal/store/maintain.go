package store

import (
	"context"
	"fmt"
)

// Optimize is the periodic upkeep of the database (jobs runs it daily). On
// SQLite it merges the trainee search index into one segment (many small
// segments, left by a day of writes or a bulk import, slow every search)
// and refreshes the planner's statistics where they are stale. Postgres
// does the same by itself (autovacuum), so there it does nothing.
func Optimize(ctx context.Context, st Store) error {
	if st.Engine() != EngineSQLite {
		return nil
	}
	for _, q := range []string{
		`INSERT INTO trainee_search (trainee_search) VALUES ('optimize')`,
		`PRAGMA optimize`,
	} {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("optimize: %s: %w", q, err)
		}
	}
	return nil
}

package agent

import (
	"context"
	"database/sql"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// queries are the agent's own SQL, written once with ? placeholders and
// rebound for the engine when the Agent is built.
type queries struct {
	newerPending, pendingMessages, dropStale, claimMessages         string
	insertTurn, openTurn, markCounted, bumpCap, readCap, finishTurn string
	insertChunk, unsentChunks, markChunkSent, startSending          string
	insertHistory, loadHistory, trimHistory                         string
	acquireLease, renewLease, releaseLease                          string
	sweepHistory, sweepCaps, sweepTurns, sweepMessages              string
	abandonTurns, openPhones                                        string
}

func newQueries(st store.Store) queries {
	r := st.Rebind
	return queries{
		newerPending:    r(`SELECT count(*) FROM agent_messages WHERE phone = ? AND state = 'pending' AND seq > ?`),
		pendingMessages: r(`SELECT seq, conversation_id, text, received_at FROM agent_messages WHERE phone = ? AND state = 'pending' ORDER BY seq`),
		dropStale:       r(`UPDATE agent_messages SET state = 'dropped' WHERE phone = ? AND state = 'pending' AND received_at < ?`),
		claimMessages:   r(`UPDATE agent_messages SET state = 'claimed', turn_id = ? WHERE phone = ? AND state = 'pending' AND seq <= ?`),

		insertTurn:  r(`INSERT INTO agent_turns (id, phone, conversation_id, text, state, counted, created_at) VALUES (?, ?, ?, ?, 'open', 0, ?)`),
		openTurn:    r(`SELECT id, conversation_id, text, state FROM agent_turns WHERE phone = ? AND state <> 'done' ORDER BY created_at, id LIMIT 1`),
		markCounted: r(`UPDATE agent_turns SET counted = 1 WHERE id = ? AND counted = 0`),
		bumpCap: r(`INSERT INTO agent_caps (phone, studio_id, day, count) VALUES (?, ?, ?, 1)
			ON CONFLICT (phone, studio_id, day) DO UPDATE SET count = agent_caps.count + 1 RETURNING count`),
		readCap:    r(`SELECT count FROM agent_caps WHERE phone = ? AND studio_id = ? AND day = ?`),
		finishTurn: r(`UPDATE agent_turns SET state = 'done', finished_at = ? WHERE id = ?`),

		insertChunk:   r(`INSERT INTO agent_chunks (turn_id, idx, conversation_id, text) VALUES (?, ?, ?, ?)`),
		unsentChunks:  r(`SELECT idx, conversation_id, text FROM agent_chunks WHERE turn_id = ? AND sent_at IS NULL ORDER BY idx`),
		markChunkSent: r(`UPDATE agent_chunks SET sent_at = ? WHERE turn_id = ? AND idx = ?`),
		startSending:  r(`UPDATE agent_turns SET state = 'sending', outcome = ?, studio_id = ? WHERE id = ? AND state = 'open'`),

		insertHistory: r(`INSERT INTO agent_history (phone, studio_id, role, text, created_at) VALUES (?, ?, ?, ?, ?)`),
		loadHistory:   r(`SELECT role, text FROM agent_history WHERE phone = ? AND studio_id = ? AND created_at >= ? ORDER BY seq DESC LIMIT ?`),
		trimHistory: r(`DELETE FROM agent_history WHERE phone = ? AND studio_id = ? AND seq NOT IN
			(SELECT seq FROM agent_history WHERE phone = ? AND studio_id = ? ORDER BY seq DESC LIMIT ?)`),

		acquireLease: r(`INSERT INTO agent_leases (name, owner, expires_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
			WHERE agent_leases.expires_at < ? OR agent_leases.owner = excluded.owner`),
		renewLease:   r(`UPDATE agent_leases SET expires_at = ? WHERE name = ? AND owner = ?`),
		releaseLease: r(`DELETE FROM agent_leases WHERE name = ? AND owner = ?`),

		abandonTurns: r(`UPDATE agent_turns SET state = 'done', outcome = 'abandoned', finished_at = ? WHERE state <> 'done' AND created_at < ?`),
		// Phones with an open turn and no live lease: their worker died.
		openPhones: r(`SELECT DISTINCT t.phone FROM agent_turns t
			LEFT JOIN agent_leases l ON l.name = 'phone:' || t.phone AND l.expires_at >= ?
			WHERE t.state <> 'done' AND l.name IS NULL`),

		sweepHistory:  r(`DELETE FROM agent_history WHERE created_at < ?`),
		sweepCaps:     r(`DELETE FROM agent_caps WHERE day < ?`),
		sweepTurns:    r(`DELETE FROM agent_turns WHERE state = 'done' AND created_at < ?`),
		sweepMessages: r(`DELETE FROM agent_messages WHERE state <> 'pending' AND received_at < ?`),
	}
}

// inTx runs fn in one transaction of the agent's tables.
func (a *Agent) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// sweep forgets what the agent no longer needs: history past 48 hours, caps
// of past days, finished turns (and their chunks) and handled messages.
func (a *Agent) sweep(ctx context.Context, tx *sql.Tx, now time.Time) error {
	old := now.Add(-historyMaxAge).UnixMilli()
	for _, step := range []struct {
		q   string
		arg any
	}{
		{a.q.sweepHistory, old},
		{a.q.sweepCaps, now.UTC().AddDate(0, 0, -1).Format(time.DateOnly)},
		{a.q.sweepTurns, old},
		{a.q.sweepMessages, old},
	} {
		if _, err := tx.ExecContext(ctx, step.q, step.arg); err != nil {
			return err
		}
	}
	return nil
}

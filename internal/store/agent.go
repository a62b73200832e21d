package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// AgentStore is the WhatsApp assistant's state (internal/agent, tables
// agent_*): each phone's messages, turns, history and leases, beside
// which studio it talks to, the model's usage and the trainees who write.
// Phones are in phone.Key form.
type AgentStore interface {
	// Which studio each phone talks to (agent_phones.go).
	AgentPhones

	// InsertMessages stores accepted inbound messages as pending, in one
	// multi-row insert, and returns each one's seq and phone (in no
	// particular order). Call it inside InTx to schedule their jobs in the
	// same transaction.
	InsertMessages(ctx context.Context, msgs []AgentMessage) ([]AgentMessageRef, error)
	// ClaimPending takes the phone's oldest pending messages that fit
	// bounds into a new open turn with id turnID, in one transaction, and
	// returns it (claimed true; turn.More when messages stay pending).
	// Nothing is claimed when a message newer than seq is pending (its own
	// job answers the burst) or nothing fresh is; messages received before
	// now-maxAge are dropped first, never answered (agent_claim.go).
	ClaimPending(ctx context.Context, phoneKey string, seq int64, turnID string, now time.Time, maxAge time.Duration, bounds ClaimBounds) (turn AgentTurn, claimed bool, err error)
	// RequeueTurn puts an open turn's messages back to pending, each to be
	// claimed alone, and returns how many; the turn keeps none.
	RequeueTurn(ctx context.Context, turnID string) (int, error)
	// PendingSeqs lists the seqs of the phone's pending messages, oldest first.
	PendingSeqs(ctx context.Context, phoneKey string) ([]int64, error)
	// OpenTurn is the phone's oldest turn not done; ErrNotFound without one.
	OpenTurn(ctx context.Context, phoneKey string) (AgentTurn, error)
	// CountTurn adds the turn to the day's count of the phone in the
	// studio, once per turn, and returns the day's count.
	CountTurn(ctx context.Context, turnID, phoneKey, studioID, day string) (int, error)
	// StartSending records an open turn's outcome and studio and moves it
	// to sending; an error when the turn is not open (another worker
	// decided it).
	StartSending(ctx context.Context, turnID, outcome, studioID string) error
	// AddChunks stores a turn's messages to send, numbered from 0.
	AddChunks(ctx context.Context, turnID, conversationID string, texts []string) error
	// UnsentChunks are the turn's chunks not yet recorded as sent, in order.
	UnsentChunks(ctx context.Context, turnID string) ([]AgentChunk, error)
	MarkChunkSent(ctx context.Context, turnID string, idx int, at time.Time) error
	FinishTurn(ctx context.Context, turnID string, at time.Time) error
	// AbandonTurns closes turns not done that were created before before
	// (outcome abandoned): a reply that late is worse than none.
	AbandonTurns(ctx context.Context, before, at time.Time) (int64, error)
	// OrphanedTurnPhones lists the phones with a turn not done and no lease
	// live at now: their worker died.
	OrphanedTurnPhones(ctx context.Context, now time.Time) ([]string, error)

	// AppendHistory adds entries to the conversation of the phone in the
	// studio (the i-th at at+i ms, so they keep their order) and keeps only
	// its newest keep entries.
	AppendHistory(ctx context.Context, phoneKey, studioID string, entries []AgentHistoryEntry, at time.Time, keep int) error
	// History is the newest limit entries since since of the phone's
	// conversation in the studio, oldest first.
	History(ctx context.Context, phoneKey, studioID string, since time.Time, limit int) ([]AgentHistoryEntry, error)
	// CapCount is the day's count of the phone in the studio (0 without one).
	CapCount(ctx context.Context, phoneKey, studioID, day string) (int, error)
	// Sweep forgets history, finished turns (with their chunks) and handled
	// messages older than before, and the caps of days before capsBefore;
	// the model calls outside turns older than before, and the model
	// budget's windows that began a day before it.
	Sweep(ctx context.Context, before time.Time, capsBefore string) error

	// AcquireLease takes the named lease for owner until now+ttl, when it
	// is free, expired at now, or already owner's; false when another
	// owner holds it.
	AcquireLease(ctx context.Context, name, owner string, now time.Time, ttl time.Duration) (bool, error)
	// RenewLease extends owner's lease to now+ttl; false when owner no
	// longer holds it. Inside a transaction it also locks the lease row
	// until the commit.
	RenewLease(ctx context.Context, name, owner string, now time.Time, ttl time.Duration) (bool, error)
	// ReleaseLease frees owner's lease; a lease taken over is left alone.
	ReleaseLease(ctx context.Context, name, owner string) error
	// LeaseExpiry is when the named lease expires and who holds it;
	// ErrNotFound when no one does.
	LeaseExpiry(ctx context.Context, name string) (owner string, expires time.Time, err error)

	// The model's usage (agent_usage.go).
	AgentUsage
	// The trainees who write to it (agent_trainees.go).
	AgentTrainees
}

// AgentMessage is an accepted inbound message.
type AgentMessage struct {
	Phone          string
	ConversationID string
	Text           string
	ReceivedAt     time.Time
}

// AgentMessageRef names a stored message.
type AgentMessageRef struct {
	Seq   int64
	Phone string
}

// AgentTurn is one reply: the burst's joined text and where the reply goes.
// State is open (deciding), sending (chunks written) or done.
type AgentTurn struct {
	ID             string
	Phone          string
	ConversationID string
	Text           string
	State          string
	// Messages is how many messages the turn claimed.
	Messages int
	// Cut: the turn's one message was longer than ClaimBounds.Bytes, and
	// Text is its beginning (the message is kept whole).
	Cut bool
	// More: the claim left messages of the phone pending (not stored).
	More bool
}

// AgentChunk is one message a turn sends.
type AgentChunk struct {
	Idx            int
	ConversationID string
	Text           string
}

// AgentHistoryEntry is one remembered message of a conversation.
type AgentHistoryEntry struct {
	Role string // user or assistant
	Text string
}

// agentStore is AgentStore on the sqlStore (or its transaction).
type agentStore struct{ *sqlStore }

func (s *sqlStore) Agent() AgentStore { return agentStore{s} }

// inTx runs fn on a store bound to one transaction, joining the current one.
func (s agentStore) inTx(ctx context.Context, fn func(tx agentStore) error) error {
	return s.InTx(ctx, func(tx Store) error { return fn(agentStore{tx.(*sqlStore)}) })
}

func (s agentStore) InsertMessages(ctx context.Context, msgs []AgentMessage) ([]AgentMessageRef, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO agent_messages (phone, conversation_id, text, received_at, state) VALUES `)
	args := make([]any, 0, 4*len(msgs))
	for i, m := range msgs {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(`(?, ?, ?, ?, 'pending')`)
		args = append(args, m.Phone, m.ConversationID, m.Text, ms(m.ReceivedAt))
	}
	q.WriteString(` RETURNING seq, phone`)
	out := make([]AgentMessageRef, 0, len(msgs))
	err := s.atomic(ctx, func(qr querier) error {
		rows, err := qr.QueryContext(ctx, s.q(q.String()), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r AgentMessageRef
			if err := rows.Scan(&r.Seq, &r.Phone); err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("storing %d messages: %w", len(msgs), err)
	}
	if len(out) != len(msgs) {
		return nil, fmt.Errorf("stored %d of %d messages", len(out), len(msgs))
	}
	return out, nil
}

func (s agentStore) PendingSeqs(ctx context.Context, phoneKey string) ([]int64, error) {
	rows, err := s.query(ctx, `SELECT seq FROM agent_messages WHERE phone = ? AND state = 'pending' ORDER BY seq`, phoneKey)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s agentStore) OpenTurn(ctx context.Context, phoneKey string) (AgentTurn, error) {
	t := AgentTurn{Phone: phoneKey}
	var cut int
	err := s.queryRow(ctx, `SELECT t.id, t.conversation_id, t.text, t.state, t.cut,
			(SELECT count(*) FROM agent_messages m WHERE m.turn_id = t.id)
		FROM agent_turns t WHERE t.phone = ? AND t.state <> 'done' ORDER BY t.created_at, t.id LIMIT 1`, phoneKey).
		Scan(&t.ID, &t.ConversationID, &t.Text, &t.State, &cut, &t.Messages)
	t.Cut = cut != 0
	return t, notFound(err)
}

func (s agentStore) CountTurn(ctx context.Context, turnID, phoneKey, studioID, day string) (int, error) {
	var count int
	err := s.inTx(ctx, func(tx agentStore) error {
		res, err := tx.exec(ctx, `UPDATE agent_turns SET counted = 1 WHERE id = ? AND counted = 0`, turnID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return tx.queryRow(ctx, `INSERT INTO agent_caps (phone, studio_id, day, count) VALUES (?, ?, ?, 1)
				ON CONFLICT (phone, studio_id, day) DO UPDATE SET count = agent_caps.count + 1 RETURNING count`,
				phoneKey, studioID, day).Scan(&count)
		}
		count, err = tx.CapCount(ctx, phoneKey, studioID, day)
		return err
	})
	return count, err
}

func (s agentStore) CapCount(ctx context.Context, phoneKey, studioID, day string) (int, error) {
	var count int
	err := s.queryRow(ctx, `SELECT count FROM agent_caps WHERE phone = ? AND studio_id = ? AND day = ?`, phoneKey, studioID, day).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return count, err
}

func (s agentStore) StartSending(ctx context.Context, turnID, outcome, studioID string) error {
	var studio any
	if studioID != "" {
		studio = studioID
	}
	res, err := s.exec(ctx, `UPDATE agent_turns SET state = 'sending', outcome = ?, studio_id = ? WHERE id = ? AND state = 'open'`, outcome, studio, turnID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("turn %s is not open: another worker decided it", turnID)
	}
	return nil
}

func (s agentStore) AddChunks(ctx context.Context, turnID, conversationID string, texts []string) error {
	return s.inTx(ctx, func(tx agentStore) error {
		for i, text := range texts {
			if _, err := tx.exec(ctx, `INSERT INTO agent_chunks (turn_id, idx, conversation_id, text) VALUES (?, ?, ?, ?)`, turnID, i, conversationID, text); err != nil {
				switch {
				case isForeignKeyViolation(err):
					return fmt.Errorf("%w: no turn with id %s", ErrNotFound, turnID)
				case isUniqueViolation(err):
					return &ConflictError{Message: fmt.Sprintf("Turn %s already has its chunks.", turnID), ExistingID: turnID}
				}
				return err
			}
		}
		return nil
	})
}

func (s agentStore) UnsentChunks(ctx context.Context, turnID string) ([]AgentChunk, error) {
	rows, err := s.query(ctx, `SELECT idx, conversation_id, text FROM agent_chunks WHERE turn_id = ? AND sent_at IS NULL ORDER BY idx`, turnID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentChunk
	for rows.Next() {
		var c AgentChunk
		if err := rows.Scan(&c.Idx, &c.ConversationID, &c.Text); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s agentStore) MarkChunkSent(ctx context.Context, turnID string, idx int, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE agent_chunks SET sent_at = ? WHERE turn_id = ? AND idx = ?`, ms(at), turnID, idx)
	return affected(res, err, "chunk of turn", fmt.Sprintf("%s/%d", turnID, idx))
}

func (s agentStore) FinishTurn(ctx context.Context, turnID string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE agent_turns SET state = 'done', finished_at = ? WHERE id = ?`, ms(at), turnID)
	return err
}

func (s agentStore) AbandonTurns(ctx context.Context, before, at time.Time) (int64, error) {
	res, err := s.exec(ctx, `UPDATE agent_turns SET state = 'done', outcome = 'abandoned', finished_at = ? WHERE state <> 'done' AND created_at < ?`, ms(at), ms(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s agentStore) OrphanedTurnPhones(ctx context.Context, now time.Time) ([]string, error) {
	rows, err := s.query(ctx, `SELECT DISTINCT t.phone FROM agent_turns t
		LEFT JOIN agent_leases l ON l.name = 'phone:' || t.phone AND l.expires_at >= ?
		WHERE t.state <> 'done' AND l.name IS NULL`, ms(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (s agentStore) AppendHistory(ctx context.Context, phoneKey, studioID string, entries []AgentHistoryEntry, at time.Time, keep int) error {
	if studioID == "" {
		return errors.New("AppendHistory: history belongs to a studio; studioID is empty")
	}
	return s.inTx(ctx, func(tx agentStore) error {
		for i, e := range entries {
			if _, err := tx.exec(ctx, `INSERT INTO agent_history (phone, studio_id, role, text, created_at) VALUES (?, ?, ?, ?, ?)`,
				phoneKey, studioID, e.Role, e.Text, ms(at)+int64(i)); err != nil {
				return err
			}
		}
		_, err := tx.exec(ctx, `DELETE FROM agent_history WHERE phone = ? AND studio_id = ? AND seq NOT IN
			(SELECT seq FROM agent_history WHERE phone = ? AND studio_id = ? ORDER BY seq DESC LIMIT ?)`,
			phoneKey, studioID, phoneKey, studioID, keep)
		return err
	})
}

func (s agentStore) History(ctx context.Context, phoneKey, studioID string, since time.Time, limit int) ([]AgentHistoryEntry, error) {
	rows, err := s.query(ctx, `SELECT role, text FROM agent_history WHERE phone = ? AND studio_id = ? AND created_at >= ? ORDER BY seq DESC LIMIT ?`,
		phoneKey, studioID, ms(since), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentHistoryEntry
	for rows.Next() {
		var e AgentHistoryEntry
		if err := rows.Scan(&e.Role, &e.Text); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	slices.Reverse(out)
	return out, rows.Err()
}

func (s agentStore) Sweep(ctx context.Context, before time.Time, capsBefore string) error {
	return s.inTx(ctx, func(tx agentStore) error {
		for _, step := range []struct {
			q   string
			arg any
		}{
			{`DELETE FROM agent_history WHERE created_at < ?`, ms(before)},
			{`DELETE FROM agent_caps WHERE day < ?`, capsBefore},
			{`DELETE FROM agent_turns WHERE state = 'done' AND created_at < ?`, ms(before)},
			{`DELETE FROM agent_messages WHERE state <> 'pending' AND received_at < ?`, ms(before)},
			{`DELETE FROM agent_studio_choices WHERE asked_at < ?`, ms(before)},
			{`DELETE FROM agent_trainee_echoes WHERE echoed_at < ?`, ms(before)},
			// The model budget's spent windows and the calls outside turns.
			{`DELETE FROM model_calls WHERE created_at < ?`, ms(before)},
			{`DELETE FROM model_budget WHERE window_start < ?`, ms(before.Add(-24 * time.Hour))},
		} {
			if _, err := tx.exec(ctx, step.q, step.arg); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s agentStore) AcquireLease(ctx context.Context, name, owner string, now time.Time, ttl time.Duration) (bool, error) {
	res, err := s.exec(ctx, `INSERT INTO agent_leases (name, owner, expires_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
		WHERE agent_leases.expires_at < ? OR agent_leases.owner = excluded.owner`,
		name, owner, ms(now.Add(ttl)), ms(now))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s agentStore) RenewLease(ctx context.Context, name, owner string, now time.Time, ttl time.Duration) (bool, error) {
	res, err := s.exec(ctx, `UPDATE agent_leases SET expires_at = ? WHERE name = ? AND owner = ?`, ms(now.Add(ttl)), name, owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s agentStore) ReleaseLease(ctx context.Context, name, owner string) error {
	_, err := s.exec(ctx, `DELETE FROM agent_leases WHERE name = ? AND owner = ?`, name, owner)
	return err
}

func (s agentStore) LeaseExpiry(ctx context.Context, name string) (string, time.Time, error) {
	var owner string
	var expires int64
	err := s.queryRow(ctx, `SELECT owner, expires_at FROM agent_leases WHERE name = ?`, name).Scan(&owner, &expires)
	if err != nil {
		return "", time.Time{}, notFound(err)
	}
	return owner, fromMS(expires), nil
}

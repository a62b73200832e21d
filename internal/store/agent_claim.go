package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ClaimBounds bound what one reply turn claims, so a burst's text, however
// long, never becomes one unbounded model request; what does not fit stays
// pending for the next turn. A zero field is no bound.
type ClaimBounds struct {
	// Messages is the most messages one turn claims.
	Messages int
	// Bytes is the most text (bytes, separators aside) one turn claims. A
	// first message longer than that is claimed alone, and the turn's text
	// is its first Bytes bytes (cut at a character boundary, Cut set); the
	// message itself is kept whole.
	Bytes int
}

func (s agentStore) ClaimPending(ctx context.Context, phoneKey string, seq int64, turnID string, now time.Time, maxAge time.Duration, b ClaimBounds) (AgentTurn, bool, error) {
	var t AgentTurn
	claimed := false
	err := s.inTx(ctx, func(tx agentStore) error {
		var newer int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM agent_messages WHERE phone = ? AND state = 'pending' AND seq > ?`, phoneKey, seq).Scan(&newer); err != nil {
			return err
		}
		if newer > 0 {
			return nil
		}
		if _, err := tx.exec(ctx, `UPDATE agent_messages SET state = 'dropped' WHERE phone = ? AND state = 'pending' AND received_at < ?`, phoneKey, ms(now.Add(-maxAge))); err != nil {
			return err
		}
		// One row past the count bound says whether more stay pending.
		limit := -1
		if b.Messages > 0 {
			limit = b.Messages + 1
		}
		q := `SELECT seq, conversation_id, text, solo FROM agent_messages WHERE phone = ? AND state = 'pending' ORDER BY seq`
		args := []any{phoneKey}
		if limit > 0 {
			q += ` LIMIT ?`
			args = append(args, limit)
		}
		rows, err := tx.query(ctx, q, args...)
		if err != nil {
			return err
		}
		var texts []string
		var lastSeq int64
		var conversation string
		size, more := 0, false
		for rows.Next() {
			var (
				m    int64
				conv string
				text string
				solo int
			)
			if err := rows.Scan(&m, &conv, &text, &solo); err != nil {
				rows.Close()
				return err
			}
			first := len(texts) == 0
			fits := (b.Messages <= 0 || len(texts) < b.Messages) && (b.Bytes <= 0 || size+len(text) <= b.Bytes) && solo == 0
			if !first && !fits {
				more = true
				break
			}
			texts, lastSeq, conversation, size = append(texts, text), m, conv, size+len(text)
			if first && (solo != 0 || (b.Bytes > 0 && len(text) > b.Bytes)) {
				// Claimed alone: a message back from a turn that ran out
				// of steps, or one longer than a turn reads.
				more = rows.Next()
				break
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(texts) == 0 {
			return nil
		}
		t = AgentTurn{ID: turnID, Phone: phoneKey, ConversationID: conversation, Text: strings.Join(texts, "\n"), State: "open", Messages: len(texts), More: more}
		if b.Bytes > 0 && len(texts) == 1 && len(t.Text) > b.Bytes {
			t.Text, t.Cut = cutBytes(t.Text, b.Bytes), true
		}
		cut := 0
		if t.Cut {
			cut = 1
		}
		if _, err := tx.exec(ctx, `INSERT INTO agent_turns (id, phone, conversation_id, text, state, counted, cut, created_at) VALUES (?, ?, ?, ?, 'open', 0, ?, ?)`,
			t.ID, phoneKey, conversation, t.Text, cut, ms(now)); err != nil {
			if isUniqueViolation(err) {
				return &ConflictError{Message: fmt.Sprintf("A turn with id %s already exists; claim with a new id.", turnID), ExistingID: turnID}
			}
			return err
		}
		res, err := tx.exec(ctx, `UPDATE agent_messages SET state = 'claimed', turn_id = ? WHERE phone = ? AND state = 'pending' AND seq <= ?`, t.ID, phoneKey, lastSeq)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != int64(len(texts)) {
			return fmt.Errorf("claimed %d of %d pending messages: another turn raced this one", n, len(texts))
		}
		claimed = true
		return nil
	})
	if err != nil || !claimed {
		return AgentTurn{}, false, err
	}
	return t, true, nil
}

// cutBytes is the longest beginning of s of at most n bytes that ends on a
// character boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (s agentStore) RequeueTurn(ctx context.Context, turnID string) (int, error) {
	res, err := s.exec(ctx, `UPDATE agent_messages SET state = 'pending', turn_id = NULL, solo = 1 WHERE turn_id = ? AND state = 'claimed'`, turnID)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

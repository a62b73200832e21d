package store

import (
	"context"
	"database/sql"
	"time"
)

// PlatformConversation is an agent platform's conversation that asked to
// verify its end user. Hash is the SHA-256 of (platform key id, tenant id,
// conversation id).
type PlatformConversation struct {
	Hash          []byte
	StudioID      string
	TraineeID     string // the trainee the claim matched; "" when none did
	CodeHash      []byte // nil when no trainee matched: no code is right
	Tries         int
	CodeExpiresAt time.Time
	VerifiedAt    *time.Time
	VerifiedUntil *time.Time
	CreatedAt     time.Time
}

// PlatformStore keeps the agent platforms' verified conversations.
type PlatformStore interface {
	// PutConversation writes c in full, replacing the row of its hash.
	PutConversation(ctx context.Context, c PlatformConversation) error
	// Conversation is the row of hash, or ErrNotFound.
	Conversation(ctx context.Context, hash []byte) (PlatformConversation, error)
}

type platformStore struct{ *sqlStore }

func (s *sqlStore) Platform() PlatformStore { return platformStore{s} }

func (s platformStore) PutConversation(ctx context.Context, c PlatformConversation) error {
	return s.atomic(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, s.q(`DELETE FROM platform_conversations WHERE hash = ?`), c.Hash); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO platform_conversations (hash, studio_id, trainee_id, code_hash, tries, code_expires_at, verified_at, verified_until, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			c.Hash, c.StudioID, nullString(c.TraineeID), c.CodeHash, c.Tries, ms(c.CodeExpiresAt), msPtr(c.VerifiedAt), msPtr(c.VerifiedUntil), ms(c.CreatedAt))
		return err
	})
}

func (s platformStore) Conversation(ctx context.Context, hash []byte) (PlatformConversation, error) {
	var c PlatformConversation
	var trainee sql.NullString
	var codeExp, created int64
	var verified, until sql.NullInt64
	err := s.queryRow(ctx, `SELECT hash, studio_id, trainee_id, code_hash, tries, code_expires_at, verified_at, verified_until, created_at
		FROM platform_conversations WHERE hash = ?`, hash).Scan(&c.Hash, &c.StudioID, &trainee, &c.CodeHash, &c.Tries, &codeExp, &verified, &until, &created)
	if err != nil {
		return c, notFound(err)
	}
	c.TraineeID = trainee.String
	c.CodeExpiresAt, c.CreatedAt = fromMS(codeExp), fromMS(created)
	c.VerifiedAt, c.VerifiedUntil = fromNullMS(verified), fromNullMS(until)
	return c, nil
}

// nullString stores "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

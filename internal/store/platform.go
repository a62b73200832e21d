package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// PlatformConversation is an agent platform's conversation that asked to
// verify its end user. Hash is the SHA-256 of (platform key id, tenant id,
// conversation id). Its one-time code lives in one_time_codes (internal/otc).
type PlatformConversation struct {
	Hash          []byte
	StudioID      string
	TraineeID     string // the trainee it was verified as; "" when none
	VerifiedAt    *time.Time
	VerifiedUntil *time.Time
	CreatedAt     time.Time
}

// PlatformToken is a forward payload handed to an agent platform's
// auth-context broker: Hash is the SHA-256 of the token, which is never
// kept; the rest is what the token is bound to.
type PlatformToken struct {
	Hash             []byte
	StudioID         string
	TraineeID        string
	KeyID            string // the platform key the conversation called with
	ConversationHash []byte // PlatformConversation.Hash
	Scopes           []string
	ExpiresAt        time.Time
	RevokedAt        *time.Time
	CreatedAt        time.Time
}

// PlatformStore keeps the agent platforms' verified conversations.
type PlatformStore interface {
	// PutConversation writes c in full, replacing the row of its hash in
	// one statement (an upsert), so concurrent writes of one conversation
	// never collide on its key.
	PutConversation(ctx context.Context, c PlatformConversation) error
	// Conversation is the row of hash, or ErrNotFound.
	Conversation(ctx context.Context, hash []byte) (PlatformConversation, error)
	// PutToken stores a new forward payload, revoking (at t.CreatedAt)
	// every live one of the same conversation: a conversation has one.
	PutToken(ctx context.Context, t PlatformToken) error
	// Token is the forward payload of hash, or ErrNotFound.
	Token(ctx context.Context, hash []byte) (PlatformToken, error)
	// RevokeTokens revokes, at at, every live forward payload of the
	// conversation; it answers how many it revoked.
	RevokeTokens(ctx context.Context, conversationHash []byte, at time.Time) (int, error)
}

type platformStore struct{ *sqlStore }

func (s *sqlStore) Platform() PlatformStore { return platformStore{s} }

func (s platformStore) PutConversation(ctx context.Context, c PlatformConversation) error {
	_, err := s.exec(ctx, `INSERT INTO platform_conversations (hash, studio_id, trainee_id, verified_at, verified_until, created_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (hash) DO UPDATE SET studio_id = excluded.studio_id, trainee_id = excluded.trainee_id,
			verified_at = excluded.verified_at, verified_until = excluded.verified_until, created_at = excluded.created_at`,
		c.Hash, c.StudioID, nullString(c.TraineeID), msPtr(c.VerifiedAt), msPtr(c.VerifiedUntil), ms(c.CreatedAt))
	return err
}

func (s platformStore) Conversation(ctx context.Context, hash []byte) (PlatformConversation, error) {
	var c PlatformConversation
	var trainee sql.NullString
	var created int64
	var verified, until sql.NullInt64
	err := s.queryRow(ctx, `SELECT hash, studio_id, trainee_id, verified_at, verified_until, created_at
		FROM platform_conversations WHERE hash = ?`, hash).Scan(&c.Hash, &c.StudioID, &trainee, &verified, &until, &created)
	if err != nil {
		return c, notFound(err)
	}
	c.TraineeID = trainee.String
	c.CreatedAt = fromMS(created)
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

func (s platformStore) PutToken(ctx context.Context, t PlatformToken) error {
	return s.atomic(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, s.q(`UPDATE platform_trainee_tokens SET revoked_at = ? WHERE conversation_hash = ? AND revoked_at IS NULL`),
			ms(t.CreatedAt), t.ConversationHash); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO platform_trainee_tokens (hash, studio_id, trainee_id, key_id, conversation_hash, scopes, expires_at, revoked_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			t.Hash, t.StudioID, t.TraineeID, t.KeyID, t.ConversationHash, strings.Join(t.Scopes, " "), ms(t.ExpiresAt), msPtr(t.RevokedAt), ms(t.CreatedAt))
		return err
	})
}

func (s platformStore) Token(ctx context.Context, hash []byte) (PlatformToken, error) {
	var t PlatformToken
	var scopes string
	var expires, created int64
	var revoked sql.NullInt64
	err := s.queryRow(ctx, `SELECT hash, studio_id, trainee_id, key_id, conversation_hash, scopes, expires_at, revoked_at, created_at
		FROM platform_trainee_tokens WHERE hash = ?`, hash).Scan(&t.Hash, &t.StudioID, &t.TraineeID, &t.KeyID, &t.ConversationHash, &scopes, &expires, &revoked, &created)
	if err != nil {
		return t, notFound(err)
	}
	t.Scopes = strings.Fields(scopes)
	t.ExpiresAt, t.CreatedAt, t.RevokedAt = fromMS(expires), fromMS(created), fromNullMS(revoked)
	return t, nil
}

func (s platformStore) RevokeTokens(ctx context.Context, conversationHash []byte, at time.Time) (int, error) {
	res, err := s.exec(ctx, `UPDATE platform_trainee_tokens SET revoked_at = ? WHERE conversation_hash = ? AND revoked_at IS NULL`, ms(at), conversationHash)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

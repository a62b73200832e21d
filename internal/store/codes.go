package store

import (
	"context"
	"time"
)

// CodeStore keeps the one-time codes of internal/otc (table
// one_time_codes): one live code per key. It is global, not per studio: a
// key is the SHA-256 of a door's purpose and subject, found by hash.
type CodeStore interface {
	// PutCode writes c, replacing the code of its key, tries and all.
	PutCode(ctx context.Context, c OneTimeCode) error
	// TryCode counts one try of the code of key and returns the row with
	// the count, this try included, in one statement: two tries at once
	// never read the same count. ErrNotFound without a code.
	TryCode(ctx context.Context, key []byte) (OneTimeCode, error)
	// UseCode deletes the code of key when its hash is still codeHash and
	// reports whether it did, so a right code is used once.
	UseCode(ctx context.Context, key, codeHash []byte) (bool, error)
	// DeleteCode forgets the code of key (none is no error).
	DeleteCode(ctx context.Context, key []byte) error
	// SweepCodes forgets the codes that expired at or before now.
	SweepCodes(ctx context.Context, now time.Time) error
}

// OneTimeCode is one live code. Key is the SHA-256 of the door's purpose
// and subject; CodeHash the code's hash bound to Key; Data what the door
// bound to the code.
type OneTimeCode struct {
	Key       []byte
	CodeHash  []byte
	Data      string
	Tries     int
	CreatedAt time.Time
	ExpiresAt time.Time
}

type codeStore struct{ *sqlStore }

func (s *sqlStore) Codes() CodeStore { return codeStore{s} }

func (s codeStore) PutCode(ctx context.Context, c OneTimeCode) error {
	_, err := s.exec(ctx, `INSERT INTO one_time_codes (subject_key, code_hash, data, tries, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (subject_key) DO UPDATE SET code_hash = excluded.code_hash, data = excluded.data, tries = excluded.tries,
			created_at = excluded.created_at, expires_at = excluded.expires_at`,
		c.Key, c.CodeHash, c.Data, c.Tries, ms(c.CreatedAt), ms(c.ExpiresAt))
	return err
}

func (s codeStore) TryCode(ctx context.Context, key []byte) (OneTimeCode, error) {
	c := OneTimeCode{Key: key}
	var created, expires int64
	// One UPDATE … RETURNING: the row lock (PostgreSQL) or the one writer
	// (SQLite) makes the count and the read one step.
	err := s.atomic(ctx, func(q querier) error {
		return q.QueryRowContext(ctx, s.q(`UPDATE one_time_codes SET tries = tries + 1 WHERE subject_key = ?
			RETURNING code_hash, data, tries, created_at, expires_at`), key).
			Scan(&c.CodeHash, &c.Data, &c.Tries, &created, &expires)
	})
	if err != nil {
		return c, notFound(err)
	}
	c.CreatedAt, c.ExpiresAt = fromMS(created), fromMS(expires)
	return c, nil
}

func (s codeStore) UseCode(ctx context.Context, key, codeHash []byte) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM one_time_codes WHERE subject_key = ? AND code_hash = ?`, key, codeHash)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s codeStore) DeleteCode(ctx context.Context, key []byte) error {
	_, err := s.exec(ctx, `DELETE FROM one_time_codes WHERE subject_key = ?`, key)
	return err
}

func (s codeStore) SweepCodes(ctx context.Context, now time.Time) error {
	_, err := s.exec(ctx, `DELETE FROM one_time_codes WHERE expires_at <= ?`, ms(now))
	return err
}

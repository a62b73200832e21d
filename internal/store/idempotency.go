package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// IdempotencyTTL is how long a write's answer is kept under its
// Idempotency-Key: a key older than this is free to be used again.
const IdempotencyTTL = 24 * time.Hour

// IdempotentRecord is what is stored under an Idempotency-Key: the hash of
// the request that claimed it and, once it finished, its answer.
type IdempotentRecord struct {
	Key         string
	RequestHash string
	Status      int // 0 while the first request is still running
	Body        []byte
	CreatedAt   time.Time
}

// InProgress reports whether the claiming request has not answered yet.
func (r IdempotentRecord) InProgress() bool { return r.Status == 0 }

// BeginIdempotent claims key for a request (started true) or returns the
// record already there. The claim is held for lease from now, and as much
// longer as its request keeps renewing it (RenewIdempotent) while it runs;
// a claim still in progress past its hold died with its process and is
// taken over. A record older than keepFor (IdempotencyTTL for a client's
// key, less for keys Perform derives itself) is expired and taken over
// too. Two concurrent calls never both start: the insert and the takeover
// are single conditional statements.
func (s *studioStore) BeginIdempotent(ctx context.Context, key, requestHash string, now time.Time, lease, keepFor time.Duration) (IdempotentRecord, bool, error) {
	at, until := ms(now), ms(now.Add(lease))
	// A row deleted between the statements (released, expired) is claimed
	// on the next round; three rounds are plenty.
	for range 3 {
		res, err := s.exec(ctx, `INSERT INTO idempotency_keys (studio_id, key, request_hash, status, body, created_at, held_until)
			VALUES (?, ?, ?, 0, NULL, ?, ?) ON CONFLICT (studio_id, key) DO NOTHING`,
			s.studioID, key, requestHash, at, until)
		if err != nil {
			return IdempotentRecord{}, false, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return IdempotentRecord{Key: key, RequestHash: requestHash, CreatedAt: fromMS(at)}, true, nil
		}
		res, err = s.exec(ctx, `UPDATE idempotency_keys SET request_hash = ?, status = 0, body = NULL, created_at = ?, held_until = ?
			WHERE studio_id = ? AND key = ? AND ((status = 0 AND held_until < ?) OR created_at < ?)`,
			requestHash, at, until, s.studioID, key, at, ms(now.Add(-keepFor)))
		if err != nil {
			return IdempotentRecord{}, false, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return IdempotentRecord{Key: key, RequestHash: requestHash, CreatedAt: fromMS(at)}, true, nil
		}
		rec := IdempotentRecord{Key: key}
		var created int64
		err = s.queryRow(ctx, `SELECT request_hash, status, body, created_at FROM idempotency_keys WHERE studio_id = ? AND key = ?`,
			s.studioID, key).Scan(&rec.RequestHash, &rec.Status, &rec.Body, &created)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return IdempotentRecord{}, false, err
		}
		rec.CreatedAt = fromMS(created)
		return rec, false, nil
	}
	return IdempotentRecord{}, false, fmt.Errorf("claiming idempotency key %s: it kept being deleted and re-created", key)
}

// FinishIdempotent stores the answer of the request that made claim. A
// claim taken over since (its request outlived staleAfter) is left to its
// new owner: the claim's hash and time must still be the row's.
func (s *studioStore) FinishIdempotent(ctx context.Context, claim IdempotentRecord, status int, body []byte) error {
	if status == 0 {
		return errors.New("FinishIdempotent: status 0 means in progress")
	}
	if body == nil {
		body = []byte{}
	}
	_, err := s.exec(ctx, `UPDATE idempotency_keys SET status = ?, body = ?
		WHERE studio_id = ? AND key = ? AND status = 0 AND request_hash = ? AND created_at = ?`,
		status, body, s.studioID, claim.Key, claim.RequestHash, ms(claim.CreatedAt))
	return err
}

// RenewIdempotent holds claim, still in progress, until until: its request
// is alive. It reports false when the claim is no longer its request's
// (finished, released, or taken over after a hold that ran out).
func (s *studioStore) RenewIdempotent(ctx context.Context, claim IdempotentRecord, until time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE idempotency_keys SET held_until = ?
		WHERE studio_id = ? AND key = ? AND status = 0 AND request_hash = ? AND created_at = ?`,
		ms(until), s.studioID, claim.Key, claim.RequestHash, ms(claim.CreatedAt))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReleaseIdempotent forgets an unfinished claim, so the next request with
// its key runs for real. A finished record, or a claim taken over since,
// stays.
func (s *studioStore) ReleaseIdempotent(ctx context.Context, claim IdempotentRecord) error {
	_, err := s.exec(ctx, `DELETE FROM idempotency_keys
		WHERE studio_id = ? AND key = ? AND status = 0 AND request_hash = ? AND created_at = ?`,
		s.studioID, claim.Key, claim.RequestHash, ms(claim.CreatedAt))
	return err
}

// ExpireIdempotencyKeys deletes, in every studio, the records created
// before before, and returns how many went.
func (s *sqlStore) ExpireIdempotencyKeys(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < ?`, ms(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Plan limits are enforced here, once, inside the transaction of the write
// that would exceed them: the count and the write happen under a lock on the
// studio's row, so concurrent writers of one studio take turns. On Postgres
// the lock is SELECT … FOR UPDATE; SQLite has one writer at a time (the
// process's writer slot, and BEGIN IMMEDIATE across processes), so counting
// inside the write's transaction is enough there.

// LimitError says a write would take a studio past its plan: it has Count
// of what the plan allows Limit of. Callers word it for their audience.
type LimitError struct {
	What  string // "live API keys" or "active trainees"
	Limit int
	Count int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("the studio's plan allows %d %s and it has %d", e.Limit, e.What, e.Count)
}

// errNoTx is a programming error: a limit checked outside the write's
// transaction would not hold.
var errNoTx = errors.New("store: a plan limit must be checked inside the write's transaction (Store.InTx)")

// lockStudio takes the studio's row lock for the rest of the transaction.
func (s *sqlStore) lockStudio(ctx context.Context, studioID string) error {
	if s.tx == nil {
		return errNoTx
	}
	query := `SELECT id FROM studios WHERE id = ?`
	if s.engine == EnginePostgres {
		query += ` FOR UPDATE`
	}
	var id string
	if err := s.queryRow(ctx, query, studioID).Scan(&id); err != nil {
		return notFoundAs(notFound(err), "studio", studioID)
	}
	return nil
}

// MintAPIKey writes k if the studio has fewer than maxLive live keys, under
// the studio's lock, and, when ev is not nil, ev as the audit event of the
// creation, all in one transaction (joining the caller's, if any). A studio
// at its limit gives *LimitError and writes nothing.
func (s *sqlStore) MintAPIKey(ctx context.Context, k *domain.APIKey, maxLive int, ev *domain.AuditEvent) error {
	return s.InTx(ctx, func(tx Store) error {
		t := tx.(*sqlStore)
		if err := t.lockStudio(ctx, k.StudioID); err != nil {
			return err
		}
		n, err := t.CountLiveAPIKeys(ctx, k.StudioID)
		if err != nil {
			return err
		}
		if n >= maxLive {
			return &LimitError{What: "live API keys", Limit: maxLive, Count: n}
		}
		if err := t.CreateAPIKey(ctx, k); err != nil {
			return err
		}
		if ev == nil {
			return nil
		}
		e := *ev
		e.StudioID, e.ResourceID = k.StudioID, k.ID
		if e.ID == "" {
			e.ID = ids.New(ids.Audit)
		}
		if e.At.IsZero() {
			e.At = k.CreatedAt
		}
		return t.InsertAudit(ctx, []domain.AuditEvent{e})
	})
}

// ReserveActiveTrainee takes the studio's lock and answers *LimitError when
// the studio already has max active trainees. Call it inside the
// transaction of the write that adds an active trainee, before that write.
func (s *studioStore) ReserveActiveTrainee(ctx context.Context, max int) error {
	if err := s.lockStudio(ctx, s.studioID); err != nil {
		return err
	}
	n, err := s.CountActiveTrainees(ctx)
	if err != nil {
		return err
	}
	if n >= max {
		return &LimitError{What: "active trainees", Limit: max, Count: n}
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
)

// studioStore is one studio's view of the store: every query carries its id.
type studioStore struct {
	*sqlStore
	studioID string
}

func (s *sqlStore) Studio(studioID string) StudioStore {
	return &studioStore{sqlStore: s, studioID: studioID}
}

// exists reports whether table holds id in this studio. table is one of
// the store's own constant names, never input.
func (s *studioStore) exists(ctx context.Context, q querier, table, id string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, s.q(`SELECT 1 FROM `+table+` WHERE studio_id = ? AND id = ?`), s.studioID, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// mustExist is exists with a not-found error naming the kind of id.
func (s *studioStore) mustExist(ctx context.Context, q querier, table, noun, id string) error {
	ok, err := s.exists(ctx, q, table, id)
	if err != nil {
		return err
	}
	if !ok {
		return missing(noun, id)
	}
	return nil
}

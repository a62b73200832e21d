package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/otherwise/perform/internal/ids"
)

// The shapes every entity's reads and writes share. An entity brings its
// columns and a row scanner; these bring the paging, the not-found error
// and the id and creation time.

// scanner is one row: *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// rowScanner reads one entity from a row of its columns; extra takes the
// columns a query adds after them.
type rowScanner[T any] func(row scanner, v *T, extra ...any) error

// reader is what the store and a studio's store run queries with.
type reader interface {
	query(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	queryRow(ctx context.Context, query string, args ...any) *sql.Row
}

// listPage runs a count and a page query sharing one FROM … WHERE clause
// and its arguments.
func listPage[T any](ctx context.Context, s reader, columns, from, where, orderBy string, args []any, page Page, scan rowScanner[T]) (List[T], error) {
	out := List[T]{Items: []T{}}
	if err := s.queryRow(ctx, `SELECT count(*) `+from+` WHERE `+where, args...).Scan(&out.Total); err != nil {
		return out, err
	}
	limit, offset := pageArgs(page)
	if out.Total == 0 || offset >= out.Total {
		return out, nil
	}
	items, err := listAll(ctx, s, `SELECT `+columns+` `+from+` WHERE `+where+` ORDER BY `+orderBy+` LIMIT ? OFFSET ?`, append(args, limit, offset), scan)
	if items != nil {
		out.Items = items
	}
	return out, err
}

// listAll reads every row of query; never nil without an error.
func listAll[T any](ctx context.Context, s reader, query string, args []any, scan rowScanner[T]) ([]T, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// getOne reads the one row of query; no row is ErrNotFound naming noun and id.
func getOne[T any](ctx context.Context, s reader, noun, id, query string, args []any, scan rowScanner[T]) (T, error) {
	var v T
	err := scan(s.queryRow(ctx, query, args...), &v)
	return v, notFoundAs(notFound(err), noun, id)
}

// fillNew gives a row about to be inserted a fresh id of kind and the
// store's clock as its creation time, where the caller set neither.
func (s *sqlStore) fillNew(id *string, kind ids.Kind, created *time.Time) {
	if *id == "" {
		*id = ids.New(kind)
	}
	if created.IsZero() {
		*created = s.now()
	}
}

// insertForTrainee inserts one row a trainee owns, in one transaction with
// the check that the trainee is this studio's; noun and id name the row in
// a conflict.
func (s *studioStore) insertForTrainee(ctx context.Context, traineeID, noun, id, insert string, args ...any) error {
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", traineeID); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, s.q(insert), args...)
		return s.writeErr(err, noun, id)
	})
}

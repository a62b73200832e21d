package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Benchmarks and their entries. Entries are never updated: a new value is
// a new row, so the history is the table.

const benchmarkColumns = `b.id, b.trainee_id, b.name, b.exercise_id, b.unit, b.direction, b.created_at`

func scanBenchmark(row scanner, b *domain.Benchmark, extra ...any) error {
	var exercise sql.Null[string]
	var created int64
	if err := row.Scan(append([]any{&b.ID, &b.TraineeID, &b.Name, &exercise, &b.Unit, &b.Direction, &created}, extra...)...); err != nil {
		return err
	}
	b.ExerciseID, b.CreatedAt = valueOrNil(exercise), fromMS(created)
	b.Entries = []domain.BenchmarkEntry{}
	return nil
}

// benchmarkKey is the name a benchmark is unique by: trimmed, lower-cased.
func benchmarkKey(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

func (s *studioStore) ListBenchmarks(ctx context.Context, traineeID string) ([]domain.Benchmark, error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return nil, err
	}
	list, err := listAll(ctx, s, `SELECT `+benchmarkColumns+` FROM benchmarks b WHERE b.studio_id = ? AND b.trainee_id = ? ORDER BY b.name_key, b.id`,
		[]any{s.studioID, traineeID}, scanBenchmark)
	if err != nil || len(list) == 0 {
		return list, err
	}
	// Every entry of the trainee's benchmarks in one query.
	at := make(map[string]int, len(list))
	for i, b := range list {
		at[b.ID] = i
	}
	// The benchmarks are chosen first, so the entries are read through
	// their (studio, benchmark) index, not a walk of the studio's entries.
	rows, err := s.query(ctx, `SELECT e.benchmark_id, `+entryColumns+` FROM benchmark_entries e
		WHERE e.studio_id = ? AND e.benchmark_id IN (SELECT b.id FROM benchmarks b WHERE b.studio_id = ? AND b.trainee_id = ?)
		ORDER BY e.recorded_at, e.id`, s.studioID, s.studioID, traineeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var bid string
		var e domain.BenchmarkEntry
		if err := scanEntry(rows, &e, &bid); err != nil {
			return nil, err
		}
		if i, ok := at[bid]; ok {
			list[i].Entries = append(list[i].Entries, e)
		}
	}
	return list, rows.Err()
}

const entryColumns = `e.id, e.value, e.recorded_at, e.source, e.session_id, e.notes`

// scanEntry reads an entry; a leading column (the benchmark id) goes to
// the first of lead.
func scanEntry(row scanner, e *domain.BenchmarkEntry, lead ...any) error {
	var session, notes sql.Null[string]
	var recorded int64
	if err := row.Scan(append(lead, &e.ID, &e.Value, &recorded, &e.Source, &session, &notes)...); err != nil {
		return err
	}
	e.RecordedAt, e.SessionID, e.Notes = fromMS(recorded), valueOrNil(session), valueOrNil(notes)
	return nil
}

// withEntries fills b's entries, oldest first.
func (s *studioStore) withEntries(ctx context.Context, b domain.Benchmark, err error) (domain.Benchmark, error) {
	if err != nil {
		return b, err
	}
	b.Entries, err = listAll(ctx, s, `SELECT `+entryColumns+` FROM benchmark_entries e WHERE e.studio_id = ? AND e.benchmark_id = ? ORDER BY e.recorded_at, e.id`,
		[]any{s.studioID, b.ID}, func(row scanner, e *domain.BenchmarkEntry, _ ...any) error { return scanEntry(row, e) })
	return b, err
}

func (s *studioStore) GetBenchmark(ctx context.Context, id string) (domain.Benchmark, error) {
	b, err := getOne(ctx, s, "benchmark", id, `SELECT `+benchmarkColumns+` FROM benchmarks b WHERE b.studio_id = ? AND b.id = ?`, []any{s.studioID, id}, scanBenchmark)
	return s.withEntries(ctx, b, err)
}

func (s *studioStore) FindBenchmark(ctx context.Context, traineeID, name string) (domain.Benchmark, error) {
	b, err := getOne(ctx, s, "benchmark", name, `SELECT `+benchmarkColumns+` FROM benchmarks b WHERE b.studio_id = ? AND b.trainee_id = ? AND b.name_key = ?`,
		[]any{s.studioID, traineeID, benchmarkKey(name)}, scanBenchmark)
	if err != nil {
		return b, fmt.Errorf("%w: trainee %s has no benchmark named %q", ErrNotFound, traineeID, name)
	}
	return s.withEntries(ctx, b, nil)
}

func (s *studioStore) ExerciseBenchmark(ctx context.Context, traineeID, exerciseID string) (domain.Benchmark, error) {
	b, err := getOne(ctx, s, "benchmark", exerciseID, `SELECT `+benchmarkColumns+` FROM benchmarks b
		WHERE b.studio_id = ? AND b.trainee_id = ? AND b.exercise_id = ? ORDER BY b.created_at, b.id LIMIT 1`,
		[]any{s.studioID, traineeID, exerciseID}, scanBenchmark)
	if err != nil {
		return b, fmt.Errorf("%w: trainee %s has no benchmark of exercise %s", ErrNotFound, traineeID, exerciseID)
	}
	return s.withEntries(ctx, b, nil)
}

func (s *studioStore) ExerciseBests(ctx context.Context, traineeID string, exerciseIDs []string) (map[string]ExerciseBest, error) {
	out := map[string]ExerciseBest{}
	if len(exerciseIDs) == 0 {
		return out, nil
	}
	args := []any{s.studioID, traineeID}
	for _, id := range exerciseIDs {
		args = append(args, id)
	}
	rows, err := s.query(ctx, `SELECT b.id, b.name, b.exercise_id, b.direction, max(e.value), min(e.value)
		FROM benchmarks b LEFT JOIN benchmark_entries e ON e.studio_id = b.studio_id AND e.benchmark_id = b.id
		WHERE b.studio_id = ? AND b.trainee_id = ? AND b.exercise_id IN (`+placeholders(len(exerciseIDs))+`)
		GROUP BY b.id, b.name, b.exercise_id, b.direction, b.created_at ORDER BY b.created_at, b.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var eb ExerciseBest
		var exercise string
		var hi, lo sql.Null[float64]
		if err := rows.Scan(&eb.BenchmarkID, &eb.Name, &exercise, &eb.Direction, &hi, &lo); err != nil {
			return nil, err
		}
		if _, seen := out[exercise]; seen {
			continue // the first made is the exercise's benchmark
		}
		eb.Best = valueOrNil(hi)
		if eb.Direction == domain.LowerIsBetter {
			eb.Best = valueOrNil(lo)
		}
		out[exercise] = eb
	}
	return out, rows.Err()
}

func (s *studioStore) CreateBenchmark(ctx context.Context, b *domain.Benchmark) error {
	s.fillNew(&b.ID, ids.Benchmark, &b.CreatedAt)
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", b.TraineeID); err != nil {
			return err
		}
		// Checked first: a violated index would abort a Postgres transaction.
		var existing string
		err := q.QueryRowContext(ctx, s.q(`SELECT id FROM benchmarks WHERE studio_id = ? AND trainee_id = ? AND name_key = ?`),
			s.studioID, b.TraineeID, benchmarkKey(b.Name)).Scan(&existing)
		if err == nil {
			return &ConflictError{Message: fmt.Sprintf("Trainee %s already has a benchmark named %q: %s.", b.TraineeID, b.Name, existing), ExistingID: existing}
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		_, err = q.ExecContext(ctx, s.q(`INSERT INTO benchmarks (id, studio_id, trainee_id, name, name_key, exercise_id, unit, direction, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			b.ID, s.studioID, b.TraineeID, b.Name, benchmarkKey(b.Name), b.ExerciseID, b.Unit, b.Direction, ms(b.CreatedAt))
		if err := s.writeErr(err, "benchmark", b.ID); err != nil {
			return err
		}
		for i := range b.Entries {
			if err := s.insertEntry(ctx, q, b.ID, &b.Entries[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddBenchmarkEntry needs no existence check: the entry's key (studio,
// benchmark) refuses a benchmark of another studio, or none.
func (s *studioStore) AddBenchmarkEntry(ctx context.Context, benchmarkID string, e *domain.BenchmarkEntry) error {
	return s.insertEntry(ctx, s.conn(), benchmarkID, e)
}

func (s *studioStore) insertEntry(ctx context.Context, q querier, benchmarkID string, e *domain.BenchmarkEntry) error {
	if e.ID == "" {
		e.ID = ids.New(ids.BenchmarkEntry)
	}
	if e.RecordedAt.IsZero() {
		e.RecordedAt = s.now()
	}
	_, err := q.ExecContext(ctx, s.q(`INSERT INTO benchmark_entries (id, studio_id, benchmark_id, value, recorded_at, source, session_id, notes)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		e.ID, s.studioID, benchmarkID, e.Value, ms(e.RecordedAt), e.Source, e.SessionID, e.Notes)
	if isForeignKeyViolation(err) {
		return missing("benchmark", benchmarkID)
	}
	return s.writeErr(err, "benchmark entry", e.ID)
}

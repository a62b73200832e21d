package store

import (
	"context"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Weigh-ins: a trainee's weight, one row a weighing (table weights).

func (s *studioStore) ListWeights(ctx context.Context, traineeID string, page Page) (List[domain.Weight], error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return List[domain.Weight]{}, err
	}
	return listPage(ctx, s, weightColumns, `FROM weights w`,
		`w.studio_id = ? AND w.trainee_id = ?`, `w.recorded_at DESC, w.id DESC`, []any{s.studioID, traineeID}, page, scanWeight)
}

const weightColumns = `w.id, w.trainee_id, w.weight_kg, w.recorded_at, w.created_at, w.logged_by`

func scanWeight(row scanner, w *domain.Weight, extra ...any) error {
	var recorded, created int64
	err := row.Scan(append([]any{&w.ID, &w.TraineeID, &w.WeightKg, &recorded, &created, &w.LoggedBy}, extra...)...)
	w.RecordedAt, w.CreatedAt = fromMS(recorded), fromMS(created)
	return err
}

func (s *studioStore) CreateWeight(ctx context.Context, w *domain.Weight) error {
	s.fillNew(&w.ID, ids.Weight, &w.CreatedAt)
	if w.RecordedAt.IsZero() {
		w.RecordedAt = w.CreatedAt
	}
	return s.insertForTrainee(ctx, w.TraineeID, "weight entry", w.ID,
		`INSERT INTO weights (id, studio_id, trainee_id, weight_kg, recorded_at, created_at, logged_by) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		w.ID, s.studioID, w.TraineeID, w.WeightKg, ms(w.RecordedAt), ms(w.CreatedAt), w.LoggedBy)
}

// WeightsBetween is oldest first; another studio's trainee has none.
func (s *studioStore) WeightsBetween(ctx context.Context, traineeID string, from, to time.Time) ([]domain.Weight, error) {
	return listAll(ctx, s, `SELECT `+weightColumns+` FROM weights w
		WHERE w.studio_id = ? AND w.trainee_id = ? AND w.recorded_at >= ? AND w.recorded_at < ?
		ORDER BY w.recorded_at, w.id`, []any{s.studioID, traineeID, ms(from), ms(to)}, scanWeight)
}

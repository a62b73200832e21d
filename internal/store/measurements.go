package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Body measurements beyond weight (table measurements).

const measurementColumns = `m.id, m.trainee_id, m.recorded_at, m.body_fat_pct, m.waist_cm, m.hips_cm, m.chest_cm, m.arm_cm, m.thigh_cm, m.resting_hr, m.notes, m.created_at, m.logged_by`

func scanMeasurement(row scanner, m *domain.Measurement, extra ...any) error {
	var fat, waist, hips, chest, arm, thigh sql.Null[float64]
	var hr sql.Null[int]
	var notes sql.Null[string]
	var recorded, created int64
	if err := row.Scan(append([]any{&m.ID, &m.TraineeID, &recorded, &fat, &waist, &hips, &chest, &arm, &thigh, &hr, &notes, &created, &m.LoggedBy}, extra...)...); err != nil {
		return err
	}
	m.BodyFatPct, m.WaistCm, m.HipsCm, m.ChestCm = valueOrNil(fat), valueOrNil(waist), valueOrNil(hips), valueOrNil(chest)
	m.ArmCm, m.ThighCm, m.RestingHR, m.Notes = valueOrNil(arm), valueOrNil(thigh), valueOrNil(hr), valueOrNil(notes)
	m.RecordedAt, m.CreatedAt = fromMS(recorded), fromMS(created)
	return nil
}

func (s *studioStore) ListMeasurements(ctx context.Context, traineeID string, page Page) (List[domain.Measurement], error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return List[domain.Measurement]{}, err
	}
	return listPage(ctx, s, measurementColumns, `FROM measurements m`, `m.studio_id = ? AND m.trainee_id = ?`,
		`m.recorded_at DESC, m.id DESC`, []any{s.studioID, traineeID}, page, scanMeasurement)
}

// CreateMeasurement stores m; RecordedAt defaults to CreatedAt.
func (s *studioStore) CreateMeasurement(ctx context.Context, m *domain.Measurement) error {
	s.fillNew(&m.ID, ids.Measurement, &m.CreatedAt)
	if m.RecordedAt.IsZero() {
		m.RecordedAt = m.CreatedAt
	}
	return s.insertForTrainee(ctx, m.TraineeID, "measurement", m.ID,
		`INSERT INTO measurements (id, studio_id, trainee_id, recorded_at, body_fat_pct, waist_cm, hips_cm, chest_cm, arm_cm, thigh_cm, resting_hr, notes, created_at, logged_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, s.studioID, m.TraineeID, ms(m.RecordedAt), m.BodyFatPct, m.WaistCm, m.HipsCm, m.ChestCm, m.ArmCm, m.ThighCm, m.RestingHR, m.Notes, ms(m.CreatedAt), m.LoggedBy)
}

// MeasurementsBetween is oldest first; another studio's trainee has none.
func (s *studioStore) MeasurementsBetween(ctx context.Context, traineeID string, from, to time.Time) ([]domain.Measurement, error) {
	return listAll(ctx, s, `SELECT `+measurementColumns+` FROM measurements m
		WHERE m.studio_id = ? AND m.trainee_id = ? AND m.recorded_at >= ? AND m.recorded_at < ?
		ORDER BY m.recorded_at, m.id`, []any{s.studioID, traineeID, ms(from), ms(to)}, scanMeasurement)
}

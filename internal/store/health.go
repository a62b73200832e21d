package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// The health side of the training memory: daily check-ins, injuries,
// goals and training profiles (training.go); the body's numbers are in
// measurements.go and weighins.go.

// jsonList encodes a list column; nil is stored as [].
func jsonList[T any](v []T) (string, error) {
	if v == nil {
		v = []T{}
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// readList decodes a list column into dst, never leaving it nil.
func readList[T any](raw string, dst *[]T) error {
	*dst = []T{}
	if raw == "" {
		return nil
	}
	return json.Unmarshal([]byte(raw), dst)
}

// updatedNow is UpdatedAt as the store writes it: kept when set, else its clock.
func (s *studioStore) updatedNow(t *time.Time) {
	if t.IsZero() {
		*t = s.now()
	}
}

// Check-ins.

const checkInColumns = `c.id, c.trainee_id, c.day, c.readiness, c.soreness, c.sore_areas, c.sleep_hours, c.sleep_quality, c.mood, c.stress, c.note, c.created_at, c.updated_at, c.logged_by`

func scanCheckIn(row scanner, c *domain.CheckIn, extra ...any) error {
	var readiness, soreness, quality, mood, stress sql.Null[int]
	var sleep sql.Null[float64]
	var note sql.Null[string]
	var areas string
	var created, updated int64
	if err := row.Scan(append([]any{&c.ID, &c.TraineeID, &c.Day, &readiness, &soreness, &areas, &sleep, &quality, &mood, &stress, &note, &created, &updated, &c.LoggedBy}, extra...)...); err != nil {
		return err
	}
	c.Readiness, c.Soreness, c.SleepHours, c.SleepQuality = valueOrNil(readiness), valueOrNil(soreness), valueOrNil(sleep), valueOrNil(quality)
	c.Mood, c.Stress, c.Note = valueOrNil(mood), valueOrNil(stress), valueOrNil(note)
	c.CreatedAt, c.UpdatedAt = fromMS(created), fromMS(updated)
	return readList(areas, &c.SoreAreas)
}

func (s *studioStore) CheckInOn(ctx context.Context, traineeID, day string) (domain.CheckIn, error) {
	var c domain.CheckIn
	err := scanCheckIn(s.queryRow(ctx, `SELECT `+checkInColumns+` FROM checkins c WHERE c.studio_id = ? AND c.trainee_id = ? AND c.day = ?`,
		s.studioID, traineeID, day), &c)
	return c, notFound(err)
}

// PutCheckIn is one upsert on the (studio, trainee, day) key, so two
// check-ins of one day racing each other leave one row and no error on
// either engine. One was there when the transaction saw it first, or when
// the upsert answers another id than c's (a racing writer inserted it
// meanwhile).
func (s *studioStore) PutCheckIn(ctx context.Context, c *domain.CheckIn) (bool, error) {
	s.fillNew(&c.ID, ids.CheckIn, &c.CreatedAt)
	s.updatedNow(&c.UpdatedAt)
	areas, err := jsonList(c.SoreAreas)
	if err != nil {
		return false, err
	}
	var id string
	var created int64
	var before bool
	err = s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", c.TraineeID); err != nil {
			return err
		}
		var one int
		switch err := q.QueryRowContext(ctx, s.q(`SELECT 1 FROM checkins WHERE studio_id = ? AND trainee_id = ? AND day = ?`), s.studioID, c.TraineeID, c.Day).Scan(&one); {
		case err == nil:
			before = true
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		// An update keeps who logged the day's check-in first and marks it
		// revised: no longer one log its author may withdraw.
		return q.QueryRowContext(ctx, s.q(`INSERT INTO checkins (id, studio_id, trainee_id, day, readiness, soreness, sore_areas, sleep_hours, sleep_quality, mood, stress, note, created_at, updated_at, logged_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (studio_id, trainee_id, day) DO UPDATE SET readiness = excluded.readiness, soreness = excluded.soreness,
				sore_areas = excluded.sore_areas, sleep_hours = excluded.sleep_hours, sleep_quality = excluded.sleep_quality,
				mood = excluded.mood, stress = excluded.stress, note = excluded.note, updated_at = excluded.updated_at, revised = TRUE
			RETURNING id, created_at, logged_by`),
			c.ID, s.studioID, c.TraineeID, c.Day, c.Readiness, c.Soreness, areas, c.SleepHours, c.SleepQuality, c.Mood, c.Stress, c.Note, ms(c.CreatedAt), ms(c.UpdatedAt), c.LoggedBy).
			Scan(&id, &created, &c.LoggedBy)
	})
	if err != nil {
		return false, s.writeErr(err, "check-in", c.ID)
	}
	replaced := before || id != c.ID
	c.ID, c.CreatedAt = id, fromMS(created)
	return replaced, nil
}

func (s *studioStore) ListCheckIns(ctx context.Context, traineeID, from, to string, page Page) (List[domain.CheckIn], error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return List[domain.CheckIn]{}, err
	}
	where, args := `c.studio_id = ? AND c.trainee_id = ?`, []any{s.studioID, traineeID}
	if from != "" {
		where += ` AND c.day >= ?`
		args = append(args, from)
	}
	if to != "" {
		where += ` AND c.day <= ?`
		args = append(args, to)
	}
	return listPage(ctx, s, checkInColumns, `FROM checkins c`, where, `c.day DESC`, args, page, scanCheckIn)
}

// Injuries.

const injuryColumns = `i.id, i.trainee_id, i.area, i.side, i.severity, i.status, i.onset_on, i.resolved_on, i.affected_exercises, i.notes, i.created_at, i.updated_at, i.kind`

func scanInjury(row scanner, i *domain.Injury, extra ...any) error {
	var resolved, notes sql.Null[string]
	var affected string
	var created, updated int64
	if err := row.Scan(append([]any{&i.ID, &i.TraineeID, &i.Area, &i.Side, &i.Severity, &i.Status, &i.OnsetOn, &resolved, &affected, &notes, &created, &updated, &i.Kind}, extra...)...); err != nil {
		return err
	}
	i.ResolvedOn, i.Notes = valueOrNil(resolved), valueOrNil(notes)
	i.CreatedAt, i.UpdatedAt = fromMS(created), fromMS(updated)
	return readList(affected, &i.AffectedExercises)
}

func (s *studioStore) ListInjuries(ctx context.Context, traineeID, status string) ([]domain.Injury, error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return nil, err
	}
	where, args := `i.studio_id = ? AND i.trainee_id = ?`, []any{s.studioID, traineeID}
	if status != "" {
		where += ` AND i.status = ?`
		args = append(args, status)
	}
	return listAll(ctx, s, `SELECT `+injuryColumns+` FROM injuries i WHERE `+where+` ORDER BY i.onset_on DESC, i.created_at DESC, i.id DESC`, args, scanInjury)
}

func (s *studioStore) GetInjury(ctx context.Context, id string) (domain.Injury, error) {
	return getOne(ctx, s, "injury", id, `SELECT `+injuryColumns+` FROM injuries i WHERE i.studio_id = ? AND i.id = ?`, []any{s.studioID, id}, scanInjury)
}

// CreateInjury stores i with Status active unless set.
func (s *studioStore) CreateInjury(ctx context.Context, i *domain.Injury) error {
	s.fillNew(&i.ID, ids.Injury, &i.CreatedAt)
	if i.Status == "" {
		i.Status = domain.InjuryActive
	}
	if i.UpdatedAt.IsZero() {
		i.UpdatedAt = i.CreatedAt
	}
	exercises, err := jsonList(i.AffectedExercises)
	if err != nil {
		return err
	}
	return s.insertForTrainee(ctx, i.TraineeID, "injury", i.ID,
		`INSERT INTO injuries (id, studio_id, trainee_id, area, side, severity, status, onset_on, resolved_on, affected_exercises, notes, created_at, updated_at, kind)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		i.ID, s.studioID, i.TraineeID, i.Area, i.Side, i.Severity, i.Status, i.OnsetOn, i.ResolvedOn, exercises, i.Notes, ms(i.CreatedAt), ms(i.UpdatedAt), i.Kind)
}

func (s *studioStore) UpdateInjury(ctx context.Context, i *domain.Injury) error {
	s.updatedNow(&i.UpdatedAt)
	exercises, err := jsonList(i.AffectedExercises)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE injuries SET area = ?, side = ?, severity = ?, status = ?, onset_on = ?, resolved_on = ?, affected_exercises = ?, notes = ?, updated_at = ?, kind = ?
		WHERE studio_id = ? AND id = ?`,
		i.Area, i.Side, i.Severity, i.Status, i.OnsetOn, i.ResolvedOn, exercises, i.Notes, ms(i.UpdatedAt), i.Kind, s.studioID, i.ID)
	return affected(res, err, "injury", i.ID)
}

// Goals.

const goalColumns = `g.id, g.trainee_id, g.title, g.kind, g.benchmark_id, g.measure, g.target_value, g.unit, g.target_date, g.status, g.completed_at, g.created_at, g.updated_at`

func scanGoal(row scanner, g *domain.Goal, extra ...any) error {
	var benchmark, measure, unit, date sql.Null[string]
	var target sql.Null[float64]
	var completed sql.NullInt64
	var created, updated int64
	if err := row.Scan(append([]any{&g.ID, &g.TraineeID, &g.Title, &g.Kind, &benchmark, &measure, &target, &unit, &date, &g.Status, &completed, &created, &updated}, extra...)...); err != nil {
		return err
	}
	g.BenchmarkID, g.Measure, g.TargetValue, g.Unit, g.TargetDate = valueOrNil(benchmark), valueOrNil(measure), valueOrNil(target), valueOrNil(unit), valueOrNil(date)
	g.CompletedAt, g.CreatedAt, g.UpdatedAt = fromNullMS(completed), fromMS(created), fromMS(updated)
	return nil
}

func (s *studioStore) ListGoals(ctx context.Context, traineeID, status string) ([]domain.Goal, error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return nil, err
	}
	where, args := `g.studio_id = ? AND g.trainee_id = ?`, []any{s.studioID, traineeID}
	if status != "" {
		where += ` AND g.status = ?`
		args = append(args, status)
	}
	return listAll(ctx, s, `SELECT `+goalColumns+` FROM goals g WHERE `+where+` ORDER BY g.created_at, g.id`, args, scanGoal)
}

func (s *studioStore) GetGoal(ctx context.Context, id string) (domain.Goal, error) {
	return getOne(ctx, s, "goal", id, `SELECT `+goalColumns+` FROM goals g WHERE g.studio_id = ? AND g.id = ?`, []any{s.studioID, id}, scanGoal)
}

// CreateGoal stores g with Status active unless set.
func (s *studioStore) CreateGoal(ctx context.Context, g *domain.Goal) error {
	s.fillNew(&g.ID, ids.Goal, &g.CreatedAt)
	if g.Status == "" {
		g.Status = domain.GoalActive
	}
	if g.UpdatedAt.IsZero() {
		g.UpdatedAt = g.CreatedAt
	}
	return s.insertForTrainee(ctx, g.TraineeID, "goal", g.ID,
		`INSERT INTO goals (id, studio_id, trainee_id, title, kind, benchmark_id, measure, target_value, unit, target_date, status, completed_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.ID, s.studioID, g.TraineeID, g.Title, g.Kind, g.BenchmarkID, g.Measure, g.TargetValue, g.Unit, g.TargetDate, g.Status, msPtr(g.CompletedAt), ms(g.CreatedAt), ms(g.UpdatedAt))
}

func (s *studioStore) UpdateGoal(ctx context.Context, g *domain.Goal) error {
	s.updatedNow(&g.UpdatedAt)
	res, err := s.exec(ctx, `UPDATE goals SET title = ?, kind = ?, benchmark_id = ?, measure = ?, target_value = ?, unit = ?, target_date = ?, status = ?, completed_at = ?, updated_at = ?
		WHERE studio_id = ? AND id = ?`,
		g.Title, g.Kind, g.BenchmarkID, g.Measure, g.TargetValue, g.Unit, g.TargetDate, g.Status, msPtr(g.CompletedAt), ms(g.UpdatedAt), s.studioID, g.ID)
	return affected(res, err, "goal", g.ID)
}

// Training profiles.

func (s *studioStore) GetTrainingProfile(ctx context.Context, traineeID string) (domain.TrainingProfile, error) {
	var p domain.TrainingProfile
	var equipment, availability, onboarding, conditions string
	var minutes sql.Null[int]
	var experience sql.Null[string]
	var updated int64
	err := s.queryRow(ctx, `SELECT trainee_id, equipment, availability, session_minutes, experience, units, onboarding, updated_at, sport, goal, conditions
		FROM training_profiles WHERE studio_id = ? AND trainee_id = ?`, s.studioID, traineeID).
		Scan(&p.TraineeID, &equipment, &availability, &minutes, &experience, &p.Units, &onboarding, &updated, &p.Sport, &p.Goal, &conditions)
	if err != nil {
		return p, notFound(err)
	}
	p.SessionMinutes, p.Experience, p.UpdatedAt = valueOrNil(minutes), valueOrNil(experience), fromMS(updated)
	return p, errors.Join(readList(equipment, &p.Equipment), readList(availability, &p.Availability), readList(onboarding, &p.Onboarding),
		readList(conditions, &p.Conditions))
}

// PutTrainingProfile writes the trainee's one profile, replacing the one
// there; Units defaults to metric.
func (s *studioStore) PutTrainingProfile(ctx context.Context, p *domain.TrainingProfile) error {
	s.updatedNow(&p.UpdatedAt)
	if strings.TrimSpace(p.Units) == "" {
		p.Units = "metric"
	}
	equipment, err := jsonList(p.Equipment)
	if err != nil {
		return err
	}
	availability, err := jsonList(p.Availability)
	if err != nil {
		return err
	}
	onboarding, err := jsonList(p.Onboarding)
	if err != nil {
		return err
	}
	conditions, err := jsonList(p.Conditions)
	if err != nil {
		return err
	}
	return s.insertForTrainee(ctx, p.TraineeID, "training profile", p.TraineeID,
		`INSERT INTO training_profiles (studio_id, trainee_id, equipment, availability, session_minutes, experience, units, onboarding, updated_at, sport, goal, conditions)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (studio_id, trainee_id) DO UPDATE SET equipment = excluded.equipment, availability = excluded.availability,
			session_minutes = excluded.session_minutes, experience = excluded.experience, units = excluded.units,
			onboarding = excluded.onboarding, updated_at = excluded.updated_at, sport = excluded.sport, goal = excluded.goal,
			conditions = excluded.conditions`,
		s.studioID, p.TraineeID, equipment, availability, p.SessionMinutes, p.Experience, p.Units, onboarding, ms(p.UpdatedAt), p.Sport, p.Goal, conditions)
}

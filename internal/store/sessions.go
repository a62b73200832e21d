package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Sessions. A session's exercises and sets are one JSON column read whole
// with its row; the totals are columns of their own so a summary row
// carries them without the JSON.

const sessionSummaryColumns = `x.id, x.trainee_id, x.program_id, x.date, x.start_time, x.sport, x.title, x.status, x.source,
	x.duration_min, x.rpe, x.notes, x.feedback, x.volume_kg, x.sets, x.reps, x.seconds, x.metres, x.completed_at, x.created_at, x.updated_at`

const sessionColumns = sessionSummaryColumns + `, x.exercises`

func scanSessionSummary(row scanner, x *domain.Session, extra ...any) error {
	var program, start, notes, feedback sql.Null[string]
	var duration, rpe sql.Null[int]
	var completed sql.NullInt64
	var created, updated int64
	t := &x.Totals
	if err := row.Scan(append([]any{&x.ID, &x.TraineeID, &program, &x.Date, &start, &x.Sport, &x.Title, &x.Status, &x.Source,
		&duration, &rpe, &notes, &feedback, &t.VolumeKg, &t.Sets, &t.Reps, &t.Seconds, &t.Metres, &completed, &created, &updated}, extra...)...); err != nil {
		return err
	}
	x.ProgramID, x.StartTime, x.Notes, x.Feedback = valueOrNil(program), valueOrNil(start), valueOrNil(notes), valueOrNil(feedback)
	x.DurationMin, x.RPE = valueOrNil(duration), valueOrNil(rpe)
	x.CompletedAt, x.CreatedAt, x.UpdatedAt = fromNullMS(completed), fromMS(created), fromMS(updated)
	return nil
}

func scanSession(row scanner, x *domain.Session, extra ...any) error {
	var exercises string
	if err := scanSessionSummary(row, x, append([]any{&exercises}, extra...)...); err != nil {
		return err
	}
	x.Exercises = []domain.SessionExercise{}
	return json.Unmarshal([]byte(exercises), &x.Exercises)
}

func (s *studioStore) ListSessions(ctx context.Context, f SessionFilter) (List[domain.Session], error) {
	where, args := `x.studio_id = ?`, []any{s.studioID}
	if f.TraineeID != "" {
		if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", f.TraineeID); err != nil {
			return List[domain.Session]{Items: []domain.Session{}}, err
		}
		where, args = where+` AND x.trainee_id = ?`, append(args, f.TraineeID)
	}
	if f.From != "" {
		where, args = where+` AND x.date >= ?`, append(args, f.From)
	}
	if f.To != "" {
		where, args = where+` AND x.date <= ?`, append(args, f.To)
	}
	if f.Status != "" {
		where, args = where+` AND x.status = ?`, append(args, f.Status)
	}
	// coalesce: the engines sort NULL start times to opposite ends.
	order := `x.date DESC, coalesce(x.start_time, '') DESC, x.created_at DESC, x.id DESC`
	if f.Ascending {
		order = `x.date, coalesce(x.start_time, ''), x.created_at, x.id`
	}
	if f.Exercises {
		return listPage(ctx, s, sessionColumns, `FROM sessions x`, where, order, args, f.Page, scanSession)
	}
	return listPage(ctx, s, sessionSummaryColumns, `FROM sessions x`, where, order, args, f.Page, scanSessionSummary)
}

func (s *studioStore) SessionsBetween(ctx context.Context, traineeID, from, to string) ([]domain.Session, error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return nil, err
	}
	return listAll(ctx, s, `SELECT `+sessionColumns+` FROM sessions x WHERE x.studio_id = ? AND x.trainee_id = ? AND x.date >= ? AND x.date <= ?
		ORDER BY x.date, coalesce(x.start_time, ''), x.created_at, x.id`, []any{s.studioID, traineeID, from, to}, scanSession)
}

func (s *studioStore) GetSession(ctx context.Context, id string) (domain.Session, error) {
	return getOne(ctx, s, "session", id, `SELECT `+sessionColumns+` FROM sessions x WHERE x.studio_id = ? AND x.id = ?`, []any{s.studioID, id}, scanSession)
}

func (s *studioStore) CreateSessions(ctx context.Context, sessions []*domain.Session) error {
	if len(sessions) == 0 {
		return nil
	}
	return s.atomic(ctx, func(q querier) error {
		checked := map[string]bool{}
		for _, x := range sessions {
			s.fillNew(&x.ID, ids.Session, &x.CreatedAt)
			if x.UpdatedAt.IsZero() {
				x.UpdatedAt = x.CreatedAt
			}
			if !checked[x.TraineeID] {
				if err := s.mustExist(ctx, q, tableTrainees, "trainee", x.TraineeID); err != nil {
					return err
				}
				checked[x.TraineeID] = true
			}
			if err := s.loggedTaken(ctx, q, x); err != nil {
				return err
			}
			exercises, err := sessionExercisesJSON(x)
			if err != nil {
				return err
			}
			t := x.Totals
			_, err = q.ExecContext(ctx, s.q(`INSERT INTO sessions (id, studio_id, trainee_id, program_id, date, start_time, sport, title, status, source,
				duration_min, rpe, notes, feedback, exercises, volume_kg, sets, reps, seconds, metres, completed_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
				x.ID, s.studioID, x.TraineeID, x.ProgramID, x.Date, x.StartTime, x.Sport, x.Title, x.Status, x.Source,
				x.DurationMin, x.RPE, x.Notes, x.Feedback, exercises, t.VolumeKg, t.Sets, t.Reps, t.Seconds, t.Metres,
				msPtr(x.CompletedAt), ms(x.CreatedAt), ms(x.UpdatedAt))
			if err := s.sessionWriteErr(ctx, err, x); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *studioStore) UpdateSession(ctx context.Context, x *domain.Session) error {
	if x.UpdatedAt.IsZero() {
		x.UpdatedAt = s.now()
	}
	exercises, err := sessionExercisesJSON(x)
	if err != nil {
		return err
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.loggedTaken(ctx, q, x); err != nil {
			return err
		}
		t := x.Totals
		res, err := q.ExecContext(ctx, s.q(`UPDATE sessions SET program_id = ?, date = ?, start_time = ?, sport = ?, title = ?, status = ?, source = ?,
			duration_min = ?, rpe = ?, notes = ?, feedback = ?, exercises = ?, volume_kg = ?, sets = ?, reps = ?, seconds = ?, metres = ?,
			completed_at = ?, updated_at = ? WHERE studio_id = ? AND id = ?`),
			x.ProgramID, x.Date, x.StartTime, x.Sport, x.Title, x.Status, x.Source, x.DurationMin, x.RPE, x.Notes, x.Feedback,
			exercises, t.VolumeKg, t.Sets, t.Reps, t.Seconds, t.Metres, msPtr(x.CompletedAt), ms(x.UpdatedAt), s.studioID, x.ID)
		if err := affected(res, s.sessionWriteErr(ctx, err, x), "session", x.ID); err != nil {
			return err
		}
		var created int64
		err = q.QueryRowContext(ctx, s.q(`SELECT trainee_id, created_at FROM sessions WHERE studio_id = ? AND id = ?`), s.studioID, x.ID).Scan(&x.TraineeID, &created)
		x.CreatedAt = fromMS(created)
		return err
	})
}

func (s *studioStore) DeletePlannedSessions(ctx context.Context, programID, from string) (int, error) {
	res, err := s.exec(ctx, `DELETE FROM sessions WHERE studio_id = ? AND program_id = ? AND status = ? AND date >= ?`,
		s.studioID, programID, domain.SessionPlanned, from)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func sessionExercisesJSON(x *domain.Session) (string, error) {
	if x.Exercises == nil {
		return "[]", nil
	}
	b, err := json.Marshal(x.Exercises)
	return string(b), err
}

// loggedSession finds the completed session that x, were it completed,
// would duplicate under the sessions_logged rule: "" when there is none.
func (s *studioStore) loggedSession(ctx context.Context, q querier, x *domain.Session) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, s.q(`SELECT id FROM sessions WHERE studio_id = ? AND trainee_id = ? AND date = ? AND sport = ?
		AND coalesce(duration_min, -1) = ? AND status = ? AND id <> ?`),
		s.studioID, x.TraineeID, x.Date, x.Sport, durationKey(x.DurationMin), domain.SessionCompleted, x.ID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

func durationKey(d *int) int {
	if d == nil {
		return -1
	}
	return *d
}

// loggedTaken answers the logged rule's ConflictError before a write, so
// a transaction is not left broken by the index (Postgres aborts it).
func (s *studioStore) loggedTaken(ctx context.Context, q querier, x *domain.Session) error {
	if x.Status != domain.SessionCompleted {
		return nil
	}
	existing, err := s.loggedSession(ctx, q, x)
	if err != nil || existing == "" {
		return err
	}
	return loggedConflict(x, existing)
}

func loggedConflict(x *domain.Session, existing string) error {
	d := "no duration"
	if x.DurationMin != nil {
		d = fmt.Sprintf("%d min", *x.DurationMin)
	}
	return &ConflictError{
		Message:    fmt.Sprintf("Trainee %s already has a completed %s session on %s (%s): %s.", x.TraineeID, x.Sport, x.Date, d, existing),
		ExistingID: existing,
	}
}

// sessionWriteErr maps the logged rule's index to its ConflictError. A
// concurrent writer that got there first has committed by the time the
// index answers, so the pool sees its row even when the transaction here
// is aborted.
func (s *studioStore) sessionWriteErr(ctx context.Context, err error, x *domain.Session) error {
	if err == nil || !isUniqueViolation(err) || x.Status != domain.SessionCompleted {
		return s.writeErr(err, "session", x.ID)
	}
	existing, lookErr := s.loggedSession(ctx, s.db, x)
	if lookErr != nil || existing == "" {
		return s.writeErr(err, "session", x.ID)
	}
	return loggedConflict(x, existing)
}

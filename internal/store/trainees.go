package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

const traineeColumns = `t.id, t.first_name, t.last_name, t.phone, t.email, t.birth_date, t.gender, t.height_cm, t.weight_kg,
	t.goal, t.steps_goal, t.status, t.started_on, t.created_at, t.updated_at`

// traineeColumnCount is how many columns traineeColumns names.
var traineeColumnCount = strings.Count(traineeColumns, ",") + 1

func scanTrainee(row scanner, t *domain.Trainee, extra ...any) error {
	var email, birth, gender, goal, started sql.Null[string]
	var height, weight sql.Null[float64]
	var steps sql.Null[int]
	var created, updated int64
	if err := row.Scan(append([]any{&t.ID, &t.FirstName, &t.LastName, &t.Phone, &email, &birth, &gender, &height, &weight,
		&goal, &steps, &t.Status, &started, &created, &updated}, extra...)...); err != nil {
		return err
	}
	t.Email, t.BirthDate, t.Gender, t.Goal, t.StartedOn = valueOrNil(email), valueOrNil(birth), valueOrNil(gender), valueOrNil(goal), valueOrNil(started)
	t.HeightCm, t.WeightKg = valueOrNil(height), valueOrNil(weight)
	t.StepsGoal = valueOrNil(steps)
	t.CreatedAt, t.UpdatedAt = fromMS(created), fromMS(updated)
	t.Tags, t.CoachIDs = []string{}, []string{}
	return nil
}

// loadTraineeLinks fills Tags and CoachIDs of the trainees: one query for
// the whole page.
func (s *studioStore) loadTraineeLinks(ctx context.Context, ts []domain.Trainee) error {
	if len(ts) == 0 {
		return nil
	}
	index := make(map[string]*domain.Trainee, len(ts))
	ids := make([]any, len(ts))
	for i := range ts {
		index[ts[i].ID] = &ts[i]
		ids[i] = ts[i].ID
	}
	in := placeholders(len(ts))
	args := append(append([]any{s.studioID}, ids...), append([]any{s.studioID}, ids...)...)
	// studio_id || '': the primary key (trainee_id, …) drives, as in traineeWithLinks.
	rows, err := s.query(ctx, `SELECT tt.trainee_id, 'tag', g.name FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id
		WHERE tt.studio_id || '' = ? AND tt.trainee_id IN (`+in+`)
		UNION ALL
		SELECT trainee_id, 'coach', coach_id FROM trainee_coaches WHERE studio_id || '' = ? AND trainee_id IN (`+in+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, kind, value string
		if err := rows.Scan(&id, &kind, &value); err != nil {
			return err
		}
		if kind == "tag" {
			index[id].Tags = append(index[id].Tags, value)
		} else {
			index[id].CoachIDs = append(index[id].CoachIDs, value)
		}
	}
	for i := range ts {
		slices.Sort(ts[i].Tags)
		slices.Sort(ts[i].CoachIDs)
	}
	return rows.Err()
}

// traineeWithLinks reads one trainee with its tags and coaches in one
// statement: the trainee's row joined with the union of its links, one row
// per link (or one row of NULLs without any). The trainee's columns repeat
// on every row; a trainee has a few links, and one round trip is the cost
// that counts. where (with whereArg) picks the trainee's row; who (with
// whoArgs) names the same trainee's id for the links: "?" and the id, or a
// subquery. Built once: the statement is the same on every call.
//
// The links' studio is compared as an expression (studio_id joined to an
// empty string) on purpose: as a plain column it lets SQLite, without
// statistics, search the (studio_id, tag_id, …) index, that is every link
// of the studio, rather than the primary key (trainee_id, …), the
// trainee's few rows.
func traineeWithLinks(where, who string) string {
	return `SELECT ` + traineeColumns + `, l.kind, l.value FROM trainees t LEFT JOIN (
			SELECT 'tag' AS kind, g.name AS value FROM trainee_tags tt JOIN tags g ON g.studio_id = tt.studio_id AND g.id = tt.tag_id
			WHERE tt.studio_id || '' = ? AND tt.trainee_id = ` + who + `
			UNION ALL
			SELECT 'coach', coach_id FROM trainee_coaches WHERE studio_id || '' = ? AND trainee_id = ` + who + `
		) l ON 1 = 1
		WHERE t.studio_id = ? AND ` + where
}

var (
	traineeByID    = traineeWithLinks("t.id = ?", "?")
	traineeByPhone = traineeWithLinks("t.phone = ?", "(SELECT id FROM trainees WHERE studio_id = ? AND phone = ?)")
)

// getTrainee runs one of the traineeWithLinks statements: whoArgs follow
// the studio in each half of the links' union, whereArg the studio in the
// trainee's own condition.
func (s *studioStore) getTrainee(ctx context.Context, query string, whereArg any, whoArgs ...any) (domain.Trainee, error) {
	all := make([]any, 0, 2*(1+len(whoArgs))+2)
	for range 2 {
		all = append(append(all, s.studioID), whoArgs...)
	}
	all = append(all, s.studioID, whereArg)
	rows, err := s.query(ctx, query, all...)
	var t domain.Trainee
	if err != nil {
		return t, err
	}
	defer rows.Close()
	found := false
	var kind, value sql.Null[string]
	// After the first row the trainee's columns repeat: they are read into
	// reused raw buffers and passed over, so each link costs its own value only.
	var repeated []any
	for rows.Next() {
		if !found {
			if err := scanTrainee(rows, &t, &kind, &value); err != nil {
				return t, err
			}
			found = true
		} else {
			if repeated == nil {
				raw := make([]sql.RawBytes, traineeColumnCount)
				repeated = make([]any, 0, traineeColumnCount+2)
				for i := range raw {
					repeated = append(repeated, &raw[i])
				}
				repeated = append(repeated, &kind, &value)
			}
			if err := rows.Scan(repeated...); err != nil {
				return t, err
			}
		}
		switch {
		case !kind.Valid:
		case kind.V == "tag":
			t.Tags = append(t.Tags, value.V)
		default:
			t.CoachIDs = append(t.CoachIDs, value.V)
		}
	}
	if err := rows.Err(); err != nil {
		return t, err
	}
	if !found {
		return t, ErrNotFound
	}
	slices.Sort(t.Tags)
	slices.Sort(t.CoachIDs)
	return t, nil
}

func (s *studioStore) GetTrainee(ctx context.Context, id string) (domain.Trainee, error) {
	t, err := s.getTrainee(ctx, traineeByID, id, id)
	return t, notFoundAs(err, "trainee", id)
}

func (s *studioStore) TraineeByPhone(ctx context.Context, e164 string) (domain.Trainee, error) {
	t, err := s.getTrainee(ctx, traineeByPhone, e164, s.studioID, e164)
	if errors.Is(err, ErrNotFound) {
		return t, fmt.Errorf("%w: no trainee with phone %s in this studio", ErrNotFound, e164)
	}
	return t, err
}

// normalizeLinks trims, drops empties and duplicates, and sorts.
func normalizeLinks(in []string) []string {
	out := make([]string, 0, len(in))
	for _, v := range in {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *studioStore) CreateTrainee(ctx context.Context, t *domain.Trainee) error {
	s.fillNew(&t.ID, ids.Trainee, &t.CreatedAt)
	if t.Status == "" {
		t.Status = domain.TraineeActive
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = t.CreatedAt
	}
	t.Tags, t.CoachIDs = normalizeLinks(t.Tags), normalizeLinks(t.CoachIDs)
	return s.atomic(ctx, func(q querier) error {
		// ON CONFLICT keeps a Postgres transaction usable after a taken
		// phone, so the trainee holding it can be named.
		res, err := q.ExecContext(ctx, s.q(`INSERT INTO trainees (id, studio_id, first_name, last_name, phone, email, birth_date, gender,
			height_cm, weight_kg, goal, steps_goal, status, started_on, created_at, updated_at, search_doc)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (studio_id, phone) DO NOTHING`),
			t.ID, s.studioID, t.FirstName, t.LastName, t.Phone, t.Email, t.BirthDate, t.Gender,
			t.HeightCm, t.WeightKg, t.Goal, t.StepsGoal, t.Status, t.StartedOn, ms(t.CreatedAt), ms(t.UpdatedAt),
			SearchDoc(t.FirstName, t.LastName, t.Email))
		if err != nil {
			return s.traineeWriteErr(err, t)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return s.phoneTaken(ctx, q, t)
		}
		return s.writeLinks(ctx, q, t)
	})
}

// phoneTaken is the conflict of a phone another trainee of the studio has.
func (s *studioStore) phoneTaken(ctx context.Context, q querier, t *domain.Trainee) error {
	var existing string
	err := q.QueryRowContext(ctx, s.q(`SELECT id FROM trainees WHERE studio_id = ? AND phone = ? AND id <> ?`), s.studioID, t.Phone, t.ID).Scan(&existing)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return &ConflictError{
		Message:    fmt.Sprintf("The phone %s already belongs to trainee %s in this studio; get_trainee with that id shows them.", t.Phone, existing),
		ExistingID: existing,
	}
}

// traineeWriteErr explains a constraint failure of a trainee write that
// the checks before it could not foresee (a concurrent write).
func (s *studioStore) traineeWriteErr(err error, t *domain.Trainee) error {
	switch {
	case isForeignKeyViolation(err):
		return missing("studio", s.studioID)
	case isUniqueViolation(err):
		return &ConflictError{Message: fmt.Sprintf("Another trainee of this studio took the phone %s or the id %s at the same moment; search_trainees finds it.", t.Phone, t.ID)}
	}
	return err
}

// writePhoneSuffixes replaces the rows that let search find t by digits.
func (s *studioStore) writePhoneSuffixes(ctx context.Context, q querier, t *domain.Trainee) error {
	email := ""
	if t.Email != nil {
		email = *t.Email
	}
	return writeDigitSuffixes(ctx, q, s.engine, s.studioID, t.ID, DigitSuffixes(t.Phone, t.FirstName, t.LastName, email))
}

func writeDigitSuffixes(ctx context.Context, q querier, engine, studioID, traineeID string, suffixes []string) error {
	return replaceTraineeKeys(ctx, q, engine, "trainee_phone_suffixes", "suffix", studioID, traineeID, suffixes)
}

// replaceTraineeKeys replaces the trainee's rows of a search key table
// (studio_id, column, trainee_seq) with one row per key, in one statement.
// table and column are the code's own constants, never input.
func replaceTraineeKeys(ctx context.Context, q querier, engine, table, column, studioID, traineeID string, keys []string) error {
	if _, err := q.ExecContext(ctx, rebind(engine, `DELETE FROM `+table+`
		WHERE trainee_seq = (SELECT seq FROM trainees WHERE studio_id = ? AND id = ?)`), studioID, traineeID); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	values := make([]string, len(keys))
	args := make([]any, 0, len(keys)+2)
	for i, k := range keys {
		values[i] = "SELECT CAST(? AS TEXT) AS " + column
		args = append(args, k)
	}
	args = append(args, studioID, traineeID)
	_, err := q.ExecContext(ctx, rebind(engine, `INSERT INTO `+table+` (studio_id, `+column+`, trainee_seq)
		SELECT t.studio_id, x.`+column+`, t.seq FROM trainees t, (`+strings.Join(values, " UNION ALL ")+`) x
		WHERE t.studio_id = ? AND t.id = ?`), args...)
	return err
}

// writeLinks replaces the trainee's tags (creating missing tags) and coaches,
// and the phone suffixes and name trigrams search uses.
func (s *studioStore) writeLinks(ctx context.Context, q querier, t *domain.Trainee) error {
	if err := s.writePhoneSuffixes(ctx, q, t); err != nil {
		return err
	}
	if err := writeTrigrams(ctx, q, s.engine, s.studioID, t.ID, t.FirstName, t.LastName); err != nil {
		return err
	}
	if err := writeNameKeys(ctx, q, s.engine, s.studioID, t.ID, t.FirstName, t.LastName); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, s.q(`DELETE FROM trainee_tags WHERE studio_id = ? AND trainee_id = ?`), s.studioID, t.ID); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, s.q(`DELETE FROM trainee_coaches WHERE studio_id = ? AND trainee_id = ?`), s.studioID, t.ID); err != nil {
		return err
	}
	if len(t.Tags) > 0 {
		created := ms(s.now())
		for _, name := range t.Tags {
			if _, err := q.ExecContext(ctx, s.q(`INSERT INTO tags (id, studio_id, name, created_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (studio_id, name) DO NOTHING`), ids.New(ids.Tag), s.studioID, name, created); err != nil {
				return err
			}
		}
		args := []any{t.ID, s.studioID}
		for _, name := range t.Tags {
			args = append(args, name)
		}
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO trainee_tags (studio_id, trainee_id, tag_id)
			SELECT studio_id, ?, id FROM tags WHERE studio_id = ? AND name IN (`+placeholders(len(t.Tags))+`)`), args...); err != nil {
			return err
		}
	}
	if len(t.CoachIDs) > 0 {
		args := []any{s.studioID}
		for _, id := range t.CoachIDs {
			args = append(args, id)
		}
		rows, err := q.QueryContext(ctx, s.q(`SELECT id FROM coaches WHERE studio_id = ? AND id IN (`+placeholders(len(t.CoachIDs))+`)`), args...)
		if err != nil {
			return err
		}
		found := map[string]bool{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			found[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range t.CoachIDs {
			if !found[id] {
				return missing("coach", id)
			}
		}
		values := make([]string, len(t.CoachIDs))
		vargs := make([]any, 0, 3*len(t.CoachIDs))
		for i, id := range t.CoachIDs {
			values[i] = "(?, ?, ?)"
			vargs = append(vargs, s.studioID, t.ID, id)
		}
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO trainee_coaches (studio_id, trainee_id, coach_id) VALUES `+strings.Join(values, ", ")), vargs...); err != nil {
			return err
		}
	}
	return nil
}

// UpdateTrainee writes every field of t, the tag and coach lists included
// (the lane merges a PATCH onto the current trainee first).
func (s *studioStore) UpdateTrainee(ctx context.Context, t *domain.Trainee) error {
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = s.now()
	}
	t.Tags, t.CoachIDs = normalizeLinks(t.Tags), normalizeLinks(t.CoachIDs)
	if t.Status == "" {
		t.Status = domain.TraineeActive
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", t.ID); err != nil {
			return err
		}
		if err := s.phoneTaken(ctx, q, t); err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, s.q(`UPDATE trainees SET first_name = ?, last_name = ?, phone = ?, email = ?, birth_date = ?, gender = ?,
			height_cm = ?, weight_kg = ?, goal = ?, steps_goal = ?, status = ?, started_on = ?, updated_at = ?, search_doc = ?
			WHERE studio_id = ? AND id = ?`),
			t.FirstName, t.LastName, t.Phone, t.Email, t.BirthDate, t.Gender, t.HeightCm, t.WeightKg, t.Goal, t.StepsGoal,
			t.Status, t.StartedOn, ms(t.UpdatedAt), SearchDoc(t.FirstName, t.LastName, t.Email), s.studioID, t.ID)
		if err := affected(res, s.traineeWriteErr(err, t), "trainee", t.ID); err != nil {
			return err
		}
		var created int64
		if err := q.QueryRowContext(ctx, s.q(`SELECT created_at FROM trainees WHERE studio_id = ? AND id = ?`), s.studioID, t.ID).Scan(&created); err != nil {
			return err
		}
		t.CreatedAt = fromMS(created)
		return s.writeLinks(ctx, q, t)
	})
}

func (s *studioStore) DeleteTrainee(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM trainees WHERE studio_id = ? AND id = ?`, s.studioID, id)
	return affected(res, err, "trainee", id)
}

func (s *studioStore) CountActiveTrainees(ctx context.Context) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM trainees WHERE studio_id = ? AND status = ?`, s.studioID, domain.TraineeActive).Scan(&n)
	return n, err
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
)

// A studio's own exercises (table exercises). The name has a column of
// its own for the per-studio uniqueness; the rest of the record is JSON.

// exerciseData is what the data column holds: every field of
// domain.Exercise but the id, name and creation time, which are columns.
type exerciseData struct {
	NameHe       string   `json:"nameHe"`
	Aliases      []string `json:"aliases"`
	Category     string   `json:"category"`
	Primary      []string `json:"primaryMuscles"`
	Secondary    []string `json:"secondaryMuscles"`
	Equipment    []string `json:"equipment"`
	Unilateral   bool     `json:"unilateral"`
	Measure      string   `json:"measure"`
	Loads        []string `json:"loadsAreas"`
	Alternatives []string `json:"alternatives"`
}

// exerciseNameKey is the form two names are the same in: the search's
// normal form (case, spacing and hyphens do not tell names apart).
func exerciseNameKey(name string) string { return exercises.Normalize(name) }

const exerciseColumns = `x.id, x.name, x.data, x.created_at`

func scanExercise(row scanner, e *domain.Exercise, extra ...any) error {
	var data string
	var created int64
	if err := row.Scan(append([]any{&e.ID, &e.Name, &data, &created}, extra...)...); err != nil {
		return err
	}
	var d exerciseData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return fmt.Errorf("exercise %s: data: %w", e.ID, err)
	}
	e.NameHe, e.Aliases, e.Category = d.NameHe, nonNil(d.Aliases), d.Category
	e.Primary, e.Secondary, e.Equipment = nonNil(d.Primary), nonNil(d.Secondary), nonNil(d.Equipment)
	e.Unilateral, e.Measure, e.Loads, e.Alternatives = d.Unilateral, d.Measure, nonNil(d.Loads), nonNil(d.Alternatives)
	e.Custom = true
	at := fromMS(created)
	e.CreatedAt = &at
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *studioStore) ListExercises(ctx context.Context) ([]domain.Exercise, error) {
	return listAll(ctx, s, `SELECT `+exerciseColumns+` FROM exercises x WHERE x.studio_id = ? ORDER BY x.name_key, x.id`, []any{s.studioID}, scanExercise)
}

func (s *studioStore) GetExercise(ctx context.Context, id string) (domain.Exercise, error) {
	return getOne(ctx, s, "exercise", id, `SELECT `+exerciseColumns+` FROM exercises x WHERE x.studio_id = ? AND x.id = ?`, []any{s.studioID, id}, scanExercise)
}

func (s *studioStore) CreateExercise(ctx context.Context, e *domain.Exercise) error {
	var created time.Time
	if e.CreatedAt != nil {
		created = *e.CreatedAt
	}
	s.fillNew(&e.ID, ids.Exercise, &created)
	e.CreatedAt, e.Custom = &created, true
	data, err := json.Marshal(exerciseData{
		NameHe: e.NameHe, Aliases: nonNil(e.Aliases), Category: e.Category,
		Primary: nonNil(e.Primary), Secondary: nonNil(e.Secondary), Equipment: nonNil(e.Equipment),
		Unilateral: e.Unilateral, Measure: e.Measure, Loads: nonNil(e.Loads), Alternatives: nonNil(e.Alternatives),
	})
	if err != nil {
		return err
	}
	key := exerciseNameKey(e.Name)
	// Asked first, so the usual conflict names the exercise in the way
	// (Postgres cannot query after a failed insert in a transaction);
	// the unique index still settles a race.
	if id, name, err := s.exerciseByKey(ctx, key); err == nil {
		return exerciseConflict(name, id)
	}
	_, err = s.exec(ctx, `INSERT INTO exercises (id, studio_id, name, name_key, data, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, s.studioID, e.Name, key, string(data), ms(created))
	if isUniqueViolation(err) {
		return exerciseConflict(e.Name, "")
	}
	return s.writeErr(err, "exercise", e.ID)
}

// exerciseByKey is the id and name of the studio's exercise whose name has key.
func (s *studioStore) exerciseByKey(ctx context.Context, key string) (id, name string, err error) {
	err = s.queryRow(ctx, `SELECT id, name FROM exercises WHERE studio_id = ? AND name_key = ?`, s.studioID, key).Scan(&id, &name)
	return id, name, notFound(err)
}

func exerciseConflict(name, existing string) *ConflictError {
	msg := fmt.Sprintf("The studio already has an exercise named %q", name)
	if existing != "" {
		msg += " (id " + existing + ")"
	}
	return &ConflictError{Message: msg + "; give this one another name, or use that one.", ExistingID: existing}
}

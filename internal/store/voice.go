package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// TraineeFeedback is what trainees say about the experience, for the studio.
type TraineeFeedback interface {
	// CreateFeedback stores f (its trainee must be the studio's).
	CreateFeedback(ctx context.Context, f *domain.Feedback) error
	// ListFeedback is newest first; traineeID "" lists the whole studio's.
	ListFeedback(ctx context.Context, traineeID string, page Page) (List[domain.Feedback], error)
}

// Personas hold a studio's own coaching persona.
type Personas interface {
	// GetPersona answers ErrNotFound while the studio has not set its own.
	GetPersona(ctx context.Context) (domain.Persona, time.Time, error)
	// PutPersona sets the studio's persona, replacing the one before.
	PutPersona(ctx context.Context, p domain.Persona, at time.Time) error
	// DeletePersona drops the studio's own persona (none is not an error).
	DeletePersona(ctx context.Context) error
}

// PendingForms are the form assignments still waiting for an answer.
type PendingForms interface {
	// ListPendingForms is a trainee's pending assignments, soonest due
	// first (those without a due date last), then newest sent.
	ListPendingForms(ctx context.Context, traineeID string, page Page) (List[domain.FormAssignment], error)
}

// Feedback.

func (s *studioStore) CreateFeedback(ctx context.Context, f *domain.Feedback) error {
	s.fillNew(&f.ID, ids.Feedback, &f.CreatedAt)
	return s.insertForTrainee(ctx, f.TraineeID, "feedback", f.ID,
		`INSERT INTO trainee_feedback (id, studio_id, trainee_id, text, rating, topic, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		f.ID, s.studioID, f.TraineeID, f.Text, f.Rating, f.Topic, f.Source, ms(f.CreatedAt))
}

func (s *studioStore) ListFeedback(ctx context.Context, traineeID string, page Page) (List[domain.Feedback], error) {
	where, args := `f.studio_id = ?`, []any{s.studioID}
	if traineeID != "" {
		if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
			return List[domain.Feedback]{}, err
		}
		where += ` AND f.trainee_id = ?`
		args = append(args, traineeID)
	}
	return listPage(ctx, s, `f.id, f.trainee_id, f.text, f.rating, f.topic, f.source, f.created_at`, `FROM trainee_feedback f`,
		where, `f.created_at DESC, f.id DESC`, args, page, scanFeedback)
}

func scanFeedback(row scanner, f *domain.Feedback, extra ...any) error {
	var rating sql.Null[int]
	var topic sql.Null[string]
	var created int64
	err := row.Scan(append([]any{&f.ID, &f.TraineeID, &f.Text, &rating, &topic, &f.Source, &created}, extra...)...)
	f.Rating, f.Topic, f.CreatedAt = valueOrNil(rating), valueOrNil(topic), fromMS(created)
	return err
}

// Personas.

func (s *studioStore) GetPersona(ctx context.Context) (domain.Persona, time.Time, error) {
	var p domain.Persona
	var raw string
	var updated int64
	err := s.queryRow(ctx, `SELECT persona, updated_at FROM studio_personas WHERE studio_id = ?`, s.studioID).Scan(&raw, &updated)
	if err != nil {
		return p, time.Time{}, notFound(err)
	}
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return p, time.Time{}, fmt.Errorf("the studio's persona is not readable: %w", err)
	}
	return p, fromMS(updated), nil
}

func (s *studioStore) PutPersona(ctx context.Context, p domain.Persona, at time.Time) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO studio_personas (studio_id, persona, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (studio_id) DO UPDATE SET persona = excluded.persona, updated_at = excluded.updated_at`, s.studioID, string(raw), ms(at))
	return s.writeErr(err, "persona", s.studioID)
}

func (s *studioStore) DeletePersona(ctx context.Context) error {
	_, err := s.exec(ctx, `DELETE FROM studio_personas WHERE studio_id = ?`, s.studioID)
	return err
}

// Pending forms.

func (s *studioStore) ListPendingForms(ctx context.Context, traineeID string, page Page) (List[domain.FormAssignment], error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return List[domain.FormAssignment]{}, err
	}
	return listPage(ctx, s, formAssignmentColumns,
		`FROM form_assignments a JOIN form_templates f ON f.studio_id = a.studio_id AND f.id = a.form_template_id`,
		`a.studio_id = ? AND a.trainee_id = ? AND a.status = 'pending'`, `(a.due_at IS NULL), a.due_at, a.created_at DESC, a.id DESC`,
		[]any{s.studioID, traineeID}, page, scanFormAssignment)
}

package store

import (
	"context"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// A trainee's programs: program templates given to her (table programs;
// the templates are in catalog.go).

func (s *studioStore) GetProgram(ctx context.Context, id string) (domain.Program, error) {
	return getOne(ctx, s, "program", id, `SELECT id, trainee_id, template_id, name, starts_on, status, created_at FROM programs WHERE studio_id = ? AND id = ?`,
		[]any{s.studioID, id}, scanProgram)
}

func (s *studioStore) ListPrograms(ctx context.Context, traineeID string) ([]domain.Program, error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return nil, err
	}
	return listAll(ctx, s, `SELECT id, trainee_id, template_id, name, starts_on, status, created_at FROM programs
		WHERE studio_id = ? AND trainee_id = ? ORDER BY starts_on DESC, created_at DESC, id DESC`, []any{s.studioID, traineeID}, scanProgram)
}

func scanProgram(row scanner, p *domain.Program, extra ...any) error {
	var created int64
	err := row.Scan(append([]any{&p.ID, &p.TraineeID, &p.TemplateID, &p.Name, &p.StartsOn, &p.Status, &created}, extra...)...)
	p.CreatedAt = fromMS(created)
	return err
}

// CreateProgram stores p with Status "active" unless set; an empty Name
// takes the template's.
func (s *studioStore) CreateProgram(ctx context.Context, p *domain.Program) error {
	s.fillNew(&p.ID, ids.Program, &p.CreatedAt)
	if p.Status == "" {
		p.Status = domain.ProgramActive
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", p.TraineeID); err != nil {
			return err
		}
		var name string
		if err := q.QueryRowContext(ctx, s.q(`SELECT name FROM program_templates WHERE studio_id = ? AND id = ?`), s.studioID, p.TemplateID).Scan(&name); err != nil {
			return notFoundAs(notFound(err), "program template", p.TemplateID)
		}
		if p.Name == "" {
			p.Name = name
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO programs (id, studio_id, trainee_id, template_id, name, starts_on, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			p.ID, s.studioID, p.TraineeID, p.TemplateID, p.Name, p.StartsOn, p.Status, ms(p.CreatedAt))
		return s.writeErr(err, "program", p.ID)
	})
}

func (s *studioStore) ReplaceActivePrograms(ctx context.Context, traineeID string) error {
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", traineeID); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, s.q(`UPDATE programs SET status = ? WHERE studio_id = ? AND trainee_id = ? AND status = ?`),
			domain.ProgramReplaced, s.studioID, traineeID, domain.ProgramActive)
		return err
	})
}

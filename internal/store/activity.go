package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// Form templates, assignments and responses.

const formTemplateColumns = `f.id, f.name, f.description, f.fields, f.created_at`

func scanFormTemplate(row scanner, f *domain.FormTemplate, extra ...any) error {
	var desc sql.Null[string]
	var fields string
	var created int64
	if err := row.Scan(append([]any{&f.ID, &f.Name, &desc, &fields, &created}, extra...)...); err != nil {
		return err
	}
	f.Description, f.CreatedAt = valueOrNil(desc), fromMS(created)
	f.Fields = []domain.FormField{}
	if fields != "" {
		if err := json.Unmarshal([]byte(fields), &f.Fields); err != nil {
			return err
		}
	}
	return nil
}

func (s *studioStore) ListFormTemplates(ctx context.Context, search string, page Page) (List[domain.FormTemplate], error) {
	where, args := nameSearch(`f.studio_id = ?`, []any{s.studioID}, "f.name", search)
	return listPage(ctx, s, formTemplateColumns, `FROM form_templates f`, where, `f.name, f.id`, args, page, scanFormTemplate)
}

func (s *studioStore) GetFormTemplate(ctx context.Context, id string) (domain.FormTemplate, error) {
	return getOne(ctx, s, "form", id, `SELECT `+formTemplateColumns+` FROM form_templates f WHERE f.studio_id = ? AND f.id = ?`, []any{s.studioID, id}, scanFormTemplate)
}

func (s *studioStore) CreateFormTemplate(ctx context.Context, f *domain.FormTemplate) error {
	s.fillNew(&f.ID, ids.FormTemplate, &f.CreatedAt)
	if f.Fields == nil {
		f.Fields = []domain.FormField{}
	}
	fields, err := json.Marshal(f.Fields)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO form_templates (id, studio_id, name, description, fields, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		f.ID, s.studioID, f.Name, f.Description, string(fields), ms(f.CreatedAt))
	return s.writeErr(err, "form", f.ID)
}

const formAssignmentColumns = `a.id, a.trainee_id, a.form_template_id, f.name, a.due_at, a.prompt, a.notify, a.field_values, a.status, a.announced_at, a.created_at`

func scanFormAssignment(row scanner, a *domain.FormAssignment, extra ...any) error {
	var due, announced sql.NullInt64
	var prompt, values sql.Null[string]
	var notify sql.Null[bool]
	var created int64
	if err := row.Scan(append([]any{&a.ID, &a.TraineeID, &a.FormTemplateID, &a.FormName, &due, &prompt, &notify, &values, &a.Status, &announced, &created}, extra...)...); err != nil {
		return err
	}
	a.DueAt, a.AnnouncedAt, a.CreatedAt = fromNullMS(due), fromNullMS(announced), fromMS(created)
	a.Prompt, a.Notify = valueOrNil(prompt), valueOrNil(notify)
	if values.V != "" {
		a.FieldValues = json.RawMessage(values.V)
	}
	return nil
}

// CreateFormAssignment stores a with Status "pending" unless set; FormName
// is filled from the template.
func (s *studioStore) CreateFormAssignment(ctx context.Context, a *domain.FormAssignment) error {
	s.fillNew(&a.ID, ids.FormAssignment, &a.CreatedAt)
	if a.Status == "" {
		a.Status = "pending"
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", a.TraineeID); err != nil {
			return err
		}
		if err := q.QueryRowContext(ctx, s.q(`SELECT name FROM form_templates WHERE studio_id = ? AND id = ?`), s.studioID, a.FormTemplateID).Scan(&a.FormName); err != nil {
			return notFoundAs(notFound(err), "form", a.FormTemplateID)
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO form_assignments (id, studio_id, trainee_id, form_template_id, due_at, prompt, notify, field_values, status, announced_at, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			a.ID, s.studioID, a.TraineeID, a.FormTemplateID, msPtr(a.DueAt), a.Prompt, a.Notify, rawOrNil(a.FieldValues), a.Status, msPtr(a.AnnouncedAt), ms(a.CreatedAt))
		return s.writeErr(err, "form assignment", a.ID)
	})
}

func (s *studioStore) GetFormAssignment(ctx context.Context, id string) (domain.FormAssignment, error) {
	return getOne(ctx, s, "form assignment", id, `SELECT `+formAssignmentColumns+`
		FROM form_assignments a JOIN form_templates f ON f.studio_id = a.studio_id AND f.id = a.form_template_id
		WHERE a.studio_id = ? AND a.id = ?`, []any{s.studioID, id}, scanFormAssignment)
}

func (s *studioStore) CreateFormResponse(ctx context.Context, r *domain.FormResponse) error {
	s.fillNew(&r.ID, ids.FormResponse, &r.SubmittedAt)
	if len(r.Answers) == 0 {
		r.Answers = json.RawMessage(`{}`)
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", r.TraineeID); err != nil {
			return err
		}
		if err := q.QueryRowContext(ctx, s.q(`SELECT name FROM form_templates WHERE studio_id = ? AND id = ?`), s.studioID, r.FormTemplateID).Scan(&r.FormName); err != nil {
			return notFoundAs(notFound(err), "form", r.FormTemplateID)
		}
		if r.AssignmentID != nil {
			res, err := q.ExecContext(ctx, s.q(`UPDATE form_assignments SET status = 'completed' WHERE studio_id = ? AND id = ? AND trainee_id = ?`),
				s.studioID, *r.AssignmentID, r.TraineeID)
			if err := affected(res, err, "form assignment", *r.AssignmentID); err != nil {
				return err
			}
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO form_responses (id, studio_id, trainee_id, form_template_id, assignment_id, answers, submitted_at, logged_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
			r.ID, s.studioID, r.TraineeID, r.FormTemplateID, r.AssignmentID, string(r.Answers), ms(r.SubmittedAt), r.LoggedBy)
		return s.writeErr(err, "form response", r.ID)
	})
}

func (s *studioStore) ListFormResponses(ctx context.Context, traineeID string, page Page) (List[domain.FormResponse], error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return List[domain.FormResponse]{}, err
	}
	return listPage(ctx, s, `r.id, r.trainee_id, r.form_template_id, f.name, r.assignment_id, r.answers, r.submitted_at, r.logged_by`,
		`FROM form_responses r JOIN form_templates f ON f.studio_id = r.studio_id AND f.id = r.form_template_id`,
		`r.studio_id = ? AND r.trainee_id = ?`, `r.submitted_at DESC, r.id DESC`, []any{s.studioID, traineeID}, page, scanFormResponse)
}

func scanFormResponse(row scanner, r *domain.FormResponse, extra ...any) error {
	var assignment sql.Null[string]
	var answers string
	var submitted int64
	err := row.Scan(append([]any{&r.ID, &r.TraineeID, &r.FormTemplateID, &r.FormName, &assignment, &answers, &submitted, &r.LoggedBy}, extra...)...)
	r.AssignmentID, r.Answers, r.SubmittedAt = valueOrNil(assignment), json.RawMessage(answers), fromMS(submitted)
	return err
}

// Tasks.

const taskColumns = `k.id, k.title, k.client_id, k.detail, k.due_at, k.priority, k.coach_id, k.status, k.snooze_until, k.source, k.created_at, k.updated_at`

func scanTask(row scanner, t *domain.Task, extra ...any) error {
	var client, detail, coach sql.Null[string]
	var due, snooze sql.NullInt64
	var created, updated int64
	if err := row.Scan(append([]any{&t.ID, &t.Title, &client, &detail, &due, &t.Priority, &coach, &t.Status, &snooze, &t.Source, &created, &updated}, extra...)...); err != nil {
		return err
	}
	t.ClientID, t.Detail, t.CoachID = valueOrNil(client), valueOrNil(detail), valueOrNil(coach)
	t.DueAt, t.SnoozeUntil = fromNullMS(due), fromNullMS(snooze)
	t.CreatedAt, t.UpdatedAt = fromMS(created), fromMS(updated)
	return nil
}

// ListTasks is newest first.
func (s *studioStore) ListTasks(ctx context.Context, f TaskFilter) (List[domain.Task], error) {
	where := []string{"k.studio_id = ?"}
	args := []any{s.studioID}
	if f.Status != "" {
		where = append(where, "k.status = ?")
		args = append(args, f.Status)
	}
	if f.ClientID != "" {
		where = append(where, "k.client_id = ?")
		args = append(args, f.ClientID)
	}
	if f.CoachID != "" {
		where = append(where, "k.coach_id = ?")
		args = append(args, f.CoachID)
	}
	return listPage(ctx, s, taskColumns, `FROM tasks k`, strings.Join(where, " AND "), `k.created_at DESC, k.id DESC`, args, f.Page, scanTask)
}

func (s *studioStore) GetTask(ctx context.Context, id string) (domain.Task, error) {
	return getOne(ctx, s, "task", id, `SELECT `+taskColumns+` FROM tasks k WHERE k.studio_id = ? AND k.id = ?`, []any{s.studioID, id}, scanTask)
}

// taskRefs checks that the trainee and coach a task names are this studio's.
func (s *studioStore) taskRefs(ctx context.Context, q querier, t *domain.Task) error {
	if t.ClientID != nil {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", *t.ClientID); err != nil {
			return err
		}
	}
	if t.CoachID != nil {
		if err := s.mustExist(ctx, q, tableCoaches, "coach", *t.CoachID); err != nil {
			return err
		}
	}
	return nil
}

// CreateTask stores t with Status "open" and Source "api" unless set.
func (s *studioStore) CreateTask(ctx context.Context, t *domain.Task) error {
	s.fillNew(&t.ID, ids.Task, &t.CreatedAt)
	if t.Status == "" {
		t.Status = domain.TaskOpen
	}
	if t.Source == "" {
		t.Source = domain.SourceAPI
	}
	t.UpdatedAt = t.CreatedAt
	return s.atomic(ctx, func(q querier) error {
		if err := s.taskRefs(ctx, q, t); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO tasks (id, studio_id, title, client_id, detail, due_at, priority, coach_id, status, snooze_until, source, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			t.ID, s.studioID, t.Title, t.ClientID, t.Detail, msPtr(t.DueAt), t.Priority, t.CoachID, t.Status, msPtr(t.SnoozeUntil), t.Source, ms(t.CreatedAt), ms(t.UpdatedAt))
		return s.writeErr(err, "task", t.ID)
	})
}

// UpdateTask writes every mutable field of t, UpdatedAt the store's clock
// when the caller left it zero.
func (s *studioStore) UpdateTask(ctx context.Context, t *domain.Task) error {
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = s.now()
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.taskRefs(ctx, q, t); err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, s.q(`UPDATE tasks SET title = ?, client_id = ?, detail = ?, due_at = ?, priority = ?, coach_id = ?, status = ?, snooze_until = ?, updated_at = ?
			WHERE studio_id = ? AND id = ?`),
			t.Title, t.ClientID, t.Detail, msPtr(t.DueAt), t.Priority, t.CoachID, t.Status, msPtr(t.SnoozeUntil), ms(t.UpdatedAt), s.studioID, t.ID)
		return affected(res, err, "task", t.ID)
	})
}

// Notifications (the outbox).

func (s *studioStore) AddNotification(ctx context.Context, n *domain.Notification) error {
	s.fillNew(&n.ID, ids.Notification, &n.CreatedAt)
	return s.insertForTrainee(ctx, n.TraineeID, "notification", n.ID,
		`INSERT INTO notifications (id, studio_id, trainee_id, kind, source, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		n.ID, s.studioID, n.TraineeID, n.Kind, n.Source, rawOrNil(n.Payload), ms(n.CreatedAt))
}

func (s *studioStore) ListNotifications(ctx context.Context, page Page) (List[domain.Notification], error) {
	return listPage(ctx, s, `n.id, n.trainee_id, n.kind, n.source, n.payload, n.created_at`, `FROM notifications n`,
		`n.studio_id = ?`, `n.created_at DESC, n.id DESC`, []any{s.studioID}, page, scanNotification)
}

func scanNotification(row scanner, n *domain.Notification, extra ...any) error {
	var payload sql.Null[string]
	var created int64
	err := row.Scan(append([]any{&n.ID, &n.TraineeID, &n.Kind, &n.Source, &payload, &created}, extra...)...)
	if payload.V != "" {
		n.Payload = json.RawMessage(payload.V)
	}
	n.CreatedAt = fromMS(created)
	return err
}

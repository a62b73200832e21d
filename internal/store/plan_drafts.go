package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

// PlanDrafts keep drafted training weeks until a coach applies them.
type PlanDrafts interface {
	// CreatePlanDraft stores d (its trainee must be the studio's).
	CreatePlanDraft(ctx context.Context, d *domain.PlanDraft) error
	GetPlanDraft(ctx context.Context, id string) (domain.PlanDraft, error)
	// PendingPlanDraft is the trainee's newest pending draft of the week
	// that has not expired at now; ErrNotFound when there is none.
	PendingPlanDraft(ctx context.Context, traineeID, weekStart string, now time.Time) (domain.PlanDraft, error)
	// ApplyPlanDraft marks a pending draft applied with its sessions; a
	// draft no longer pending is a ConflictError (another apply won).
	ApplyPlanDraft(ctx context.Context, id string, coachID *string, sessionIDs []string, at time.Time) error
}

const planDraftColumns = `id, trainee_id, week_start, status, requested_by, coach_id, plan, report, session_ids, created_at, expires_at, applied_at`

func (s *studioStore) CreatePlanDraft(ctx context.Context, d *domain.PlanDraft) error {
	s.fillNew(&d.ID, ids.PlanDraft, &d.CreatedAt)
	if d.Status == "" {
		d.Status = domain.DraftPending
	}
	return s.insertForTrainee(ctx, d.TraineeID, "weekly plan draft", d.ID,
		`INSERT INTO plan_drafts (id, studio_id, trainee_id, week_start, status, requested_by, coach_id, plan, report, created_at, expires_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, s.studioID, d.TraineeID, d.WeekStart, d.Status, d.RequestedBy, d.CoachID, string(d.Plan), string(d.Report), ms(d.CreatedAt), ms(d.ExpiresAt))
}

func (s *studioStore) GetPlanDraft(ctx context.Context, id string) (domain.PlanDraft, error) {
	return getOne(ctx, s, "weekly plan draft", id, `SELECT `+planDraftColumns+` FROM plan_drafts WHERE studio_id = ? AND id = ?`,
		[]any{s.studioID, id}, scanPlanDraft)
}

func (s *studioStore) PendingPlanDraft(ctx context.Context, traineeID, weekStart string, now time.Time) (domain.PlanDraft, error) {
	var d domain.PlanDraft
	err := scanPlanDraft(s.queryRow(ctx, `SELECT `+planDraftColumns+` FROM plan_drafts
		WHERE studio_id = ? AND trainee_id = ? AND week_start = ? AND status = 'pending' AND expires_at > ?
		ORDER BY created_at DESC, id DESC LIMIT 1`, s.studioID, traineeID, weekStart, ms(now)), &d)
	return d, notFound(err)
}

func (s *studioStore) ApplyPlanDraft(ctx context.Context, id string, coachID *string, sessionIDs []string, at time.Time) error {
	b, err := json.Marshal(sessionIDs)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE plan_drafts SET status = 'applied', coach_id = COALESCE(?, coach_id), session_ids = ?, applied_at = ?
		WHERE studio_id = ? AND id = ? AND status = 'pending'`, coachID, string(b), ms(at), s.studioID, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return err
		}
		return &ConflictError{Message: "weekly plan draft " + id + " is not pending: it was applied already", ExistingID: id}
	}
	return nil
}

func scanPlanDraft(row scanner, d *domain.PlanDraft, extra ...any) error {
	var coach, sessions sql.Null[string]
	var plan, report string
	var created, expires int64
	var applied sql.NullInt64
	err := row.Scan(append([]any{&d.ID, &d.TraineeID, &d.WeekStart, &d.Status, &d.RequestedBy, &coach, &plan, &report, &sessions, &created, &expires, &applied}, extra...)...)
	if err != nil {
		return err
	}
	d.CoachID, d.Plan, d.Report = valueOrNil(coach), json.RawMessage(plan), json.RawMessage(report)
	d.CreatedAt, d.ExpiresAt, d.AppliedAt = fromMS(created), fromMS(expires), fromNullMS(applied)
	d.SessionIDs = []string{}
	if sessions.Valid {
		if err := json.Unmarshal([]byte(sessions.V), &d.SessionIDs); err != nil {
			return err
		}
	}
	return nil
}

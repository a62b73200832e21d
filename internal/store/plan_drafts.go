package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
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
	// SupersedePlanDrafts marks the trainee's pending drafts of the week
	// other than keepID superseded, with reason.
	SupersedePlanDrafts(ctx context.Context, traineeID, weekStart, keepID, reason string) error
	// WeekTaskIDs are the coaches' tasks of the newest draft of the week
	// that has any (nil when none has).
	WeekTaskIDs(ctx context.Context, traineeID, weekStart string) ([]string, error)
	// SetPlanDraftTasks records the coaches' tasks about a draft's week.
	SetPlanDraftTasks(ctx context.Context, id string, taskIDs []string) error
	// RefinePlanDraft records the model's refinement of a draft. With a plan
	// and report, it is taken only while the draft and its refinement are
	// pending: they replace the draft's own and refinement becomes state
	// with note; otherwise nothing is written and taken is false (the
	// caller records why, in one write, so no reader sees the state
	// without its note). Without them, state and note are recorded.
	RefinePlanDraft(ctx context.Context, id string, plan, report []byte, state string, note *string) (taken bool, err error)
}

const planDraftColumns = `id, trainee_id, week_start, status, requested_by, coach_id, plan, report, session_ids, created_at, expires_at, applied_at,
	fingerprint, superseded_reason, refinement, refinement_note, task_ids`

func (s *studioStore) CreatePlanDraft(ctx context.Context, d *domain.PlanDraft) error {
	s.fillNew(&d.ID, ids.PlanDraft, &d.CreatedAt)
	if d.Status == "" {
		d.Status = domain.DraftPending
	}
	if d.Refinement == "" {
		d.Refinement = domain.RefineSkipped
	}
	tasks, err := nullList(d.TaskIDs)
	if err != nil {
		return err
	}
	return s.insertForTrainee(ctx, d.TraineeID, "weekly plan draft", d.ID,
		`INSERT INTO plan_drafts (id, studio_id, trainee_id, week_start, status, requested_by, coach_id, plan, report, created_at, expires_at,
			fingerprint, refinement, refinement_note, task_ids)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, s.studioID, d.TraineeID, d.WeekStart, d.Status, d.RequestedBy, d.CoachID, string(d.Plan), string(d.Report), ms(d.CreatedAt), ms(d.ExpiresAt),
		d.Fingerprint, d.Refinement, d.RefinementNote, tasks)
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

func (s *studioStore) SupersedePlanDrafts(ctx context.Context, traineeID, weekStart, keepID, reason string) error {
	_, err := s.exec(ctx, `UPDATE plan_drafts SET status = 'superseded', superseded_reason = ?
		WHERE studio_id = ? AND trainee_id = ? AND week_start = ? AND status = 'pending' AND id <> ?`,
		reason, s.studioID, traineeID, weekStart, keepID)
	return err
}

func (s *studioStore) WeekTaskIDs(ctx context.Context, traineeID, weekStart string) ([]string, error) {
	var raw string
	err := s.queryRow(ctx, `SELECT task_ids FROM plan_drafts
		WHERE studio_id = ? AND trainee_id = ? AND week_start = ? AND task_ids IS NOT NULL
		ORDER BY created_at DESC, id DESC LIMIT 1`, s.studioID, traineeID, weekStart).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	return out, json.Unmarshal([]byte(raw), &out)
}

func (s *studioStore) SetPlanDraftTasks(ctx context.Context, id string, taskIDs []string) error {
	tasks, err := nullList(taskIDs)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE plan_drafts SET task_ids = ? WHERE studio_id = ? AND id = ?`, tasks, s.studioID, id)
	return affected(res, err, "weekly plan draft", id)
}

func (s *studioStore) RefinePlanDraft(ctx context.Context, id string, plan, report []byte, state string, note *string) (bool, error) {
	if plan != nil && report != nil {
		res, err := s.exec(ctx, `UPDATE plan_drafts SET plan = ?, report = ?, refinement = ?, refinement_note = ?
			WHERE studio_id = ? AND id = ? AND status = 'pending' AND refinement = 'pending'`,
			string(plan), string(report), state, note, s.studioID, id)
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		if err != nil || n > 0 {
			return n > 0, err
		}
		err = s.queryRow(ctx, `SELECT 1 FROM plan_drafts WHERE studio_id = ? AND id = ?`, s.studioID, id).Scan(new(int))
		return false, notFoundAs(notFound(err), "weekly plan draft", id)
	}
	res, err := s.exec(ctx, `UPDATE plan_drafts SET refinement = ?, refinement_note = ? WHERE studio_id = ? AND id = ?`,
		state, note, s.studioID, id)
	return false, affected(res, err, "weekly plan draft", id)
}

// nullList is a list as JSON text, or NULL when empty.
func nullList(list []string) (*string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	out := string(b)
	return &out, nil
}

func scanPlanDraft(row scanner, d *domain.PlanDraft, extra ...any) error {
	var coach, sessions, superseded, note, tasks sql.Null[string]
	var plan, report string
	var created, expires int64
	var applied sql.NullInt64
	err := row.Scan(append([]any{&d.ID, &d.TraineeID, &d.WeekStart, &d.Status, &d.RequestedBy, &coach, &plan, &report, &sessions, &created, &expires, &applied,
		&d.Fingerprint, &superseded, &d.Refinement, &note, &tasks}, extra...)...)
	if err != nil {
		return err
	}
	d.SupersededReason, d.RefinementNote = valueOrNil(superseded), valueOrNil(note)
	if tasks.Valid {
		if err := json.Unmarshal([]byte(tasks.V), &d.TaskIDs); err != nil {
			return err
		}
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

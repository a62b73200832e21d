package store

import (
	"context"
	"time"

	"github.com/otherwise/perform/internal/ids"
)

// Withdrawable are the kinds of record a trainee may withdraw soon after
// logging it (WithdrawRecord): a workout, a check-in, a weigh-in, a body
// measurement and a form's answers.
var Withdrawable = []ids.Kind{ids.Session, ids.CheckIn, ids.Weight, ids.Measurement, ids.FormResponse}

// WithdrawRecord deletes one record of the trainee that by logged (the
// trainee herself, domain.LoggedByTrainee, or the studio,
// domain.LoggedByCoach) at or after since, in one transaction: a session
// made by logging it (completed as it was created; a planned one completed
// later is not), with the PR entries it recorded, a check-in no later one
// of the day revised, a weigh-in, a measurement, or a form's answers (whose
// assignment is pending again). Anything else, another trainee's record,
// one another author logged (or one from before authors were kept), or one
// logged before since is ErrNotFound naming the id.
func (s *studioStore) WithdrawRecord(ctx context.Context, traineeID, id, by string, since time.Time) error {
	kind, ok := ids.KindOf(id)
	if !ok {
		return missing("record", id)
	}
	at := ms(since)
	if by == "" {
		return missing("record", id)
	}
	return s.atomic(ctx, func(q querier) error {
		exec := func(query string, args ...any) error {
			res, err := q.ExecContext(ctx, s.q(query), args...)
			return affected(res, err, "record", id)
		}
		switch kind {
		case ids.Session:
			if err := exec(`DELETE FROM sessions WHERE studio_id = ? AND trainee_id = ? AND id = ? AND source = ? AND status = 'completed' AND completed_at = created_at AND created_at >= ?`,
				s.studioID, traineeID, id, by, at); err != nil {
				return err
			}
			_, err := q.ExecContext(ctx, s.q(`DELETE FROM benchmark_entries WHERE studio_id = ? AND session_id = ?`), s.studioID, id)
			return err
		case ids.CheckIn:
			return exec(`DELETE FROM checkins WHERE studio_id = ? AND trainee_id = ? AND id = ? AND logged_by = ? AND created_at >= ? AND NOT revised`,
				s.studioID, traineeID, id, by, at)
		case ids.Weight:
			return exec(`DELETE FROM weights WHERE studio_id = ? AND trainee_id = ? AND id = ? AND logged_by = ? AND created_at >= ?`, s.studioID, traineeID, id, by, at)
		case ids.Measurement:
			return exec(`DELETE FROM measurements WHERE studio_id = ? AND trainee_id = ? AND id = ? AND logged_by = ? AND created_at >= ?`, s.studioID, traineeID, id, by, at)
		case ids.FormResponse:
			var assignment *string
			if err := q.QueryRowContext(ctx, s.q(`SELECT assignment_id FROM form_responses WHERE studio_id = ? AND trainee_id = ? AND id = ? AND logged_by = ? AND submitted_at >= ?`),
				s.studioID, traineeID, id, by, at).Scan(&assignment); err != nil {
				return notFoundAs(notFound(err), "record", id)
			}
			if err := exec(`DELETE FROM form_responses WHERE studio_id = ? AND id = ?`, s.studioID, id); err != nil {
				return err
			}
			if assignment != nil {
				_, err := q.ExecContext(ctx, s.q(`UPDATE form_assignments SET status = 'pending' WHERE studio_id = ? AND id = ?`), s.studioID, *assignment)
				return err
			}
			return nil
		}
		return missing("record", id)
	})
}

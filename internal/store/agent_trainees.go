package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// AgentTrainees is the assistant's state of the trainees who write to it
// (tables agent_trainee_*): the trainee record each phone talks as, each
// trainee's consent and what her turns logged.
type AgentTrainees interface {
	// TraineeLink is the trainee record the phone talks as; ErrNotFound
	// without one.
	TraineeLink(ctx context.Context, phoneKey string) (TraineeLink, error)
	// LinkTrainee records it, replacing an earlier one, and forgets a
	// pending studio question of the phone.
	LinkTrainee(ctx context.Context, l TraineeLink) error
	// UnlinkTrainee forgets it: the phone talks as its coach again.
	UnlinkTrainee(ctx context.Context, phoneKey string) error
	// MarkTraineeTurn records that a turn was a trainee's (the cost report
	// keeps coaches and trainees apart).
	MarkTraineeTurn(ctx context.Context, turnID string) error

	// TraineeConsent is the trainee's answer; ErrNotFound before any.
	TraineeConsent(ctx context.Context, studioID, traineeID string) (TraineeConsent, error)
	// SetTraineeConsent records that she agreed (agreed true) from the
	// phone phoneKey, or said stop, at at. A yes is kept with its phone:
	// it holds for that phone only (TraineeConsent.AgreedFrom).
	SetTraineeConsent(ctx context.Context, studioID, traineeID, phoneKey string, agreed bool, at time.Time) error

	// AddTraineeLog records a record her turn logged.
	AddTraineeLog(ctx context.Context, l TraineeLog) error
	// LastTraineeLog is her newest log not undone; ErrNotFound without one.
	LastTraineeLog(ctx context.Context, studioID, traineeID string) (TraineeLog, error)
	// MarkTraineeLogUndone records that the log was withdrawn.
	MarkTraineeLogUndone(ctx context.Context, seq int64, at time.Time) error

	// TraineeEchoed reports whether a write with this echo key was echoed
	// to her (AddTraineeEcho) in the last 48 hours.
	TraineeEchoed(ctx context.Context, studioID, traineeID, key string) (bool, error)
	// AddTraineeEcho records that her turn echoed the write; again is a no-op.
	AddTraineeEcho(ctx context.Context, studioID, traineeID, key string, at time.Time) error
}

// TraineeLink is the trainee record a phone talks to the assistant as.
type TraineeLink struct {
	Phone, StudioID, TraineeID string
	ChosenAt                   time.Time
}

// TraineeConsent is a trainee's answer to what the assistant keeps:
// when she last said yes and from which phone, and when she last said stop.
type TraineeConsent struct {
	AgreedAt, StoppedAt *time.Time
	AgreedPhone         string // phone.Key form; "" without a yes
}

// AgreedFrom reports whether her last answer was yes and was given from
// phoneKey: consent is the record's and the phone's, so a number the
// studio moved her record to is asked again.
func (c TraineeConsent) AgreedFrom(phoneKey string) bool {
	return c.AgreedAt != nil && (c.StoppedAt == nil || c.AgreedAt.After(*c.StoppedAt)) &&
		c.AgreedPhone != "" && c.AgreedPhone == phoneKey
}

// TraineeLog is a record a trainee's turn logged.
type TraineeLog struct {
	Seq                 int64
	StudioID, TraineeID string
	RecordID            string
	Summary             string // the line she was sent when it was logged
	LoggedAt            time.Time
}

func (s agentStore) TraineeLink(ctx context.Context, phoneKey string) (TraineeLink, error) {
	l := TraineeLink{Phone: phoneKey}
	var chosen int64
	err := s.queryRow(ctx, `SELECT studio_id, trainee_id, chosen_at FROM agent_trainee_links WHERE phone = ?`, phoneKey).
		Scan(&l.StudioID, &l.TraineeID, &chosen)
	l.ChosenAt = fromMS(chosen)
	return l, notFound(err)
}

func (s agentStore) LinkTrainee(ctx context.Context, l TraineeLink) error {
	return s.atomic(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO agent_trainee_links (phone, studio_id, trainee_id, chosen_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (phone) DO UPDATE SET studio_id = excluded.studio_id, trainee_id = excluded.trainee_id, chosen_at = excluded.chosen_at`),
			l.Phone, l.StudioID, l.TraineeID, ms(l.ChosenAt)); err != nil {
			if isForeignKeyViolation(err) {
				return fmt.Errorf("%w: no trainee %s in studio %s to link the phone to", ErrNotFound, l.TraineeID, l.StudioID)
			}
			return err
		}
		_, err := q.ExecContext(ctx, s.q(`DELETE FROM agent_studio_choices WHERE phone = ?`), l.Phone)
		return err
	})
}

func (s agentStore) UnlinkTrainee(ctx context.Context, phoneKey string) error {
	_, err := s.exec(ctx, `DELETE FROM agent_trainee_links WHERE phone = ?`, phoneKey)
	return err
}

func (s agentStore) MarkTraineeTurn(ctx context.Context, turnID string) error {
	_, err := s.exec(ctx, `UPDATE agent_turns SET role = 'trainee' WHERE id = ?`, turnID)
	return err
}

func (s agentStore) TraineeConsent(ctx context.Context, studioID, traineeID string) (TraineeConsent, error) {
	var agreed, stopped sql.NullInt64
	var phone sql.NullString
	err := s.queryRow(ctx, `SELECT agreed_at, stopped_at, agreed_phone FROM agent_trainee_consents WHERE studio_id = ? AND trainee_id = ?`, studioID, traineeID).
		Scan(&agreed, &stopped, &phone)
	return TraineeConsent{AgreedAt: fromNullMS(agreed), StoppedAt: fromNullMS(stopped), AgreedPhone: phone.String}, notFound(err)
}

func (s agentStore) SetTraineeConsent(ctx context.Context, studioID, traineeID, phoneKey string, agreed bool, at time.Time) error {
	if phoneKey == "" {
		return fmt.Errorf("SetTraineeConsent: the phone the answer came from is required")
	}
	if !agreed {
		_, err := s.exec(ctx, `INSERT INTO agent_trainee_consents (studio_id, trainee_id, phone, stopped_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (studio_id, trainee_id) DO UPDATE SET phone = excluded.phone, stopped_at = excluded.stopped_at`,
			studioID, traineeID, phoneKey, ms(at))
		return err
	}
	_, err := s.exec(ctx, `INSERT INTO agent_trainee_consents (studio_id, trainee_id, phone, agreed_at, agreed_phone) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (studio_id, trainee_id) DO UPDATE SET phone = excluded.phone, agreed_at = excluded.agreed_at, agreed_phone = excluded.agreed_phone`,
		studioID, traineeID, phoneKey, ms(at), phoneKey)
	return err
}

func (s agentStore) AddTraineeLog(ctx context.Context, l TraineeLog) error {
	_, err := s.exec(ctx, `INSERT INTO agent_trainee_logs (studio_id, trainee_id, record_id, summary, logged_at) VALUES (?, ?, ?, ?, ?)`,
		l.StudioID, l.TraineeID, l.RecordID, l.Summary, ms(l.LoggedAt))
	return err
}

func (s agentStore) LastTraineeLog(ctx context.Context, studioID, traineeID string) (TraineeLog, error) {
	l := TraineeLog{StudioID: studioID, TraineeID: traineeID}
	var at int64
	err := s.queryRow(ctx, `SELECT seq, record_id, summary, logged_at FROM agent_trainee_logs
		WHERE studio_id = ? AND trainee_id = ? AND undone_at IS NULL ORDER BY seq DESC LIMIT 1`, studioID, traineeID).
		Scan(&l.Seq, &l.RecordID, &l.Summary, &at)
	l.LoggedAt = fromMS(at)
	return l, notFound(err)
}

func (s agentStore) MarkTraineeLogUndone(ctx context.Context, seq int64, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE agent_trainee_logs SET undone_at = ? WHERE seq = ?`, ms(at), seq)
	return err
}

func (s agentStore) TraineeEchoed(ctx context.Context, studioID, traineeID, key string) (bool, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM agent_trainee_echoes WHERE studio_id = ? AND trainee_id = ? AND echo_key = ?`, studioID, traineeID, key).Scan(&n)
	return n > 0, err
}

func (s agentStore) AddTraineeEcho(ctx context.Context, studioID, traineeID, key string, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO agent_trainee_echoes (studio_id, trainee_id, echo_key, echoed_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (studio_id, trainee_id, echo_key) DO NOTHING`, studioID, traineeID, key, ms(at))
	return err
}

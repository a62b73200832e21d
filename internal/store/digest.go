package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// DigestStore is the coach's morning digest on WhatsApp (internal/agent,
// tables coach_digests and agent_digests): each coach's choice, and one row
// per coach and local day that claims the day's digest and keeps its outcome.
type DigestStore interface {
	// DigestSetting is the coach's choice; a coach of the studio who never
	// chose gets Enabled false and Set false. A coach who is not the
	// studio's is ErrNotFound.
	DigestSetting(ctx context.Context, studioID, coachID string) (DigestSetting, error)
	// SetDigestSetting writes the coach's choice; ErrNotFound when the
	// coach is not the studio's.
	SetDigestSetting(ctx context.Context, s DigestSetting) error
	// DigestCandidates are the coaches who opted in, are active and have a
	// phone, with their studio (for its time zone and template) and the
	// local day of their latest digest ("" without one).
	DigestCandidates(ctx context.Context) ([]DigestCandidate, error)
	// ClaimDigest records the coach's digest of the local day as claimed;
	// false when the day already has one (claimed here or elsewhere).
	ClaimDigest(ctx context.Context, coachID, studioID, day string, at time.Time) (bool, error)
	// Digest is the day's row of the coach; ErrNotFound without one.
	Digest(ctx context.Context, coachID, day string) (DigestRecord, error)
	// StartDigest moves a claimed row to sending and keeps plan, unless
	// the row has one from an earlier attempt; false when the row is not
	// claimed (another worker has it).
	StartDigest(ctx context.Context, coachID, day, plan string) (bool, error)
	// DigestProgress records that the gateway has taken the plan's first
	// sent messages.
	DigestProgress(ctx context.Context, coachID, day string, sent int) error
	// MoveDigest changes the row's state from from to to, with detail; a
	// final state (any but claimed and sending) also sets finished_at.
	// False when the row is not in from (another worker moved it).
	MoveDigest(ctx context.Context, coachID, day, from, to, detail string, at time.Time) (bool, error)
	// LastInbound is the conversation and time of the phone's newest stored
	// inbound WhatsApp message; ErrNotFound without one.
	LastInbound(ctx context.Context, phoneKey string) (conversationID string, at time.Time, err error)
	// SweepDigests forgets the rows claimed before before.
	SweepDigests(ctx context.Context, before time.Time) error
}

// DigestSetting is a coach's choice: the digest at Hour (0-23) of the
// studio's day when Enabled. Set is false when she never chose.
type DigestSetting struct {
	StudioID  string
	CoachID   string
	Enabled   bool
	Hour      int
	Set       bool
	UpdatedAt time.Time
}

// DigestCandidate is an opted-in coach the digest job considers.
type DigestCandidate struct {
	Coach          CoachRef
	PhoneKey       string
	Hour           int
	StudioSettings json.RawMessage
	LastDay        string     // her latest digest's local day ("" for none)
	LastState      string     // and its state
	LastFinished   *time.Time // and when it finished (nil while on its way)
}

// DigestRecord is one coach's digest of one local day.
type DigestRecord struct {
	CoachID    string
	StudioID   string
	Day        string
	State      string
	Detail     string
	Plan       string // what it sends (JSON), "" until it first moved to sending
	Sent       int    // how many of the plan's messages the gateway has taken
	ClaimedAt  time.Time
	FinishedAt *time.Time
}

// The digest's states: the two on the way, and the outcomes.
const (
	DigestClaimed             = "claimed"
	DigestSending             = "sending"
	DigestSent                = "sent"
	DigestTemplate            = "template"
	DigestSkippedWindow       = "skipped_window"
	DigestSkippedOff          = "skipped_off"
	DigestSkippedPilot        = "skipped_pilot"
	DigestSkippedDisconnected = "skipped_disconnected"
	DigestSkippedEmpty        = "skipped_empty"
	DigestFailed              = "failed"
)

type digestStore struct{ *sqlStore }

func (s *sqlStore) Digests() DigestStore { return digestStore{s} }

func (s digestStore) DigestSetting(ctx context.Context, studioID, coachID string) (DigestSetting, error) {
	out := DigestSetting{StudioID: studioID, CoachID: coachID}
	var enabled sql.NullBool
	var hour, updated sql.NullInt64
	err := s.queryRow(ctx, `SELECT d.enabled, d.hour, d.updated_at
		FROM coaches c LEFT JOIN coach_digests d ON d.coach_id = c.id
		WHERE c.id = ? AND c.studio_id = ?`, coachID, studioID).Scan(&enabled, &hour, &updated)
	if err != nil {
		if notFound(err) == ErrNotFound {
			return out, missing("coach", coachID)
		}
		return out, err
	}
	if enabled.Valid {
		out.Set, out.Enabled, out.Hour, out.UpdatedAt = true, enabled.Bool, int(hour.Int64), fromMS(updated.Int64)
	}
	return out, nil
}

func (s digestStore) SetDigestSetting(ctx context.Context, d DigestSetting) error {
	res, err := s.exec(ctx, `INSERT INTO coach_digests (coach_id, studio_id, enabled, hour, updated_at)
		SELECT c.id, c.studio_id, ?, ?, ? FROM coaches c WHERE c.id = ? AND c.studio_id = ?
		ON CONFLICT (coach_id) DO UPDATE SET enabled = excluded.enabled, hour = excluded.hour, updated_at = excluded.updated_at`,
		d.Enabled, d.Hour, ms(d.UpdatedAt), d.CoachID, d.StudioID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return missing("coach", d.CoachID)
	}
	return nil
}

func (s digestStore) DigestCandidates(ctx context.Context) ([]DigestCandidate, error) {
	return listAll(ctx, s, `SELECT `+coachColumns+`, s.id, s.name, s.settings, c.phone_key, d.hour, g.day, g.state, g.finished_at
		FROM coach_digests d
		JOIN coaches c ON c.id = d.coach_id AND c.studio_id = d.studio_id
		JOIN studios s ON s.id = d.studio_id
		LEFT JOIN agent_digests g ON g.coach_id = d.coach_id AND g.day = (SELECT max(l.day) FROM agent_digests l WHERE l.coach_id = d.coach_id)
		WHERE d.enabled = ? AND c.active = ? AND c.phone_key IS NOT NULL
		ORDER BY d.coach_id`, []any{true, true}, func(row scanner, c *DigestCandidate, _ ...any) error {
		var settings, last, state sql.Null[string]
		var finished sql.NullInt64
		if err := scanCoachRef(row, &c.Coach, &settings, &c.PhoneKey, &c.Hour, &last, &state, &finished); err != nil {
			return err
		}
		if settings.V != "" {
			c.StudioSettings = json.RawMessage(settings.V)
		}
		c.LastDay, c.LastState = last.V, state.V
		if finished.Valid {
			t := fromMS(finished.Int64)
			c.LastFinished = &t
		}
		return nil
	})
}

func (s digestStore) ClaimDigest(ctx context.Context, coachID, studioID, day string, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `INSERT INTO agent_digests (coach_id, day, studio_id, state, claimed_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (coach_id, day) DO NOTHING`, coachID, day, studioID, DigestClaimed, ms(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s digestStore) Digest(ctx context.Context, coachID, day string) (DigestRecord, error) {
	r := DigestRecord{CoachID: coachID, Day: day}
	var claimed int64
	var finished sql.NullInt64
	var plan sql.Null[string]
	err := s.queryRow(ctx, `SELECT studio_id, state, detail, plan, sent, claimed_at, finished_at FROM agent_digests WHERE coach_id = ? AND day = ?`,
		coachID, day).Scan(&r.StudioID, &r.State, &r.Detail, &plan, &r.Sent, &claimed, &finished)
	r.Plan = plan.V
	if err != nil {
		return r, notFound(err)
	}
	r.ClaimedAt, r.FinishedAt = fromMS(claimed), fromNullMS(finished)
	return r, nil
}

func (s digestStore) StartDigest(ctx context.Context, coachID, day, plan string) (bool, error) {
	res, err := s.exec(ctx, `UPDATE agent_digests SET state = ?, plan = COALESCE(plan, ?) WHERE coach_id = ? AND day = ? AND state = ?`,
		DigestSending, plan, coachID, day, DigestClaimed)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s digestStore) DigestProgress(ctx context.Context, coachID, day string, sent int) error {
	_, err := s.exec(ctx, `UPDATE agent_digests SET sent = ? WHERE coach_id = ? AND day = ?`, sent, coachID, day)
	return err
}

func (s digestStore) MoveDigest(ctx context.Context, coachID, day, from, to, detail string, at time.Time) (bool, error) {
	var finished any
	if to != DigestClaimed && to != DigestSending {
		finished = ms(at)
	}
	res, err := s.exec(ctx, `UPDATE agent_digests SET state = ?, detail = ?, finished_at = ? WHERE coach_id = ? AND day = ? AND state = ?`,
		to, detail, finished, coachID, day, from)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s digestStore) LastInbound(ctx context.Context, phoneKey string) (string, time.Time, error) {
	var conv string
	var at int64
	err := s.queryRow(ctx, `SELECT conversation_id, received_at FROM agent_messages WHERE phone = ? ORDER BY seq DESC LIMIT 1`, phoneKey).
		Scan(&conv, &at)
	if err != nil {
		return "", time.Time{}, notFound(err)
	}
	return conv, fromMS(at), nil
}

func (s digestStore) SweepDigests(ctx context.Context, before time.Time) error {
	_, err := s.exec(ctx, `DELETE FROM agent_digests WHERE claimed_at < ?`, ms(before))
	return err
}

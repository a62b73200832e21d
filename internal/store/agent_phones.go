package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// AgentPhones is the assistant's state of the coaches' phones (tables
// agent_phone_links, agent_studio_choices): which coaches a phone belongs
// to and which studio it chose.
type AgentPhones interface {
	// ActiveCoachesByPhone lists the active coaches whose phone has this
	// key, in every studio, by studio name then coach name (one indexed
	// query on coaches.phone_key).
	ActiveCoachesByPhone(ctx context.Context, phoneKey string) ([]CoachRef, error)
	// TouchCoach sets the coach's last_active_at to at: the coach used the
	// assistant. A touch less than a minute after the last one is skipped.
	TouchCoach(ctx context.Context, coachID string, at time.Time) error

	// PhoneLink is the studio the phone's coach chose; ErrNotFound without one.
	PhoneLink(ctx context.Context, phoneKey string) (PhoneLink, error)
	// LinkPhone records the coach's choice, replacing an earlier one, and
	// forgets a pending choice of the phone.
	LinkPhone(ctx context.Context, l PhoneLink) error
	// UnlinkPhone forgets the phone's link (its coach left the studio).
	UnlinkPhone(ctx context.Context, phoneKey string) error
	// StudioChoice is the list of coach ids the phone was last asked to
	// choose from; ErrNotFound when no question is pending.
	StudioChoice(ctx context.Context, phoneKey string) ([]string, error)
	// AskStudioChoice records the list the phone is being asked to choose from.
	AskStudioChoice(ctx context.Context, phoneKey string, coachIDs []string, at time.Time) error
	// ClearStudioChoice forgets a pending question.
	ClearStudioChoice(ctx context.Context, phoneKey string) error
}

// PhoneLink is a phone's chosen studio, through its coach row there.
type PhoneLink struct {
	Phone    string
	StudioID string
	CoachID  string
	ChosenAt time.Time
}

func (s agentStore) ActiveCoachesByPhone(ctx context.Context, phoneKey string) ([]CoachRef, error) {
	return listAll(ctx, s, `SELECT `+coachColumns+`, s.id, s.name
		FROM coaches c JOIN studios s ON s.id = c.studio_id
		WHERE c.phone_key = ? AND c.active = ?
		ORDER BY s.name, s.id, c.name, c.id`, []any{phoneKey, true}, scanCoachRef)
}

// scanCoachRef reads coachColumns followed by the studio's id and name.
func scanCoachRef(row scanner, r *CoachRef, extra ...any) error {
	return scanCoach(row, &r.Coach, append([]any{&r.StudioID, &r.StudioName}, extra...)...)
}

func (s agentStore) TouchCoach(ctx context.Context, coachID string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE coaches SET last_active_at = ?
		WHERE id = ? AND (last_active_at IS NULL OR last_active_at < ? OR last_active_at > ?)`,
		ms(at), coachID, ms(at.Add(-time.Minute)), ms(at))
	return err
}

func (s agentStore) PhoneLink(ctx context.Context, phoneKey string) (PhoneLink, error) {
	l := PhoneLink{Phone: phoneKey}
	var chosen int64
	err := s.queryRow(ctx, `SELECT studio_id, coach_id, chosen_at FROM agent_phone_links WHERE phone = ?`, phoneKey).
		Scan(&l.StudioID, &l.CoachID, &chosen)
	if err != nil {
		return l, notFound(err)
	}
	l.ChosenAt = fromMS(chosen)
	return l, nil
}

func (s agentStore) LinkPhone(ctx context.Context, l PhoneLink) error {
	return s.atomic(ctx, func(q querier) error {
		if _, err := q.ExecContext(ctx, s.q(`INSERT INTO agent_phone_links (phone, studio_id, coach_id, chosen_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (phone) DO UPDATE SET studio_id = excluded.studio_id, coach_id = excluded.coach_id, chosen_at = excluded.chosen_at`),
			l.Phone, l.StudioID, l.CoachID, ms(l.ChosenAt)); err != nil {
			if isForeignKeyViolation(err) {
				return fmt.Errorf("%w: no coach %s in studio %s to link the phone to", ErrNotFound, l.CoachID, l.StudioID)
			}
			return err
		}
		// Choosing a coach's record ends talking as a trainee.
		if _, err := q.ExecContext(ctx, s.q(`DELETE FROM agent_trainee_links WHERE phone = ?`), l.Phone); err != nil {
			return err
		}
		_, err := q.ExecContext(ctx, s.q(`DELETE FROM agent_studio_choices WHERE phone = ?`), l.Phone)
		return err
	})
}

func (s agentStore) UnlinkPhone(ctx context.Context, phoneKey string) error {
	_, err := s.exec(ctx, `DELETE FROM agent_phone_links WHERE phone = ?`, phoneKey)
	return err
}

func (s agentStore) StudioChoice(ctx context.Context, phoneKey string) ([]string, error) {
	var raw string
	if err := s.queryRow(ctx, `SELECT coach_ids FROM agent_studio_choices WHERE phone = ?`, phoneKey).Scan(&raw); err != nil {
		return nil, notFound(err)
	}
	var out []string
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("the pending studio choice of %s is malformed: %w", phoneKey, err)
	}
	return out, nil
}

func (s agentStore) AskStudioChoice(ctx context.Context, phoneKey string, coachIDs []string, at time.Time) error {
	if len(coachIDs) == 0 {
		return errors.New("AskStudioChoice: a choice needs at least one coach")
	}
	raw, err := json.Marshal(coachIDs)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO agent_studio_choices (phone, coach_ids, asked_at) VALUES (?, ?, ?)
		ON CONFLICT (phone) DO UPDATE SET coach_ids = excluded.coach_ids, asked_at = excluded.asked_at`,
		phoneKey, string(raw), ms(at))
	return err
}

func (s agentStore) ClearStudioChoice(ctx context.Context, phoneKey string) error {
	_, err := s.exec(ctx, `DELETE FROM agent_studio_choices WHERE phone = ?`, phoneKey)
	return err
}

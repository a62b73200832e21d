package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Proposal states. A proposal waits (pending) for the coach's answer; a yes
// confirms it and its execution finishes it (executed, or failed with the
// lane's refusal); a no declines it; it expires unanswered; the kill switch
// (a revoked studio key) cancels it, pending or confirmed.
const (
	ProposalPending   = "pending"
	ProposalConfirmed = "confirmed"
	ProposalDeclined  = "declined"
	ProposalExpired   = "expired"
	ProposalCancelled = "cancelled"
	ProposalExecuted  = "executed"
	ProposalFailed    = "failed"
)

// AgentProposal is one write the WhatsApp assistant proposed to a coach.
type AgentProposal struct {
	ID       string
	StudioID string
	Phone    string // phone.Key of the coach it was proposed to
	TurnID   string // the turn that proposed it
	// Num is its number in the coach's list: one more than the highest of
	// the phone's pending proposals in the studio when it was made.
	Num         int
	Tool        string
	Args        json.RawMessage
	Fingerprint string // the tool and its canonical arguments: the same change has the same one
	Summary     string // the line the coach reads
	State       string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	// DecidedTurnID is the turn whose answer confirmed or declined it.
	DecidedTurnID string
	Outcome       string // what its execution answered, for the coach
}

// ProposalStore keeps the assistant's proposals (table agent_proposals).
// Every method is scoped by studio and phone or by turn, so a proposal is
// only ever seen by the phone it was made to.
type ProposalStore interface {
	// Propose stores p as pending with the next number, unless the phone
	// has a pending or confirmed proposal in the studio with the same
	// fingerprint made at or after since: then it returns that one and
	// created false.
	Propose(ctx context.Context, p AgentProposal, since time.Time) (got AgentProposal, created bool, err error)
	// Pending lists the phone's pending proposals in the studio by number.
	Pending(ctx context.Context, phone, studioID string) ([]AgentProposal, error)
	// Expire moves the phone's pending proposals in the studio whose
	// expires_at is not after now to expired, and returns them.
	Expire(ctx context.Context, phone, studioID string, now time.Time) ([]AgentProposal, error)
	// LastExpiredAt is when the phone's most recent proposal in the studio
	// expired, if its latest proposal is an expired one; zero otherwise.
	LastExpiredAt(ctx context.Context, phone, studioID string) (time.Time, error)
	// Decide records turnID's answer: the pending proposals in confirm
	// become confirmed, those in decline declined, in one transaction.
	// Proposals no longer pending are left as they are.
	Decide(ctx context.Context, phone, studioID, turnID string, confirm, decline []string, at time.Time) error
	// DecidedBy lists the proposals turnID's answer decided, by number.
	DecidedBy(ctx context.Context, turnID string) ([]AgentProposal, error)
	// Finish records a confirmed proposal's execution: state executed or
	// failed and the outcome line. A proposal no longer confirmed (the
	// kill switch cancelled it) is left as it is, and Finish reports false.
	Finish(ctx context.Context, id, state, outcome string, at time.Time) (bool, error)
	// CancelStudio cancels every pending and confirmed proposal of the
	// studio (the kill switch) and returns how many.
	CancelStudio(ctx context.Context, studioID string, at time.Time) (int64, error)
}

type proposalStore struct{ *sqlStore }

func (s *sqlStore) Proposals() ProposalStore { return proposalStore{s} }

const proposalColumns = `id, studio_id, phone, turn_id, num, tool, args, fingerprint, summary, state, created_at, expires_at, decided_turn_id, outcome`

func scanProposal(row scanner, p *AgentProposal) error {
	var args string
	var created, expires int64
	var decided sql.NullString
	if err := row.Scan(&p.ID, &p.StudioID, &p.Phone, &p.TurnID, &p.Num, &p.Tool, &args, &p.Fingerprint, &p.Summary, &p.State, &created, &expires, &decided, &p.Outcome); err != nil {
		return err
	}
	p.Args = json.RawMessage(args)
	p.CreatedAt, p.ExpiresAt, p.DecidedTurnID = fromMS(created), fromMS(expires), decided.String
	return nil
}

func (s proposalStore) list(ctx context.Context, where string, args ...any) ([]AgentProposal, error) {
	rows, err := s.query(ctx, `SELECT `+proposalColumns+` FROM agent_proposals WHERE `+where+` ORDER BY num, created_at`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentProposal
	for rows.Next() {
		var p AgentProposal
		if err := scanProposal(rows, &p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (s proposalStore) Propose(ctx context.Context, p AgentProposal, since time.Time) (AgentProposal, bool, error) {
	created := false
	err := s.InTx(ctx, func(tx Store) error {
		q := proposalStore{tx.(*sqlStore)}
		same, err := q.list(ctx, `phone = ? AND studio_id = ? AND fingerprint = ? AND state IN ('pending', 'confirmed') AND created_at >= ?`,
			p.Phone, p.StudioID, p.Fingerprint, ms(since))
		if err != nil || len(same) > 0 {
			if len(same) > 0 {
				p = same[0]
			}
			return err
		}
		var top sql.NullInt64
		if err := q.queryRow(ctx, `SELECT max(num) FROM agent_proposals WHERE phone = ? AND studio_id = ? AND state = 'pending'`, p.Phone, p.StudioID).Scan(&top); err != nil {
			return err
		}
		p.Num, p.State = int(top.Int64)+1, ProposalPending
		_, err = q.exec(ctx, `INSERT INTO agent_proposals (id, studio_id, phone, turn_id, num, tool, args, fingerprint, summary, state, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.ID, p.StudioID, p.Phone, p.TurnID, p.Num, p.Tool, string(p.Args), p.Fingerprint, p.Summary, p.State, ms(p.CreatedAt), ms(p.ExpiresAt))
		created = err == nil
		return err
	})
	return p, created, err
}

func (s proposalStore) Pending(ctx context.Context, phone, studioID string) ([]AgentProposal, error) {
	return s.list(ctx, `phone = ? AND studio_id = ? AND state = 'pending'`, phone, studioID)
}

func (s proposalStore) Expire(ctx context.Context, phone, studioID string, now time.Time) ([]AgentProposal, error) {
	var out []AgentProposal
	err := s.InTx(ctx, func(tx Store) error {
		q := proposalStore{tx.(*sqlStore)}
		var err error
		out, err = q.list(ctx, `phone = ? AND studio_id = ? AND state = 'pending' AND expires_at <= ?`, phone, studioID, ms(now))
		if err != nil || len(out) == 0 {
			return err
		}
		_, err = q.exec(ctx, `UPDATE agent_proposals SET state = 'expired', finished_at = ? WHERE phone = ? AND studio_id = ? AND state = 'pending' AND expires_at <= ?`,
			ms(now), phone, studioID, ms(now))
		return err
	})
	for i := range out {
		out[i].State = ProposalExpired
	}
	return out, err
}

func (s proposalStore) LastExpiredAt(ctx context.Context, phone, studioID string) (time.Time, error) {
	var state string
	var expires int64
	err := s.queryRow(ctx, `SELECT state, expires_at FROM agent_proposals WHERE phone = ? AND studio_id = ? ORDER BY created_at DESC, num DESC LIMIT 1`, phone, studioID).Scan(&state, &expires)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && state != ProposalExpired) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return fromMS(expires), nil
}

func (s proposalStore) Decide(ctx context.Context, phone, studioID, turnID string, confirm, decline []string, at time.Time) error {
	return s.InTx(ctx, func(tx Store) error {
		q := proposalStore{tx.(*sqlStore)}
		for state, list := range map[string][]string{ProposalConfirmed: confirm, ProposalDeclined: decline} {
			for _, id := range list {
				if _, err := q.exec(ctx, `UPDATE agent_proposals SET state = ?, decided_turn_id = ?, decided_at = ?
					WHERE id = ? AND phone = ? AND studio_id = ? AND state = 'pending'`, state, turnID, ms(at), id, phone, studioID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (s proposalStore) DecidedBy(ctx context.Context, turnID string) ([]AgentProposal, error) {
	return s.list(ctx, `decided_turn_id = ?`, turnID)
}

func (s proposalStore) Finish(ctx context.Context, id, state, outcome string, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE agent_proposals SET state = ?, outcome = ?, finished_at = ? WHERE id = ? AND state = 'confirmed'`,
		state, strings.TrimSpace(outcome), ms(at), id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s proposalStore) CancelStudio(ctx context.Context, studioID string, at time.Time) (int64, error) {
	res, err := s.exec(ctx, `UPDATE agent_proposals SET state = 'cancelled', finished_at = ? WHERE studio_id = ? AND state IN ('pending', 'confirmed')`, ms(at), studioID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

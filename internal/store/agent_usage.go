package store

import (
	"context"
	"fmt"
	"time"
)

// AgentUsage is what the assistant's model calls were billed: one row per
// step of a turn (table agent_turn_steps).
type AgentUsage interface {
	// RecordStep stores one model call of a turn.
	RecordStep(ctx context.Context, s AgentStep) error
	// TurnSteps are a turn's recorded model calls, in the order made.
	TurnSteps(ctx context.Context, turnID string) ([]AgentStep, error)
	// UsageByStudio sums the steps made since since, per studio, role
	// (coach or trainee turns) and model, by studio name, then the model
	// calls made outside a turn (role their purpose: weekly_plan). Turns not yet given a studio (decided nothing, or
	// abandoned) are summed under StudioID "".
	UsageByStudio(ctx context.Context, since time.Time) ([]AgentStudioUsage, error)
	// TurnTimes are when each turn with a model call since since began, by
	// phone, oldest first: the spacing the cache lifetimes are chosen from.
	TurnTimes(ctx context.Context, since time.Time) ([]AgentTurnTime, error)
}

// AgentStep is one model call of a turn and the tokens it was billed.
type AgentStep struct {
	TurnID       string
	Step         int // the call's number within its attempt, from 0
	Model        string
	Input        int64 // uncached input tokens
	Output       int64
	CacheWrite   int64 // input tokens written to the prompt cache
	CacheWrite1h int64 // of CacheWrite, those written to one-hour entries
	CacheRead    int64 // input tokens read from the prompt cache
	At           time.Time
}

// AgentStudioUsage is a studio's usage of one model over a period.
type AgentStudioUsage struct {
	StudioID, StudioName, Model string
	Role                        string // coach or trainee: whose turns
	Turns, Steps                int64
	Input, Output               int64
	CacheWrite, CacheWrite1h    int64
	CacheRead                   int64
}

// AgentTurnTime is when a phone's turn began.
type AgentTurnTime struct {
	Phone string
	At    time.Time
}

func (s agentStore) RecordStep(ctx context.Context, st AgentStep) error {
	_, err := s.exec(ctx, `INSERT INTO agent_turn_steps (turn_id, step, model, input_tokens, output_tokens,
		cache_write_tokens, cache_write_1h_tokens, cache_read_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		st.TurnID, st.Step, st.Model, st.Input, st.Output, st.CacheWrite, st.CacheWrite1h, st.CacheRead, ms(st.At))
	if isForeignKeyViolation(err) {
		return fmt.Errorf("%w: no turn with id %s to record a model call of", ErrNotFound, st.TurnID)
	}
	return err
}

func (s agentStore) TurnSteps(ctx context.Context, turnID string) ([]AgentStep, error) {
	rows, err := s.query(ctx, `SELECT step, model, input_tokens, output_tokens, cache_write_tokens, cache_write_1h_tokens,
		cache_read_tokens, created_at FROM agent_turn_steps WHERE turn_id = ? ORDER BY seq`, turnID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentStep
	for rows.Next() {
		st := AgentStep{TurnID: turnID}
		var at int64
		if err := rows.Scan(&st.Step, &st.Model, &st.Input, &st.Output, &st.CacheWrite, &st.CacheWrite1h, &st.CacheRead, &at); err != nil {
			return nil, err
		}
		st.At = fromMS(at)
		out = append(out, st)
	}
	return out, rows.Err()
}

func (s agentStore) UsageByStudio(ctx context.Context, since time.Time) ([]AgentStudioUsage, error) {
	turns, err := s.usageOf(ctx, `SELECT COALESCE(t.studio_id, ''), COALESCE(MAX(st.name), ''), t.role, u.model,
			COUNT(DISTINCT u.turn_id), COUNT(*), SUM(u.input_tokens), SUM(u.output_tokens),
			SUM(u.cache_write_tokens), SUM(u.cache_write_1h_tokens), SUM(u.cache_read_tokens)
		FROM agent_turn_steps u
		JOIN agent_turns t ON t.id = u.turn_id
		LEFT JOIN studios st ON st.id = t.studio_id
		WHERE u.created_at >= ?
		GROUP BY COALESCE(t.studio_id, ''), t.role, u.model
		ORDER BY COALESCE(MAX(st.name), ''), COALESCE(t.studio_id, ''), t.role, u.model`, since)
	if err != nil {
		return nil, err
	}
	// The model calls made outside a turn (a weekly plan's refinement),
	// under their purpose as the role; "turns" counts what they were for.
	calls, err := s.usageOf(ctx, `SELECT c.studio_id, COALESCE(MAX(st.name), ''), c.purpose, c.model,
			COUNT(DISTINCT c.ref), SUM(c.calls), SUM(c.input_tokens), SUM(c.output_tokens),
			SUM(c.cache_write_tokens), SUM(c.cache_write_1h_tokens), SUM(c.cache_read_tokens)
		FROM model_calls c
		LEFT JOIN studios st ON st.id = c.studio_id
		WHERE c.created_at >= ?
		GROUP BY c.studio_id, c.purpose, c.model
		ORDER BY COALESCE(MAX(st.name), ''), c.studio_id, c.purpose, c.model`, since)
	return append(turns, calls...), err
}

// usageOf runs one of UsageByStudio's sums.
func (s agentStore) usageOf(ctx context.Context, query string, since time.Time) ([]AgentStudioUsage, error) {
	rows, err := s.query(ctx, query, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentStudioUsage
	for rows.Next() {
		var u AgentStudioUsage
		if err := rows.Scan(&u.StudioID, &u.StudioName, &u.Role, &u.Model, &u.Turns, &u.Steps, &u.Input, &u.Output,
			&u.CacheWrite, &u.CacheWrite1h, &u.CacheRead); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func (s agentStore) TurnTimes(ctx context.Context, since time.Time) ([]AgentTurnTime, error) {
	rows, err := s.query(ctx, `SELECT t.phone, t.created_at FROM agent_turns t
		WHERE t.created_at >= ? AND EXISTS (SELECT 1 FROM agent_turn_steps u WHERE u.turn_id = t.id)
		ORDER BY t.created_at, t.id`, ms(since))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AgentTurnTime
	for rows.Next() {
		var tt AgentTurnTime
		var at int64
		if err := rows.Scan(&tt.Phone, &at); err != nil {
			return nil, err
		}
		tt.At = fromMS(at)
		out = append(out, tt)
	}
	return out, rows.Err()
}

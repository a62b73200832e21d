package store

import (
	"context"
	"time"
)

// BudgetStore holds the model budget's durable counters (table
// model_budget) and the model calls made outside an assistant's turn
// (table model_calls). internal/modelbudget reads and charges them.
type BudgetStore interface {
	// ModelSpent is what was spent: the person's tokens in the day starting
	// at day and the studio's tokens in the hour starting at hour.
	ModelSpent(ctx context.Context, studioID, person string, day, hour time.Time) (personDay, studioHour int64, err error)
	// ChargeModel adds tokens and one call to the person's day and the
	// studio's hour (person "" charges the studio alone).
	ChargeModel(ctx context.Context, studioID, person string, day, hour time.Time, tokens int64) error
	// RecordModelCall stores the model calls of one use outside a turn.
	RecordModelCall(ctx context.Context, c ModelCall) error
}

// ModelCall is the model calls of one use outside an assistant's turn: a
// weekly plan's refinement (Purpose "weekly_plan", Ref the draft), Calls
// calls and the tokens they were billed together.
type ModelCall struct {
	StudioID, Purpose, Ref, Model string
	Calls                         int64
	Input, Output                 int64
	CacheWrite, CacheWrite1h      int64
	CacheRead                     int64
	At                            time.Time
}

type budgetStore struct{ *sqlStore }

// Budget is the model budget's counters.
func (s *sqlStore) Budget() BudgetStore { return budgetStore{s} }

// personSubject names a person's counter.
func personSubject(person string) string { return "person:" + person }

const studioSubject = "studio"

func (s budgetStore) ModelSpent(ctx context.Context, studioID, person string, day, hour time.Time) (int64, int64, error) {
	var personDay, studioHour int64
	err := s.queryRow(ctx, `SELECT
			COALESCE((SELECT tokens FROM model_budget WHERE studio_id = ? AND subject = ? AND window_start = ?), 0),
			COALESCE((SELECT tokens FROM model_budget WHERE studio_id = ? AND subject = ? AND window_start = ?), 0)`,
		studioID, personSubject(person), ms(day), studioID, studioSubject, ms(hour)).Scan(&personDay, &studioHour)
	return personDay, studioHour, err
}

func (s budgetStore) ChargeModel(ctx context.Context, studioID, person string, day, hour time.Time, tokens int64) error {
	charge := func(subject string, window time.Time) error {
		_, err := s.exec(ctx, `INSERT INTO model_budget (studio_id, subject, window_start, tokens, calls) VALUES (?, ?, ?, ?, 1)
			ON CONFLICT (studio_id, subject, window_start) DO UPDATE SET tokens = model_budget.tokens + excluded.tokens,
				calls = model_budget.calls + 1`, studioID, subject, ms(window), tokens)
		return err
	}
	if person != "" {
		if err := charge(personSubject(person), day); err != nil {
			return err
		}
	}
	return charge(studioSubject, hour)
}

func (s budgetStore) RecordModelCall(ctx context.Context, c ModelCall) error {
	_, err := s.exec(ctx, `INSERT INTO model_calls (studio_id, purpose, ref, model, calls, input_tokens, output_tokens,
		cache_write_tokens, cache_write_1h_tokens, cache_read_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.StudioID, c.Purpose, c.Ref, c.Model, max(c.Calls, 1), c.Input, c.Output, c.CacheWrite, c.CacheWrite1h, c.CacheRead, ms(c.At))
	return err
}

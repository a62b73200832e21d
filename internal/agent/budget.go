package agent

import (
	"context"
	"errors"
	"strings"

	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/modelbudget"
)

// ModelBudget is the one model budget (internal/modelbudget): each model
// call of a turn is admitted by Check, for the studio and the person the
// turn speaks with, and charged its tokens once made.
type ModelBudget interface {
	Check(ctx context.Context, studioID, person string) error
	Charge(ctx context.Context, studioID, person string, tokens int64) error
}

type spendKey struct{}

// spender is a turn's budget: whose calls it charges.
type spender struct {
	a                *Agent
	studioID, person string
}

// spending is ctx with the budget of a turn for person (a coach's or a
// trainee's id) of the studio; without a budget, ctx.
func (a *Agent) spending(ctx context.Context, studioID, person string) context.Context {
	if a.budget == nil {
		return ctx
	}
	return context.WithValue(ctx, spendKey{}, &spender{a: a, studioID: studioID, person: person})
}

// overBudget is the sentence a turn ends with instead of a model call the
// budget refuses; "" admits the call (a budget that cannot be read admits
// it too, and is logged).
func overBudget(ctx context.Context) string {
	s, ok := ctx.Value(spendKey{}).(*spender)
	if !ok {
		return ""
	}
	err := s.a.budget.Check(ctx, s.studioID, s.person)
	var spent *modelbudget.Spent
	switch {
	case errors.As(err, &spent):
		return spent.Sentence
	case err != nil:
		s.a.log.WarnContext(ctx, "agent: the model budget could not be read; calling the model all the same", "err", err)
	}
	return ""
}

// chargeBudget charges a model call's tokens to the turn's budget.
func chargeBudget(ctx context.Context, u llm.Usage) {
	s, ok := ctx.Value(spendKey{}).(*spender)
	if !ok {
		return
	}
	if err := s.a.budget.Charge(context.WithoutCancel(ctx), s.studioID, s.person, u.AllInput()+u.Output); err != nil {
		s.a.log.WarnContext(ctx, "agent: charging the model budget failed", "err", err)
	}
}

// withBudgetSentence ends a reply with the budget's sentence.
func withBudgetSentence(reply, sentence string) string {
	return strings.TrimSpace(strings.TrimSpace(reply) + "\n\n" + sentence)
}

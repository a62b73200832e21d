package weekplan

import (
	"context"
	"errors"

	"github.com/otherwise/perform/internal/llm"
)

// Generate drafts the week: the model's layout when a model is configured
// and its week passes the validator (after one repair round at most), the
// core's own week otherwise. The error is an *InputError for input the core
// cannot plan from, or the context's error; a model that fails is not an
// error (the fallback is the answer, and the report says why).
func Generate(ctx context.Context, in Input, model llm.Provider, prices llm.Prices) (Plan, Report, error) {
	w, err := prepare(in)
	if err != nil {
		return Plan{}, Report{}, err
	}
	rep := Report{PromptVersion: PromptVersion}
	if len(w.planned) > 0 {
		// Her program's week: the rules adjust it in place; a model would
		// only reword it.
		rep.FallbackReason = "her program's week, adjusted in place by the rules"
	} else if model != nil {
		rep.Model = model.Model()
		plan, ok, err := w.withModel(ctx, model, prices, &rep)
		if err != nil && ctx.Err() != nil {
			return Plan{}, rep, ctx.Err()
		}
		if ok {
			rep.Valid = true
			return plan, rep, nil
		}
		if err != nil {
			rep.FallbackReason = err.Error()
		}
	} else {
		rep.FallbackReason = "no model is configured: the week is the rules' own"
	}
	plan := w.fill(w.baseline())
	rep.Fallback = true
	rep.Problems = nonNil(w.check(plan))
	rep.Valid = len(rep.Problems) == 0
	return plan, rep, nil
}

// withModel asks for the layout, and once more with the validator's
// sentences if it broke a rule. ok is false when the fallback must serve.
func (w *week) withModel(ctx context.Context, model llm.Provider, prices llm.Prices, rep *Report) (Plan, bool, error) {
	msgs := firstAsk()
	for round := 0; round < 2; round++ {
		res, err := model.Step(ctx, w.request(msgs))
		rep.ModelCalls++
		rep.InputTokens += res.Usage.AllInput()
		rep.OutputTokens += res.Usage.Output
		rep.CostUSD += prices.Cost(res.Usage)
		if err != nil {
			if errors.Is(err, llm.ErrNotConfigured) {
				return Plan{}, false, errors.New("no model is configured: the week is the rules' own")
			}
			return Plan{}, false, err
		}
		l, call, err := layoutOf(res)
		if err != nil {
			return Plan{}, false, err
		}
		plan := w.fill(l)
		problems := w.check(plan)
		if len(problems) == 0 {
			rep.Problems = []string{}
			return plan, true, nil
		}
		if round == 0 {
			rep.Repaired = problems
			msgs = repairAsk(msgs, call, problems)
			continue
		}
		rep.Repaired = nil
		return Plan{}, false, errors.New("the model's week broke the rules twice: " + problems[0])
	}
	return Plan{}, false, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

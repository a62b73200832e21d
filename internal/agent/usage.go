package agent

import (
	"context"

	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/store"
)

// stepMeter takes each model call of a turn: the turn's record and the
// metrics hook. It travels in the turn's context.
type stepMeter func(ctx context.Context, step int, model string, u llm.Usage)

type meterKey struct{}

// meterSteps is ctx with the meter of turn t: every model call is stored
// with the turn (agent_turn_steps) as it is made, so a call a crash
// interrupts the turn after is still counted, and goes to the metrics hook.
func (a *Agent) meterSteps(ctx context.Context, t *turn) context.Context {
	return context.WithValue(ctx, meterKey{}, stepMeter(func(ctx context.Context, step int, model string, u llm.Usage) {
		if a.stepObserver != nil {
			a.stepObserver(model, u)
		}
		// Recorded even if the turn's context is ending: the call was paid.
		err := a.st.Agent().RecordStep(context.WithoutCancel(ctx), store.AgentStep{
			TurnID: t.ID, Step: step, Model: model, Input: u.Input, Output: u.Output,
			CacheWrite: u.CacheWrite, CacheWrite1h: u.CacheWrite1h, CacheRead: u.CacheRead, At: a.now(),
		})
		if err != nil {
			a.log.WarnContext(ctx, "agent: recording a model call's usage failed", "turn", t.ID, "step", step, "err", err)
		}
	}))
}

// meterStep hands one model call's usage to the turn's meter, if any.
func meterStep(ctx context.Context, step int, model string, u llm.Usage) {
	if m, ok := ctx.Value(meterKey{}).(stepMeter); ok {
		m(ctx, step, model, u)
	}
}

// ObserveModelSteps sets a hook called with every model call's model and
// usage (for metrics).
func (a *Agent) ObserveModelSteps(f func(model string, u llm.Usage)) { a.stepObserver = f }

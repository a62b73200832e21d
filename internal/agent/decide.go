package agent

import (
	"context"
	"errors"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/store"
)

// decide works out a turn's reply in the specification's order: pilot
// recheck, coach, daily cap, studio key, welcome menu, model.
func (a *Agent) decide(ctx context.Context, t *turn) (decision, error) {
	if !a.inPilot(t.Phone) {
		return decision{outcome: "not_in_pilot"}, nil // queued before the allowlist shrank
	}
	// A phone that talks as a trainee (trainee.go), else its coach.
	tr, stop, isTrainee, err := a.asTrainee(ctx, t)
	switch {
	case err != nil:
		return decision{}, err
	case stop != nil:
		return *stop, nil
	case isTrainee:
		return a.decideTrainee(ctx, t, tr)
	}
	coach, stop, link, err := a.resolveCoach(ctx, t)
	if errors.Is(err, errNoCoach) {
		return a.noCoach(ctx, t)
	}
	if err != nil {
		return decision{}, err
	}
	if stop != nil {
		stop.link = link
		return *stop, nil
	}
	// lastActiveAt says when the coach last used the assistant.
	if err := a.st.Agent().TouchCoach(ctx, coach.Coach.ID, a.now()); err != nil {
		a.log.WarnContext(ctx, "agent: recording the coach's activity failed", "coach", coach.Coach.ID, "err", err)
	}
	// Every lane call of the turn speaks for this coach: "mine" is hers.
	d, err := a.decideFor(auth.WithCoach(ctx, coach.Coach.ID), t, coach)
	d.studioID, d.link = coach.StudioID, link
	return d, err
}

// decideFor is the rest of decide, once the turn's coach and studio are known:
// the conversation (cap, history) is the phone's in that studio.
func (a *Agent) decideFor(ctx context.Context, t *turn, coach store.CoachRef) (decision, error) {
	count, err := a.countTurn(ctx, t, coach.StudioID)
	if err != nil {
		return decision{}, err
	}
	switch {
	case count == a.dailyCap+1:
		return decision{messages: []string{msgCapReached}, outcome: "cap_reached"}, nil
	case count > a.dailyCap:
		return decision{outcome: "capped"}, nil // silent until tomorrow
	}
	apiKey, d, stop, err := a.studioKey(ctx, t, coach.StudioID, true)
	if err != nil || stop {
		return d, err
	}
	if d, handled, err := a.digestTurn(ctx, t, coach, apiKey); handled {
		return d, err // the morning digest's command (digest_command.go)
	}
	// An answer to proposed writes runs them; anything else is a normal
	// turn that sees what is pending (proposals.go).
	answered, handled, pending, err := a.proposalTurn(ctx, t, coach.StudioID, apiKey)
	if err != nil || handled {
		return answered, err
	}
	history, err := a.loadHistory(ctx, t.Phone, coach.StudioID)
	if err != nil {
		return decision{}, err
	}
	var out decision
	if menu := isMenuRequest(t.Text); len(history) == 0 || menu {
		w := welcome(coach.Coach.Name, coach.StudioName)
		out.messages = append(out.messages, w)
		if menu || isGreeting(t.Text) {
			out.history = []historyEntry{{"user", t.Text}, {"assistant", w}}
			out.outcome = "welcome"
			return out, nil
		}
	}
	prop := a.newProposer(t, coach.StudioID, apiKey, a.laneTools(apiKey, t.ID))
	reply, err := a.model.run(a.spending(ctx, coach.StudioID, coach.Coach.ID), promptContext(coach, a.now())+pendingContext(pending), history, modelText(t), prop.call)
	out.outcome = "replied"
	switch {
	case errors.Is(err, errOutOfSteps) && t.Messages > 1:
		return a.requeued(t, out), nil
	case errors.Is(err, errKeyRevoked):
		if err := a.revoke(ctx, coach.StudioID, t.ID); err != nil {
			return decision{}, err
		}
		a.log.WarnContext(ctx, "agent: the studio key was revoked; the studio is disconnected", "studio", coach.StudioID)
		out.messages = append(out.messages, msgRevoked)
		out.outcome = "revoked"
		return out, nil
	case err != nil && ctx.Err() != nil:
		return decision{}, ctx.Err() // shutting down or lease lost: the retry answers
	case errors.Is(err, errOutOfSteps) && reply != "":
	case err != nil:
		a.log.ErrorContext(ctx, "agent: the model call failed; sending the failure message", "err", err)
		reply, out.outcome = msgFailure, "failed"
	case reply == "":
		reply, out.outcome = msgFailure, "failed"
	}
	out.messages = append(out.messages, reply)
	out.history = []historyEntry{{"user", t.Text}, {"assistant", reply}}
	list, err := a.proposalsAfter(ctx, t, coach.StudioID, prop)
	if list != "" {
		out.messages = append(out.messages, list)
	}
	return out, err
}

// countTurn adds the turn to the daily count of the phone in the studio
// once (a resumed turn is not counted again) and returns the day's count.
func (a *Agent) countTurn(ctx context.Context, t *turn, studioID string) (int, error) {
	return a.st.Agent().CountTurn(ctx, t.ID, t.Phone, studioID, a.now().UTC().Format(time.DateOnly))
}

// loadHistory is the last 24 entries of the past 48 hours of the phone's
// conversation in the studio, oldest first, each its first
// historyExcerptRunes characters. Another studio's are never read.
func (a *Agent) loadHistory(ctx context.Context, phoneKey, studioID string) ([]historyEntry, error) {
	stored, err := a.st.Agent().History(ctx, phoneKey, studioID, a.now().Add(-historyMaxAge), historyEntries)
	out := make([]historyEntry, len(stored))
	for i, e := range stored {
		out[i] = historyEntry{Role: e.Role, Text: excerpt(e.Text, historyExcerptRunes)}
	}
	return out, err
}

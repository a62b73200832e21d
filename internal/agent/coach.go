package agent

import (
	"context"
	"errors"

	"github.com/otherwise/perform/internal/store"
)

// errNoCoach means no active coach is linked to the phone.
var errNoCoach = errors.New("no active coach has this phone")

// resolveCoach finds who is writing: a pinned coach (AGENT_PHONE_COACHES)
// when it exists and is active; otherwise the active coach whose phone,
// normalised, equals the sender's, the most recently active one when
// several match. Coach phones are stored as typed, hence the normalising here.
func (a *Agent) resolveCoach(ctx context.Context, sender string) (store.CoachRef, error) {
	if id, ok := a.pins[sender]; ok {
		ref, err := a.st.ActiveCoachByID(ctx, id)
		if err == nil {
			return ref, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return ref, err
		}
		a.log.WarnContext(ctx, "agent: AGENT_PHONE_COACHES pins a coach that does not exist or is inactive; falling back to the phone lookup", "coach", id)
	}
	coaches, err := a.st.ActiveCoachesWithPhone(ctx)
	if err != nil {
		return store.CoachRef{}, err
	}
	var best *store.CoachRef
	for i := range coaches {
		c := &coaches[i]
		if c.Coach.Phone == nil || phoneKey(*c.Coach.Phone) != sender {
			continue
		}
		if best == nil || moreRecent(c, best) {
			best = c
		}
	}
	if best == nil {
		return store.CoachRef{}, errNoCoach
	}
	return *best, nil
}

// moreRecent reports whether c was active after b; never active is oldest.
func moreRecent(c, b *store.CoachRef) bool {
	switch {
	case c.Coach.LastActiveAt == nil:
		return false
	case b.Coach.LastActiveAt == nil:
		return true
	default:
		return c.Coach.LastActiveAt.After(*b.Coach.LastActiveAt)
	}
}

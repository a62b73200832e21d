package lane

import (
	"context"
	"errors"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// speakingFor gives a studio key's principal the coach its in-process
// caller speaks for (auth.WithCoach), when the coach is the studio's, so
// the coachScope rule and every "mine" default read her as they read her
// own grant. Any other principal, or a coach of another studio, is left as
// it is.
func (l *Lane) speakingFor(ctx context.Context, p *auth.Principal) (*auth.Principal, error) {
	if id, ok := auth.TraineeFrom(ctx); ok && p != nil {
		return l.speakingForTrainee(ctx, p, id)
	}
	id, ok := auth.CoachFrom(ctx)
	if !ok || p == nil || p.Kind != auth.KindStudioKey || p.Subject != "" || !ids.Valid(id, ids.Coach) {
		return p, nil
	}
	if _, err := l.store.Studio(p.StudioID).GetCoach(ctx, id); errors.Is(err, store.ErrNotFound) {
		return p, nil
	} else if err != nil {
		return nil, err
	}
	cp := *p
	cp.Subject = id
	return &cp, nil
}

// errNotTheStudiosTrainee refuses a call that speaks for a trainee the
// studio key's studio does not have (or has archived).
var errNotTheStudiosTrainee = &auth.Refusal{Message: "This call speaks for a trainee this studio does not have (or has archived)."}

// speakingForTrainee gives a studio key's principal the trainee its
// in-process caller speaks for (auth.WithTrainee): her subject and the
// trainee scopes, so every trainee rule (her records only, scrubbing, her
// per-person limits) applies as to her own grant. A trainee the studio does
// not have, or any other credential, is refused: speaking for a trainee
// never widens what a call may do.
func (l *Lane) speakingForTrainee(ctx context.Context, p *auth.Principal, id string) (*auth.Principal, error) {
	if p.Kind != auth.KindStudioKey || p.Subject != "" || !ids.Valid(id, ids.Trainee) {
		return nil, errNotTheStudiosTrainee
	}
	t, err := l.store.Studio(p.StudioID).GetTrainee(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && t.Status == domain.TraineeArchived {
		return nil, errNotTheStudiosTrainee
	}
	if err != nil {
		return nil, err
	}
	return p.AsTrainee(id), nil
}

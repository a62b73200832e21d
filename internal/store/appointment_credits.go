package store

import (
	"context"
	"errors"

	"github.com/otherwise/perform/internal/domain"
)

// The credits a booking uses and gives back, inside the booking's own
// transaction (the ledger's UseCredit and ReleaseCredit join it): the one
// seam between the appointments and the credit ledger.

// errNoCreditForPromotion is the ledger's answer for a trainee without a
// credit left.
var errNoCreditForPromotion = ErrNoCredit

// useCredit uses a credit of the trainee for a booked appointment, on its
// day. A trainee whose plans count no sessions (neither a package nor a
// membership) books without one; one whose package or membership has no
// credit left on that day is ErrNoCredit.
func (s *studioStore) useCredit(ctx context.Context, a domain.Appointment) error {
	_, err := s.UseCredit(ctx, a.TraineeID, a.ID, a.StartsAt)
	if !errors.Is(err, ErrNoCredit) {
		return err
	}
	counted, lerr := s.ListCredits(ctx, []string{a.TraineeID}, a.StartsAt)
	if lerr != nil {
		return lerr
	}
	if len(counted[a.TraineeID]) == 0 {
		return nil
	}
	return err
}

// releaseCredit gives back the credit a booked appointment used (none
// used: nothing to give back).
func (s *studioStore) releaseCredit(ctx context.Context, a domain.Appointment) error {
	if err := s.ReleaseCredit(ctx, a.ID); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

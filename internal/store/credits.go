package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/training"
)

// ErrNoCredit is UseCredit's answer when none of the trainee's
// subscriptions has a credit left on the day asked.
var ErrNoCredit = errors.New("no credit left: the trainee has no package or membership with a session left on that day")

// Credits is the credit ledger (table credit_uses): a package's or a
// membership's sessions, used by appointments and released by a
// cancellation in time. A use runs in the caller's transaction when the
// store is bound to one (InTx), so a booking and its credit commit
// together or not at all.
type Credits interface {
	// UseCredit takes a credit for appointmentID ("" for a session used
	// by hand) on the day on falls in the studio's zone: from the
	// trainee's active subscription covering that day with a credit left
	// (a membership's week first, then packages, soonest expiry first).
	// It answers the subscription's id; ErrNoCredit when none has a
	// credit. The same appointment again is the same use: its
	// subscription, nothing taken twice. Uses of one trainee take turns
	// (her row is locked for the transaction), so two uses of her last
	// credit at once are one use and one ErrNoCredit.
	UseCredit(ctx context.Context, traineeID, appointmentID string, on time.Time) (subscriptionID string, err error)
	// ReleaseCredit gives back the credit appointmentID used; releasing
	// one already released is no change. ErrNotFound when it used none.
	ReleaseCredit(ctx context.Context, appointmentID string) error
	// ListCredits are the credits of the package and membership
	// subscriptions (not cancelled) of the trainees named (every trainee
	// of the studio when traineeIDs is nil), as they stand on the day on
	// falls in the studio's zone, by trainee.
	ListCredits(ctx context.Context, traineeIDs []string, on time.Time) (map[string][]domain.Credits, error)
	// SubscriptionCredits is one subscription's credits on the day of on;
	// ErrNotFound for another studio's, and for a plan that is neither a
	// package nor a membership.
	SubscriptionCredits(ctx context.Context, subscriptionID string, on time.Time) (domain.Credits, error)
}

// Queryer is what the ledger's functions run on: a store, or the store
// InTx hands its function, whose queries then join that transaction.
type Queryer interface {
	Studio(studioID string) StudioStore
}

// UseCredit is StudioStore.UseCredit of studioID on q: called with the
// store InTx gave, the use commits with the caller's transaction.
func UseCredit(ctx context.Context, q Queryer, studioID, traineeID, appointmentID string, on time.Time) (string, error) {
	return q.Studio(studioID).UseCredit(ctx, traineeID, appointmentID, on)
}

// ReleaseCredit is StudioStore.ReleaseCredit of studioID on q.
func ReleaseCredit(ctx context.Context, q Queryer, studioID, appointmentID string) error {
	return q.Studio(studioID).ReleaseCredit(ctx, appointmentID)
}

// studioDay is the day t falls on in the studio's zone and the first day
// of that day's week, by the studio's settings.
func (s *studioStore) studioDay(ctx context.Context, t time.Time) (day, weekStart string, err error) {
	st, err := s.StudioByID(ctx, s.studioID)
	if err != nil {
		return "", "", notFoundAs(err, "studio", s.studioID)
	}
	local := t.In(st.TimeZone())
	return local.Format(time.DateOnly), training.StartOfWeek(local, st.FirstDay()).Format(time.DateOnly), nil
}

func (s *studioStore) UseCredit(ctx context.Context, traineeID, appointmentID string, on time.Time) (string, error) {
	var subID string
	err := s.InTx(ctx, func(tx Store) error {
		t := tx.Studio(s.studioID).(*studioStore)
		if err := t.lockRow(ctx, tableTrainees, "trainee", traineeID); err != nil {
			return err
		}
		var useID string
		if appointmentID != "" {
			var released sql.NullInt64
			var owner string
			err := t.queryRow(ctx, `SELECT id, trainee_id, subscription_id, released_at FROM credit_uses WHERE studio_id = ? AND appointment_id = ?`,
				t.studioID, appointmentID).Scan(&useID, &owner, &subID, &released)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				useID = ""
			case err != nil:
				return err
			case owner != traineeID:
				return &ConflictError{Message: fmt.Sprintf("Appointment %s already used another trainee's credit.", appointmentID), ExistingID: useID}
			case !released.Valid:
				return nil // the same use again
			}
		}
		day, _, err := t.studioDay(ctx, on)
		if err != nil {
			return err
		}
		all, err := t.ListCredits(ctx, []string{traineeID}, on)
		if err != nil {
			return err
		}
		cands := all[traineeID]
		sort.SliceStable(cands, func(i, j int) bool { return creditsFirst(cands[i], cands[j]) })
		subID = ""
		for _, c := range cands {
			if c.Usable(day) {
				subID = c.SubscriptionID
				break
			}
		}
		if subID == "" {
			return ErrNoCredit
		}
		if useID != "" {
			_, err = t.exec(ctx, `UPDATE credit_uses SET subscription_id = ?, used_on = ?, used_at = ?, released_at = NULL WHERE studio_id = ? AND id = ?`,
				subID, day, ms(on), t.studioID, useID)
			return err
		}
		var appt any
		if appointmentID != "" {
			appt = appointmentID
		}
		_, err = t.exec(ctx, `INSERT INTO credit_uses (id, studio_id, trainee_id, subscription_id, appointment_id, used_on, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			ids.New(ids.CreditUse), t.studioID, traineeID, subID, appt, day, ms(on))
		if isUniqueViolation(err) {
			return &ConflictError{Message: fmt.Sprintf("Appointment %s already used a credit.", appointmentID)}
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return subID, nil
}

// creditsFirst orders the credits a use takes from: a membership's week
// (it lapses with the week), then packages by soonest expiry, then the
// oldest subscription.
func creditsFirst(a, b domain.Credits) bool {
	if (a.Kind == domain.PlanMembership) != (b.Kind == domain.PlanMembership) {
		return a.Kind == domain.PlanMembership
	}
	switch {
	case a.ExpiresOn != nil && b.ExpiresOn == nil:
		return true
	case a.ExpiresOn == nil && b.ExpiresOn != nil:
		return false
	case a.ExpiresOn != nil && *a.ExpiresOn != *b.ExpiresOn:
		return *a.ExpiresOn < *b.ExpiresOn
	}
	if a.StartedOn != b.StartedOn {
		return a.StartedOn < b.StartedOn
	}
	return a.SubscriptionID < b.SubscriptionID
}

func (s *studioStore) ReleaseCredit(ctx context.Context, appointmentID string) error {
	res, err := s.exec(ctx, `UPDATE credit_uses SET released_at = ? WHERE studio_id = ? AND appointment_id = ? AND released_at IS NULL`,
		ms(s.now()), s.studioID, appointmentID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	var one int
	err = s.queryRow(ctx, `SELECT 1 FROM credit_uses WHERE studio_id = ? AND appointment_id = ?`, s.studioID, appointmentID).Scan(&one)
	return notFoundAs(notFound(err), "credit use of appointment", appointmentID)
}

func (s *studioStore) ListCredits(ctx context.Context, traineeIDs []string, on time.Time) (map[string][]domain.Credits, error) {
	out := map[string][]domain.Credits{}
	if traineeIDs != nil && len(traineeIDs) == 0 {
		return out, nil
	}
	_, weekStart, err := s.studioDay(ctx, on)
	if err != nil {
		return nil, err
	}
	weekEnd := addDays(weekStart, 6)
	where, args := `b.studio_id = ? AND b.state <> 'cancelled' AND p.kind IN ('package', 'membership')`, []any{s.studioID}
	useWhere, useArgs := `studio_id = ? AND released_at IS NULL`, []any{weekStart, weekEnd, s.studioID}
	if traineeIDs != nil {
		where += ` AND b.trainee_id IN (` + placeholders(len(traineeIDs)) + `)`
		useWhere += ` AND trainee_id IN (` + placeholders(len(traineeIDs)) + `)`
		for _, id := range traineeIDs {
			args, useArgs = append(args, id), append(useArgs, id)
		}
	}
	type counts struct{ all, week int }
	used := map[string]counts{}
	rows, err := s.query(ctx, `SELECT subscription_id, COUNT(*), SUM(CASE WHEN used_on >= ? AND used_on <= ? THEN 1 ELSE 0 END)
		FROM credit_uses WHERE `+useWhere+` GROUP BY subscription_id`, useArgs...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id string
		var c counts
		if err := rows.Scan(&id, &c.all, &c.week); err != nil {
			rows.Close()
			return nil, err
		}
		used[id] = c
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	rows, err = s.query(ctx, `SELECT b.id, b.trainee_id, p.name, p.kind, p.sessions, p.valid_days, b.started_on, b.ends_on, b.state
		FROM subscriptions b JOIN products p ON p.studio_id = b.studio_id AND p.id = b.product_id
		WHERE `+where+` ORDER BY b.trainee_id, b.started_on, b.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c domain.Credits
		var sessions, validDays sql.Null[int]
		var ends sql.Null[string]
		if err := rows.Scan(&c.SubscriptionID, &c.TraineeID, &c.PlanName, &c.Kind, &sessions, &validDays, &c.StartedOn, &ends, &c.Status); err != nil {
			return nil, err
		}
		c.Sessions, c.ExpiresOn = valueOrNil(sessions), valueOrNil(ends)
		u := used[c.SubscriptionID]
		c.Used = u.all
		if c.Kind == domain.PlanMembership {
			c.Used, c.WeekStart = u.week, &weekStart
		} else if validDays.Valid {
			last := addDays(c.StartedOn, validDays.V-1)
			if c.ExpiresOn == nil || last < *c.ExpiresOn {
				c.ExpiresOn = &last
			}
		}
		if c.Sessions != nil {
			left := max(*c.Sessions-c.Used, 0)
			c.Left = &left
		}
		out[c.TraineeID] = append(out[c.TraineeID], c)
	}
	return out, rows.Err()
}

func (s *studioStore) SubscriptionCredits(ctx context.Context, subscriptionID string, on time.Time) (domain.Credits, error) {
	var traineeID string
	err := s.queryRow(ctx, `SELECT trainee_id FROM subscriptions WHERE studio_id = ? AND id = ?`, s.studioID, subscriptionID).Scan(&traineeID)
	if err != nil {
		return domain.Credits{}, notFoundAs(notFound(err), "subscription", subscriptionID)
	}
	all, err := s.ListCredits(ctx, []string{traineeID}, on)
	if err != nil {
		return domain.Credits{}, err
	}
	for _, c := range all[traineeID] {
		if c.SubscriptionID == subscriptionID {
			return c, nil
		}
	}
	return domain.Credits{}, fmt.Errorf("%w: subscription %s holds no session credits (its plan is neither a package nor a membership, or it is cancelled)",
		ErrNotFound, strings.TrimSpace(subscriptionID))
}

package billing

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
)

// RenewEvery is how often the renewal job runs: a membership whose period
// ended renews within the hour after its studio's midnight.
const RenewEvery = time.Hour

// RenewalArgs is the renewal's River job.
type RenewalArgs struct{}

// Kind names the job in River's tables.
func (RenewalArgs) Kind() string { return "perform_membership_renewal" }

// InsertOpts keeps at most one renewal waiting or running.
func (RenewalArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: jobs.UniqueOpts()}
}

// Renewer is the River worker of RenewalArgs.
type Renewer struct {
	river.WorkerDefaults[RenewalArgs]
	Store  store.Store
	Now    func() time.Time // nil: time.Now
	Logger *slog.Logger
}

// Work renews every studio's ended memberships.
func (w *Renewer) Work(ctx context.Context, _ *river.Job[RenewalArgs]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	n, err := RenewMemberships(ctx, w.Store, now())
	if w.Logger != nil && n > 0 {
		w.Logger.Info("memberships renewed", "periods", n)
	}
	return err
}

// RenewalPeriodicJob schedules the renewal every RenewEvery (and once at start).
func RenewalPeriodicJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(RenewEvery),
		func() (river.JobArgs, *river.InsertOpts) { return RenewalArgs{}, nil },
		&river.PeriodicJobOpts{ID: "perform_membership_renewal", RunOnStart: true})
}

// RenewMemberships renews, in every studio whose memberships renew, each
// auto-renewing membership whose period ended before the studio's today at
// now, each new period charged once however often it runs. It answers how
// many periods it added.
func RenewMemberships(ctx context.Context, st store.Store, now time.Time) (int, error) {
	studios, err := st.ListStudios(ctx)
	if err != nil {
		return 0, fmt.Errorf("listing studios to renew: %w", err)
	}
	total := 0
	for _, s := range studios {
		if !s.RenewsMemberships() {
			continue
		}
		n, err := st.Studio(s.ID).RenewMemberships(ctx, now.In(s.TimeZone()).Format(time.DateOnly))
		total += n
		if err != nil {
			return total, fmt.Errorf("renewing the memberships of studio %s: %w", s.ID, err)
		}
	}
	return total, nil
}

package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/jobs"
)

// recoverInterval is how often the leader looks for turns a dead process
// left open. A crashed turn resumes once its lease (LeaseTTL) has expired,
// without waiting for River to rescue the crashed job (which it does only
// after the worker's Timeout).
const recoverInterval = 5 * time.Second

// recoverArgs is the periodic job that resumes interrupted turns.
type recoverArgs struct{}

func (recoverArgs) Kind() string { return "agent_recover" }

type recoverWorker struct {
	river.WorkerDefaults[recoverArgs]
	a *Agent
}

func (w *recoverWorker) Timeout(*river.Job[recoverArgs]) time.Duration { return turnTimeout }

func (w *recoverWorker) Work(ctx context.Context, job *river.Job[recoverArgs]) error {
	return w.a.recoverTurns(ctx, fmt.Sprintf("recover:%d:%d", job.ID, job.Attempt))
}

// recoveryJob is the periodic job SetJobs adds to the River client.
func recoveryJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(recoverInterval), func() (river.JobArgs, *river.InsertOpts) {
		return recoverArgs{}, &river.InsertOpts{MaxAttempts: 1, UniqueOpts: jobs.UniqueOpts()}
	}, &river.PeriodicJobOpts{ID: "agent_recover", RunOnStart: true})
}

// recoverTurns finishes every open turn whose phone is not leased (its
// worker died), and abandons open turns older than an hour: a reply that
// late is worse than none.
func (a *Agent) recoverTurns(ctx context.Context, owner string) error {
	ag := a.st.Agent()
	now := a.now()
	if _, err := ag.AbandonTurns(ctx, now.Add(-pendingMaxAge), now); err != nil {
		return err
	}
	phones, err := ag.OrphanedTurnPhones(ctx, now)
	if err != nil {
		return err
	}
	for _, p := range phones {
		err := a.withLease(ctx, "phone:"+p, owner, func(ctx context.Context) error {
			return a.resumeOpenTurn(ctx, p)
		})
		if err != nil && err != errBusy {
			a.log.WarnContext(ctx, "agent: resuming an interrupted turn failed; the next pass retries", "err", err)
		}
	}
	return nil
}

package agent

import (
	"context"
	"errors"
	"time"
)

// errLeaseLost ends work whose lease expired or was taken over.
var errLeaseLost = errors.New("the turn's lease was lost; another worker may own the phone now")

// withLease runs fn while holding the named lease, renewing it every third of
// its life. It returns errBusy without running fn when another owner holds
// an unexpired lease. Leases use the real clock: they are about processes.
func (a *Agent) withLease(ctx context.Context, name, owner string, fn func(ctx context.Context) error) error {
	ok, err := a.acquireLease(ctx, name, owner)
	if err != nil {
		return err
	}
	if !ok {
		return errBusy
	}
	workCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(a.leaseTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				res, err := a.db.ExecContext(workCtx, a.q.renewLease, time.Now().Add(a.leaseTTL).UnixMilli(), name, owner)
				if err != nil {
					continue // a slow database; the lease still has two thirds of its life
				}
				if n, _ := res.RowsAffected(); n == 0 {
					cancel(errLeaseLost)
					return
				}
			}
		}
	}()
	err = fn(workCtx)
	close(done)
	if cause := context.Cause(workCtx); err != nil && errors.Is(cause, errLeaseLost) {
		err = errLeaseLost
	}
	cancel(nil)
	if _, rerr := a.db.ExecContext(context.WithoutCancel(ctx), a.q.releaseLease, name, owner); rerr != nil && err == nil {
		a.log.WarnContext(ctx, "agent: releasing a lease failed; it expires on its own", "lease", name, "err", rerr)
	}
	return err
}

func (a *Agent) acquireLease(ctx context.Context, name, owner string) (bool, error) {
	now := time.Now()
	res, err := a.db.ExecContext(ctx, a.q.acquireLease, name, owner, now.Add(a.leaseTTL).UnixMilli(), now.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// waitLease is withLease that waits (up to the lease's life and a bit) for a
// busy lease instead of giving up.
func (a *Agent) waitLease(ctx context.Context, name, owner string, fn func(ctx context.Context) error) error {
	deadline := time.Now().Add(a.leaseTTL + 5*time.Second)
	for {
		err := a.withLease(ctx, name, owner, fn)
		if !errors.Is(err, errBusy) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// errLeaseLost ends work whose lease expired or was taken over.
var errLeaseLost = errors.New("the turn's lease was lost; another worker may own the phone now")

// withLease runs fn while holding the named lease, renewing it every third of
// its life. It returns errBusy without running fn when another owner holds
// an unexpired lease. Expiry is judged on the agent's clock (Options.Now), so
// every process must share one time source, as they share the database;
// the renewal ticks on the real clock.
func (a *Agent) withLease(ctx context.Context, name, owner string, fn func(ctx context.Context) error) error {
	ag := a.st.Agent()
	ok, err := ag.AcquireLease(ctx, name, owner, a.now(), a.leaseTTL)
	if err != nil {
		return err
	}
	if !ok {
		return errBusy
	}
	workCtx, cancel := context.WithCancelCause(context.WithValue(ctx, heldLeaseKey{}, &heldLease{name: name, owner: owner, outer: heldLeases(ctx)}))
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(a.leaseTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				held, err := ag.RenewLease(workCtx, name, owner, a.now(), a.leaseTTL)
				if err != nil {
					continue // a slow database; the lease still has two thirds of its life
				}
				if !held {
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
	if rerr := ag.ReleaseLease(context.WithoutCancel(ctx), name, owner); rerr != nil && err == nil {
		a.log.WarnContext(ctx, "agent: releasing a lease failed; it expires on its own", "lease", name, "err", rerr)
	}
	return err
}

// heldLease is one lease the work in a context holds; leases nest (a
// studio's key lease inside a phone's turn lease).
type heldLease struct {
	name, owner string
	outer       *heldLease
}

type heldLeaseKey struct{}

func heldLeases(ctx context.Context) *heldLease {
	l, _ := ctx.Value(heldLeaseKey{}).(*heldLease)
	return l
}

// fenceLease proves, right before a step that must happen once (committing
// a reply, sending a chunk), that this context still holds the named lease,
// and extends it. Renewal alone notices a lost lease only on its next tick;
// without this fence a worker whose lease was taken over in between could
// still act. Given a transaction's store, the renewal also locks the lease
// row until the commit, so no one takes the lease over half-way.
func (a *Agent) fenceLease(ctx context.Context, ag store.AgentStore, name string) error {
	for l := heldLeases(ctx); l != nil; l = l.outer {
		if l.name != name {
			continue
		}
		held, err := ag.RenewLease(ctx, name, l.owner, a.now(), a.leaseTTL)
		if err != nil {
			return err
		}
		if !held {
			return errLeaseLost
		}
		return nil
	}
	return fmt.Errorf("fencing lease %s: this work does not hold it", name)
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

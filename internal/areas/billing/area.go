// Package billing is the studio's business loop on the lane: what a
// package or membership holds (session credits), what a trainee owes
// (charges of each start and renewed period) and what she paid (payments,
// refunds as rows of their own), the renewal of memberships, and the
// reasons owes, package_ends and no_credits on the roster's triage.
package billing

import (
	"context"
	"log/slog"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Area is billing's routes and the renewal of memberships.
type Area struct {
	// Store and Logger serve the renewal job; nil Store: no job.
	Store  store.Store
	Logger *slog.Logger
}

// Routes adds billing's routes: the coach's need the billing scope; a
// trainee reads her own billing with her profile scope.
func (a *Area) Routes(rs *lane.Routes) {
	billing := lane.Scope(auth.ScopeBilling)
	lane.Add(rs, "GET", "/trainees/{id}/billing", "A trainee's billing: each package or membership with its status, payment state (paid, partly_paid, overdue, due), sessions used and left and when they expire; what she owes; open charges and her latest payments.",
		traineeBilling, lane.Tool("get_trainee_billing"), billing, lane.Trainee(auth.ScopeProfileRead), lane.TraineeTool("get_my_billing"),
		lane.Allow("summary", "owed", "subscriptions.planName", "subscriptions.kind", "subscriptions.status", "subscriptions.paymentState", "subscriptions.startedOn",
			"subscriptions.endsOn", "subscriptions.credits", "openCharges.planName", "openCharges.dueOn", "openCharges.amount", "openCharges.balance", "openCharges.currency",
			"payments.amount", "payments.currency", "payments.method", "payments.paidOn"))
	lane.Add(rs, "POST", "/trainees/{id}/payments", "Record a payment a trainee made (cash, bank transfer, Bit, card or other). Without chargeId it pays her charge due soonest. Never edited: a refund or correction is POST /payments/{id}/refund.",
		recordPayment, lane.Tool("record_payment"), billing, lane.Created())
	lane.Add(rs, "POST", "/payments/{id}/refund", "Refund or correct a payment: a new payment of the amount given (all that is left of it when omitted) taken back; the payment itself is never changed.",
		refundPayment, billing, lane.Created())
	lane.Add(rs, "GET", "/payments", "The studio's payments, newest first: by trainee and a window of days paid.", listPayments, lane.Tool("list_payments"), billing)
	lane.Add(rs, "GET", "/charges", "The studio's charges, soonest due first, each with what was paid and its balance: all, open (a balance) or overdue (past due with a balance).", listCharges, billing)
	lane.Add(rs, "GET", "/billing/settings", "The studio's billing settings: whether memberships renew and the payment terms (days after a period starts its charge is due).", getSettings, lane.Admin())
	lane.Add(rs, "PATCH", "/billing/settings", "Change the studio's billing settings given.", patchSettings, lane.Admin())
}

var getCharge = func(ss store.StudioStore) func(context.Context, string) (domain.Charge, error) { return ss.GetCharge }

// Declare says what billing holds: payments and charges (a trainee's
// own), the renewal job, and what it adds to the triage and a trainee's
// overview.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Payment, Collections: []string{"payments"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				p, err := ss.GetPayment(ctx, id)
				return p.TraineeID, err
			},
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				p, err := ss.GetPayment(ctx, id)
				return p.Amount.String() + " " + p.Method + " on " + p.PaidOn, err
			}},
		lane.Noun{Kind: ids.Charge,
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				c, err := ss.GetCharge(ctx, id)
				return c.TraineeID, err
			},
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				c, err := ss.GetCharge(ctx, id)
				return c.PlanName + " from " + c.PeriodStart, err
			}})
	d.Refs = map[string]lane.RefCheck{"charge": lane.RefOf(ids.Charge, getCharge)}
	d.Adds.Codes = []lane.ReasonCode{
		{Code: ReasonOwes, Means: "a charge past due unpaid", Scope: auth.ScopeBilling},
		{Code: ReasonPackageEnds, Means: "a package ends within 14 days or has 1 session left", Scope: auth.ScopeBilling},
		{Code: ReasonNoCredits, Scope: auth.ScopeBilling}}
	d.Adds.Reasons = reasons
	d.Adds.Overview = overview
	if a.Store != nil {
		d.Workers = func(w *river.Workers) { river.AddWorker(w, &Renewer{Store: a.Store, Logger: a.Logger}) }
		d.Periodic = []*river.PeriodicJob{RenewalPeriodicJob()}
	}
}

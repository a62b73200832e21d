package domain

import (
	"encoding/json"
	"time"

	"github.com/otherwise/perform/internal/money"
)

// Credits are what a package or membership subscription holds on a day:
// a package its sessions in all until it expires, a membership its
// sessions in the week of that day (Sessions nil: unlimited).
type Credits struct {
	SubscriptionID string `json:"subscriptionId"`
	TraineeID      string `json:"traineeId"`
	PlanName       string `json:"planName"`
	// Kind is the plan's: package or membership.
	Kind string `json:"kind"`
	// Sessions is the package's sessions in all or the membership's a
	// week; nil is unlimited.
	Sessions *int `json:"sessions"`
	// Used are the credits used and not released: in all for a package,
	// in the week of WeekStart for a membership.
	Used int `json:"sessionsUsed"`
	// Left is Sessions - Used (never below 0); nil is unlimited.
	Left *int `json:"sessionsLeft"`
	// ExpiresOn is the last day the credits may be used (a package's
	// validity, or the subscription's end); nil: none.
	ExpiresOn *string `json:"expiresOn"`
	// WeekStart is the first day of the week a membership's Used counts.
	WeekStart *string `json:"weekStart,omitempty"`
	// Status is the subscription's stored state (active, frozen, cancelled).
	Status string `json:"-"`
	// StartedOn is the subscription's first day.
	StartedOn string `json:"-"`
}

// Usable reports whether a credit may be used on day (YYYY-MM-DD).
func (c Credits) Usable(day string) bool {
	if c.Status != "active" || c.StartedOn > day || (c.ExpiresOn != nil && *c.ExpiresOn < day) {
		return false
	}
	return c.Left == nil || *c.Left > 0
}

// Charge is what a subscription's start or a renewed period costs, due on
// DueOn. Paid is the sum of the payments that name it (refunds
// subtracted); Balance is Amount - Paid.
type Charge struct {
	ID             string      `json:"id"`
	TraineeID      string      `json:"traineeId"`
	SubscriptionID string      `json:"subscriptionId"`
	PlanName       string      `json:"planName"`
	PeriodStart    string      `json:"periodStart"`
	PeriodEnd      *string     `json:"periodEnd"`
	DueOn          string      `json:"dueOn"`
	Amount         money.Money `json:"amount"`
	Currency       string      `json:"currency"`
	Paid           money.Money `json:"paid"`
	Balance        money.Money `json:"balance"`
	CreatedAt      time.Time   `json:"createdAt"`
}

// Overdue reports whether the charge is past due on today with a balance.
func (c Charge) Overdue(today string) bool { return c.DueOn < today && c.Balance.Minor > 0 }

// Payment methods and sources.
const (
	PayCash         = "cash"
	PayBankTransfer = "bank_transfer"
	PayBit          = "bit"
	PayCard         = "card"
	PayOther        = "other"

	PaidToCoach     = "coach"     // recorded by hand
	PaidByProcessor = "processor" // a payment processor's webhook
)

// PaymentMethods are the methods a payment may name.
var PaymentMethods = []string{PayCash, PayBankTransfer, PayBit, PayCard, PayOther}

// Payment is money a trainee paid, or (a negative Amount, ReversesID set)
// a refund or correction of an earlier payment: payments are never edited.
type Payment struct {
	// StudioID is the studio the payment is recorded in (store.RecordPayment).
	StudioID   string      `json:"-"`
	ID         string      `json:"id"`
	TraineeID  string      `json:"traineeId"`
	ChargeID   *string     `json:"chargeId"`
	Amount     money.Money `json:"amount"`
	Currency   string      `json:"currency"`
	Method     string      `json:"method"`
	PaidOn     string      `json:"paidOn"`
	Note       *string     `json:"note"`
	Source     string      `json:"source"`
	ExternalID *string     `json:"externalId,omitempty"`
	ReversesID *string     `json:"reversesId"`
	CreatedAt  time.Time   `json:"createdAt"`
}

// Payment states of a subscription, beside its status.
const (
	PaymentPaid       = "paid"
	PaymentPartlyPaid = "partly_paid"
	PaymentOverdue    = "overdue"
	PaymentDue        = "due"
)

// PaymentState is the state of a subscription's charges on today: overdue
// when one is past due with a balance, paid when none has a balance,
// partly paid when something was paid, else due; "" without charges.
func PaymentState(charges []Charge, today string) string {
	if len(charges) == 0 {
		return ""
	}
	owed, paid := false, false
	for _, c := range charges {
		if c.Overdue(today) {
			return PaymentOverdue
		}
		owed = owed || c.Balance.Minor > 0
		paid = paid || c.Paid.Minor > 0
	}
	switch {
	case !owed:
		return PaymentPaid
	case paid:
		return PaymentPartlyPaid
	}
	return PaymentDue
}

// billingSettings are the studio's billing settings (settings JSON).
type billingSettings struct {
	RenewMemberships *bool `json:"renewMemberships"`
	PaymentTermsDays *int  `json:"paymentTermsDays"`
}

func (s Studio) billing() billingSettings {
	var b billingSettings
	if len(s.Settings) > 0 {
		_ = json.Unmarshal(s.Settings, &b)
	}
	return b
}

// RenewsMemberships reports whether the studio's memberships renew into
// their next period (settings.renewMemberships; true unless turned off).
func (s Studio) RenewsMemberships() bool {
	b := s.billing()
	return b.RenewMemberships == nil || *b.RenewMemberships
}

// PaymentTermsDays is how many days after a period starts its charge is
// due (settings.paymentTermsDays; 0, the first day, unless set).
func (s Studio) PaymentTermsDays() int {
	if d := s.billing().PaymentTermsDays; d != nil && *d > 0 {
		return *d
	}
	return 0
}

// PeriodEnd is the last day of a membership period (week or month) that
// starts on start (YYYY-MM-DD): a week is seven days; a month ends the day
// before the same date of the next month (the month's last day when that
// month is shorter). "" when start is not a date.
func PeriodEnd(start, period string) string {
	t, err := time.Parse(time.DateOnly, start)
	if err != nil {
		return ""
	}
	if period == PeriodWeek {
		return t.AddDate(0, 0, 6).Format(time.DateOnly)
	}
	y, m, d := t.Date()
	last := time.Date(y, m+2, 0, 0, 0, 0, 0, time.UTC).Day() // days of the next month
	next := time.Date(y, m+1, min(d, last), 0, 0, 0, 0, time.UTC)
	return next.AddDate(0, 0, -1).Format(time.DateOnly)
}

package payhook

import (
	"context"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// A Processor is one payment processor's webhook: how a delivery is
// verified and how its body reads as an Event. Stripe is the one Perform
// ships; another processor maps the same way (docs/payments-webhook.md).
type Processor interface {
	// Name is the processor's name, kept with each event ("stripe").
	Name() string
	// Verify checks a delivery's signature under the studio's signing
	// secret at now; an error is a sentence, answered with 400.
	Verify(h http.Header, body []byte, secret string, now time.Time) error
	// Parse reads a verified body; an error is a sentence, answered with
	// 400 (the processor retries, and the studio's log shows why).
	Parse(body []byte) (Event, error)
}

// Kind is what an event means for the studio's books.
type Kind string

const (
	// Paid is money in: Amount minor units of Currency, recorded once by
	// ExternalID.
	Paid Kind = "paid"
	// Failed is a payment that failed (an invoice not paid): nothing is
	// recorded but the event.
	Failed Kind = "failed"
	// Refunded is money back: Amount is what the processor has refunded
	// of the object in all; the refund recorded is what that adds.
	Refunded Kind = "refunded"
	// Ignored is an event with nothing to record.
	Ignored Kind = "ignored"
)

// Event is one processor event, in Perform's terms.
type Event struct {
	Processor string
	ID        string // the processor's event id: each is taken once
	Type      string // the processor's event type
	Kind      Kind
	Livemode  bool
	Occurred  time.Time
	ObjectID  string
	// ExternalID is what the payment is recorded by: two events about one
	// payment (a Checkout session and its invoice) carry the same.
	ExternalID string
	// Reverses are the external ids the payment a refund reverses may have
	// been recorded by.
	Reverses []string
	Amount   int64
	Currency string
	// Who paid: the trainee's id from the payment link's metadata, else
	// the email, phone and name the processor has.
	TraineeID, Email, Phone, Name string
	// Detail says why an Ignored event records nothing.
	Detail string
}

// Payment is what the webhook asks the studio's books to record: source
// processor, its ExternalID unique in the studio, so a payment recorded
// twice is one.
type Payment struct {
	TraineeID string
	// Amount is in minor units of Currency; a refund's is below zero.
	Amount   int64
	Currency string
	// PaidOn is the studio's local day of the event (YYYY-MM-DD).
	PaidOn     string
	Note       string
	ExternalID string
	// ReversesID is the payment a refund reverses ("" when unknown).
	ReversesID string
}

// A PaymentRecorder records a payment in the studio's books inside the
// webhook's transaction (tx): created is false when a payment of that
// external id is already recorded, and id names it either way.
type PaymentRecorder interface {
	RecordPayment(ctx context.Context, tx store.Store, studioID string, p Payment) (id string, created bool, err error)
}

// Books are the studio's books (store.RecordPayment): a payment of source
// processor, by card, its external id the event's, so a payment recorded
// twice is one; a refund reverses the payment it refunds.
type Books struct{}

// RecordPayment records p in the studio's books inside tx.
func (Books) RecordPayment(ctx context.Context, tx store.Store, studioID string, p Payment) (string, bool, error) {
	ext, note := p.ExternalID, p.Note
	dp := domain.Payment{StudioID: studioID, TraineeID: p.TraineeID, Amount: money.Money{Minor: p.Amount, Currency: p.Currency}, Currency: p.Currency,
		Method: domain.PayCard, PaidOn: p.PaidOn, Note: &note, Source: domain.PaidByProcessor, ExternalID: &ext}
	if p.ReversesID != "" {
		reverses := p.ReversesID
		dp.ReversesID = &reverses
	}
	out, created, err := store.RecordPayment(ctx, tx, dp)
	return out.ID, created, err
}

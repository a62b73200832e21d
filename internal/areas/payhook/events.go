package payhook

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// EventView is one event the webhook took, as the coach reads it.
type EventView struct {
	store.PaymentEvent
	// Amount is what the event records (a refund's below zero).
	Amount *money.Money `json:"amount,omitempty"`
}

func viewOf(e store.PaymentEvent) EventView {
	v := EventView{PaymentEvent: e}
	if e.Currency != "" {
		v.Amount = &money.Money{Minor: e.AmountMinor, Currency: e.Currency}
	}
	return v
}

type eventsQuery struct {
	Outcome string `json:"outcome,omitempty" jsonschema:"Only events of this outcome: unmatched (no trainee found: match them), recorded, already_recorded, payment_failed or ignored." lane:"enum=recorded|already_recorded|unmatched|payment_failed|ignored"`
	lane.PageQuery
}

type matchInput struct {
	TraineeID string `json:"traineeId" jsonschema:"The trainee who paid, by id (search_trainees) or name." lane:"minLength=1,maxLength=100" ref:"trainee"`
}

func (a *Area) eventRoutes(rs *lane.Routes) {
	billing := lane.Scope(auth.ScopeBilling)
	lane.Add(rs, "GET", "/payment-events", "The events the payments webhook took, newest first: what each recorded, and those no trainee matched (outcome unmatched), which wait for a coach.", a.listEvents, billing)
	lane.Add(rs, "POST", "/payment-events/{id}/match", "Record an unmatched payment event's payment (or refund) for the trainee who made it.", a.matchEvent, billing)
}

func (a *Area) listEvents(c *lane.Call, q *eventsQuery) (lane.ListOf[EventView], error) {
	page := q.Page()
	list, err := c.DB().PaymentHooks().ListPaymentEvents(c.Ctx, c.P.StudioID, q.Outcome, page)
	if err != nil {
		return lane.ListOf[EventView]{}, err
	}
	views := store.List[EventView]{Total: list.Total, Items: make([]EventView, len(list.Items))}
	for i, e := range list.Items {
		views.Items[i] = viewOf(e)
	}
	return lane.PageOf(views, page), nil
}

func (a *Area) matchEvent(c *lane.Call, in *matchInput) (EventView, error) {
	var out EventView
	err := c.DB().InTx(c.Ctx, func(tx store.Store) error {
		pe, err := tx.PaymentHooks().PaymentEvent(c.Ctx, c.P.StudioID, c.ID())
		if errors.Is(err, store.ErrNotFound) {
			return lane.NotFound(ids.PaymentEvent, c.ID())
		} else if err != nil {
			return err
		}
		if a.o.Recorder == nil {
			return &lane.Error{Status: http.StatusConflict, Code: lane.CodeConflict, Message: "This server keeps no books to record the payment in, so an event cannot be matched."}
		}
		if pe.Outcome != store.PaymentEventUnmatched {
			return lane.Conflict(fmt.Sprintf("Payment event %s is %s, not unmatched: only an event no trainee matched is matched by hand.", pe.ID, pe.Outcome))
		}
		p := Payment{Amount: pe.AmountMinor, Currency: pe.Currency, PaidOn: lane.LocalDay(pe.OccurredAt, c.Zone()),
			ExternalID: pe.ExternalID, ReversesID: pe.Reverses, Note: fmt.Sprintf("Paid on %s (%s)", pe.Processor, pe.ExternalID)}
		if pe.AmountMinor < 0 {
			p.Note = fmt.Sprintf("Refund on %s (%s)", pe.Processor, pe.ObjectID)
		}
		pe.TraineeID = in.TraineeID
		if err := record(c.Ctx, a.o.Recorder, tx, c.P.StudioID, p, in.TraineeID, "matched by a coach", &pe); err != nil {
			return err
		}
		if pe.Outcome == store.PaymentEventUnmatched {
			return lane.Conflict(fmt.Sprintf("The books refuse payment event %s for this trainee: %s.", pe.ID, strings.TrimPrefix(pe.Detail, "the books refused it: ")))
		}
		if err := tx.PaymentHooks().SettlePaymentEvent(c.Ctx, pe); err != nil {
			return err
		}
		c.SetResource(pe.ID)
		out = viewOf(pe)
		return nil
	})
	return out, err
}

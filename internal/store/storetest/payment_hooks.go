package storetest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The payment processors' webhooks (store.PaymentHookStore): one hook per
// studio, found by its token's hash; every event kept once, even when two
// deliveries of it arrive at once.
func testPaymentHooks(t *testing.T, st store.Store) {
	ph := st.PaymentHooks()
	a, b := newStudio(t, st), newStudio(t, st)
	_, err := ph.PaymentHook(ctx, a.ID)
	mustNotFound(t, "PaymentHook before any", err)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

	h := store.PaymentHook{StudioID: a.ID, TokenHash: hashOf("token-a-" + a.ID), TokenHint: "pwh_abcd", Secret: "v1:sealed", Processor: "stripe", CreatedAt: at, RotatedAt: at}
	must(t, "PutPaymentHook", ph.PutPaymentHook(ctx, h))
	got, err := ph.PaymentHookByToken(ctx, h.TokenHash)
	if err != nil || got.StudioID != a.ID || got.Secret != h.Secret || got.TokenHint != h.TokenHint || !sameTime(got.CreatedAt, at) {
		t.Fatalf("PaymentHookByToken = %+v, %v", got, err)
	}
	_, err = ph.PaymentHookByToken(ctx, hashOf("no such token"))
	mustNotFound(t, "PaymentHookByToken of another token", err)

	// A rotation replaces the token and the secret; the old token finds nothing.
	r := h
	r.TokenHash, r.Secret, r.RotatedAt = hashOf("token-a2-"+a.ID), "v1:sealed2", at.Add(time.Hour)
	must(t, "PutPaymentHook again", ph.PutPaymentHook(ctx, r))
	_, err = ph.PaymentHookByToken(ctx, h.TokenHash)
	mustNotFound(t, "the rotated token", err)
	got, err = ph.PaymentHook(ctx, a.ID)
	if err != nil || !bytes.Equal(got.TokenHash, r.TokenHash) || got.Secret != "v1:sealed2" || !sameTime(got.CreatedAt, at) || !sameTime(got.RotatedAt, r.RotatedAt) {
		t.Fatalf("the rotated hook = %+v, %v", got, err)
	}

	// Events: kept once per studio, processor and event id.
	noa := newTrainee(t, st.Studio(a.ID), "Noa", "Pay")
	e := store.PaymentEvent{StudioID: a.ID, Processor: "stripe", EventID: "evt_1", Type: "invoice.paid", ObjectID: "in_1", ExternalID: "in_1",
		AmountMinor: 25000, Currency: "ILS", Payer: "noa@example.com", Outcome: store.PaymentEventUnmatched, OccurredAt: at, ReceivedAt: at}
	ok, err := ph.AddPaymentEvent(ctx, &e)
	if err != nil || !ok || e.ID == "" {
		t.Fatalf("AddPaymentEvent = %v, %v (id %q)", ok, err, e.ID)
	}
	again := e
	again.ID = ""
	if ok, err := ph.AddPaymentEvent(ctx, &again); err != nil || ok {
		t.Fatalf("the same event again = %v, %v; want false", ok, err)
	}
	other := e
	other.ID, other.StudioID = "", b.ID
	if ok, err := ph.AddPaymentEvent(ctx, &other); err != nil || !ok {
		t.Fatalf("the same event id in another studio = %v, %v; want kept", ok, err)
	}

	// Two deliveries of one event at once, each in a transaction: one is kept.
	var wg sync.WaitGroup
	var mu sync.Mutex
	kept := 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := st.InTx(ctx, func(tx store.Store) error {
				x := store.PaymentEvent{StudioID: a.ID, Processor: "stripe", EventID: "evt_race", Type: "invoice.paid", Outcome: store.PaymentEventIgnored, OccurredAt: at, ReceivedAt: at}
				ok, err := tx.PaymentHooks().AddPaymentEvent(ctx, &x)
				if ok {
					mu.Lock()
					kept++
					mu.Unlock()
				}
				return err
			})
			if err != nil {
				t.Errorf("a concurrent AddPaymentEvent: %v", err)
			}
		}()
	}
	wg.Wait()
	if kept != 1 {
		t.Fatalf("four deliveries at once kept %d events, want 1", kept)
	}

	e.TraineeID, e.PaymentID, e.Outcome, e.Detail = noa.ID, "pay_1", store.PaymentEventRecorded, "matched by email"
	must(t, "SettlePaymentEvent", ph.SettlePaymentEvent(ctx, e))
	mustNotFound(t, "SettlePaymentEvent of another studio's event", ph.SettlePaymentEvent(ctx, store.PaymentEvent{StudioID: b.ID, ID: e.ID, Outcome: "x"}))
	if got, err := ph.PaymentEvent(ctx, b.ID, other.ID); err != nil || got.Outcome != store.PaymentEventUnmatched || got.AmountMinor != 25000 {
		t.Fatalf("another studio's event of the same id after A's settled: %+v, %v", got, err)
	}
	got2, err := ph.PaymentEvent(ctx, a.ID, e.ID)
	if err != nil || got2.TraineeID != noa.ID || got2.Outcome != store.PaymentEventRecorded || got2.AmountMinor != 25000 || got2.Payer != e.Payer {
		t.Fatalf("PaymentEvent = %+v, %v", got2, err)
	}
	_, err = ph.PaymentEvent(ctx, b.ID, e.ID)
	mustNotFound(t, "another studio's event", err)

	// A refund of part of the charge, then the list.
	refund := store.PaymentEvent{StudioID: a.ID, Processor: "stripe", EventID: "evt_2", Type: "charge.refunded", ObjectID: "ch_1", ExternalID: "ch_1/refunded/5000",
		Reverses: "pay_1", AmountMinor: -5000, Currency: "ILS", TraineeID: noa.ID, PaymentID: "pay_2", Outcome: store.PaymentEventRecorded, OccurredAt: at, ReceivedAt: at.Add(time.Minute)}
	if ok, err := ph.AddPaymentEvent(ctx, &refund); err != nil || !ok {
		t.Fatalf("AddPaymentEvent refund = %v, %v", ok, err)
	}
	rec, err := ph.RecordedFor(ctx, a.ID, []string{"pi_none", "in_1"}, "ch_1")
	if err != nil || rec != (store.Recorded{PaymentID: "pay_1", TraineeID: noa.ID, Refunded: 5000}) {
		t.Fatalf("RecordedFor = %+v, %v; want pay_1 of Noa, 5000 refunded", rec, err)
	}
	if rec, err := ph.RecordedFor(ctx, b.ID, []string{"in_1"}, "ch_1"); err != nil || rec != (store.Recorded{}) {
		t.Fatalf("RecordedFor in another studio = %+v, %v", rec, err)
	}
	list, err := ph.ListPaymentEvents(ctx, a.ID, "", store.Page{Limit: 10})
	if err != nil || list.Total != 3 || len(list.Items) != 3 || list.Items[0].ID != refund.ID {
		t.Fatalf("ListPaymentEvents = %+v, %v; want 3, the refund first", list, err)
	}
	list, err = ph.ListPaymentEvents(ctx, a.ID, store.PaymentEventIgnored, store.Page{Limit: 10})
	if err != nil || list.Total != 1 || list.Items[0].EventID != "evt_race" {
		t.Fatalf("ListPaymentEvents ignored = %+v, %v", list, err)
	}

	// Trainees by email, case aside; two with one email are no match.
	ss := st.Studio(a.ID)
	dana := newTrainee(t, ss, "Dana", "Mail")
	dana.Email = ptr("Dana.Mail@Example.com")
	must(t, "UpdateTrainee", ss.UpdateTrainee(ctx, &dana))
	if found, err := ph.TraineesByEmail(ctx, a.ID, " dana.mail@example.COM"); err != nil || len(found) != 1 || found[0] != dana.ID {
		t.Fatalf("TraineesByEmail = %v, %v", found, err)
	}
	if found, err := ph.TraineesByEmail(ctx, b.ID, "dana.mail@example.com"); err != nil || len(found) != 0 {
		t.Fatalf("TraineesByEmail in another studio = %v, %v", found, err)
	}
	twin := newTrainee(t, ss, "Dana", "Twin")
	twin.Email = ptr("dana.mail@example.com")
	must(t, "UpdateTrainee twin", ss.UpdateTrainee(ctx, &twin))
	if found, err := ph.TraineesByEmail(ctx, a.ID, "dana.mail@example.com"); err != nil || len(found) != 2 {
		t.Fatalf("TraineesByEmail of a shared email = %v, %v; want both", found, err)
	}

	// A failed payment of Noa's after her recorded one is hers until a
	// payment is recorded after it.
	failed := store.PaymentEvent{StudioID: a.ID, Processor: "stripe", EventID: "evt_failed", Type: "invoice.payment_failed", ObjectID: "in_9", AmountMinor: 30000,
		Currency: "ILS", TraineeID: noa.ID, Outcome: store.PaymentEventFailed, OccurredAt: at.Add(2 * time.Hour), ReceivedAt: at.Add(2 * time.Hour)}
	if ok, err := ph.AddPaymentEvent(ctx, &failed); err != nil || !ok {
		t.Fatalf("AddPaymentEvent failed = %v, %v", ok, err)
	}
	if got, err := ph.FailedPayments(ctx, a.ID, []string{noa.ID, dana.ID}, at); err != nil || len(got) != 1 || got[noa.ID].ID != failed.ID {
		t.Fatalf("FailedPayments = %+v, %v", got, err)
	}
	if got, err := ph.FailedPayments(ctx, a.ID, []string{noa.ID}, at.Add(3*time.Hour)); err != nil || len(got) != 0 {
		t.Fatalf("FailedPayments since after it = %+v, %v", got, err)
	}
	if got, err := ph.FailedPayments(ctx, b.ID, []string{noa.ID}, at); err != nil || len(got) != 0 {
		t.Fatalf("FailedPayments in another studio = %+v, %v", got, err)
	}
	later := store.PaymentEvent{StudioID: a.ID, Processor: "stripe", EventID: "evt_later", Type: "invoice.paid", ObjectID: "in_9", ExternalID: "in_9", AmountMinor: 30000,
		Currency: "ILS", TraineeID: noa.ID, PaymentID: "pay_9", Outcome: store.PaymentEventRecorded, OccurredAt: failed.OccurredAt, ReceivedAt: failed.ReceivedAt.Add(time.Second)}
	if ok, err := ph.AddPaymentEvent(ctx, &later); err != nil || !ok {
		t.Fatalf("AddPaymentEvent later = %v, %v", ok, err)
	}
	if got, err := ph.FailedPayments(ctx, a.ID, []string{noa.ID}, at); err != nil || len(got) != 0 {
		t.Fatalf("FailedPayments after a payment of the same second, received later = %+v, %v", got, err)
	}

	// Payment links per plan, the studio's own.
	plan := domain.Product{Name: "Ten sessions", Active: true}
	must(t, "CreateProduct", ss.CreateProduct(ctx, &plan))
	must(t, "PutPaymentLink", ph.PutPaymentLink(ctx, a.ID, plan.ID, "https://buy.stripe.com/test_1", at))
	must(t, "PutPaymentLink again", ph.PutPaymentLink(ctx, a.ID, plan.ID, "https://buy.stripe.com/test_2", at))
	mustNotFound(t, "PutPaymentLink on another studio's plan", ph.PutPaymentLink(ctx, b.ID, plan.ID, "https://x.example", at))
	if links, err := ph.PaymentLinks(ctx, a.ID, []string{plan.ID, "prd_none"}); err != nil || len(links) != 1 || links[plan.ID] != "https://buy.stripe.com/test_2" {
		t.Fatalf("PaymentLinks = %v, %v", links, err)
	}
	if links, err := ph.PaymentLinks(ctx, b.ID, []string{plan.ID}); err != nil || len(links) != 0 {
		t.Fatalf("PaymentLinks of another studio = %v, %v", links, err)
	}
	if gone, err := ph.DeletePaymentLink(ctx, b.ID, plan.ID); err != nil || gone {
		t.Fatalf("DeletePaymentLink by another studio = %v, %v", gone, err)
	}
	if gone, err := ph.DeletePaymentLink(ctx, a.ID, plan.ID); err != nil || !gone {
		t.Fatalf("DeletePaymentLink = %v, %v", gone, err)
	}

	// Off: the hook goes, its events stay.
	if gone, err := ph.DeletePaymentHook(ctx, a.ID); err != nil || !gone {
		t.Fatalf("DeletePaymentHook = %v, %v", gone, err)
	}
	if gone, err := ph.DeletePaymentHook(ctx, a.ID); err != nil || gone {
		t.Fatalf("DeletePaymentHook again = %v, %v; want false", gone, err)
	}
	_, err = ph.PaymentHookByToken(ctx, r.TokenHash)
	mustNotFound(t, "a deleted hook's token", err)
	if list, err := ph.ListPaymentEvents(ctx, a.ID, "", store.Page{Limit: 10}); err != nil || list.Total != 5 {
		t.Fatalf("events after the hook went = %d, %v", list.Total, err)
	}
}

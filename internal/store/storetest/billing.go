package storetest

import (
	"errors"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

func ils(minor int64) money.Money { return money.Money{Minor: minor, Currency: "ILS"} }

func testBilling(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss, sb := st.Studio(a.ID), st.Studio(b.ID)
	pack, member := billingPlans(t, ss)
	noa := newTrainee(t, ss, "Noa", "Billing")
	other := newTrainee(t, ss, "Other", "Billing")

	// A package's start is charged once, due on its first day.
	sub := domain.Subscription{TraineeID: noa.ID, ProductID: pack.ID, StartedOn: "2026-03-01", Price: ptr(ils(45000))}
	must(t, "CreateSubscription package", ss.CreateSubscription(ctx, &sub))
	charges, err := ss.ListCharges(ctx, store.ChargeFilter{TraineeIDs: []string{noa.ID}, Page: page(50, 0)})
	must(t, "ListCharges", err)
	if charges.Total != 1 {
		t.Fatalf("charges of a new package = %+v, want one", charges)
	}
	ch := charges.Items[0]
	if ch.Amount != ils(45000) || ch.DueOn != "2026-03-01" || ch.PeriodStart != "2026-03-01" || ch.Balance != ils(45000) || ch.Paid != ils(0) ||
		ch.SubscriptionID != sub.ID || ch.PlanName != "Three sessions" {
		t.Fatalf("the package's charge = %+v", ch)
	}
	// A plan of kind other, and a billing plan without a price, charge nothing.
	plain := domain.Product{Name: "Plain", Currency: "ILS", Active: true}
	must(t, "CreateProduct plain", ss.CreateProduct(ctx, &plain))
	must(t, "CreateSubscription plain", ss.CreateSubscription(ctx, &domain.Subscription{TraineeID: other.ID, ProductID: plain.ID, StartedOn: "2026-03-01", Price: ptr(ils(10000))}))
	must(t, "CreateSubscription free package", ss.CreateSubscription(ctx, &domain.Subscription{TraineeID: other.ID, ProductID: pack.ID, StartedOn: "2026-03-01"}))
	if l, _ := ss.ListCharges(ctx, store.ChargeFilter{TraineeIDs: []string{other.ID}}); l.Total != 0 {
		t.Fatalf("a plain plan and an unpriced package charged %+v", l.Items)
	}

	// A payment that names no charge pays the one due soonest; part of it
	// leaves a balance, exact to the agora.
	pay, created, err := store.RecordPayment(ctx, st, domain.Payment{StudioID: a.ID, TraineeID: noa.ID, Amount: ils(20050), Method: domain.PayCash, PaidOn: "2026-03-02"})
	must(t, "RecordPayment", err)
	if !created || pay.ChargeID == nil || *pay.ChargeID != ch.ID || pay.Source != domain.PaidToCoach || pay.Currency != "ILS" {
		t.Fatalf("RecordPayment = %+v, %v", pay, created)
	}
	ch, err = ss.GetCharge(ctx, ch.ID)
	must(t, "GetCharge", err)
	if ch.Paid != ils(20050) || ch.Balance != ils(24950) {
		t.Fatalf("charge after 200.50 paid = %+v", ch)
	}
	if got := domain.PaymentState([]domain.Charge{ch}, "2026-03-01"); got != domain.PaymentPartlyPaid {
		t.Fatalf("state on the due day with part paid = %q", got)
	}
	if got := domain.PaymentState([]domain.Charge{ch}, "2026-03-02"); got != domain.PaymentOverdue {
		t.Fatalf("state past due with a balance = %q", got)
	}
	if l, _ := ss.ListCharges(ctx, store.ChargeFilter{OverdueOn: "2026-03-02"}); l.Total != 1 || l.Items[0].ID != ch.ID {
		t.Fatalf("overdue charges on 2026-03-02 = %+v", l)
	}
	if l, _ := ss.ListCharges(ctx, store.ChargeFilter{OverdueOn: "2026-03-01"}); l.Total != 0 {
		t.Fatalf("overdue charges on the due day = %+v, want none", l)
	}
	rest, _, err := ss.RecordPayment(ctx, domain.Payment{TraineeID: noa.ID, ChargeID: &ch.ID, Amount: ils(24950), Method: domain.PayBit, PaidOn: "2026-03-03", Note: ptr("the rest")})
	must(t, "RecordPayment the rest", err)
	ch, _ = ss.GetCharge(ctx, ch.ID)
	if ch.Balance.Minor != 0 || domain.PaymentState([]domain.Charge{ch}, "2026-04-01") != domain.PaymentPaid {
		t.Fatalf("charge paid in full = %+v", ch)
	}
	if l, _ := ss.ListCharges(ctx, store.ChargeFilter{Open: true}); l.Total != 0 {
		t.Fatalf("open charges after paying = %+v", l)
	}

	// A refund is a payment of its own, at most what is left of the one it reverses.
	refund, _, err := ss.RecordPayment(ctx, domain.Payment{TraineeID: noa.ID, ReversesID: &rest.ID, Amount: ils(10000), Method: domain.PayBit, PaidOn: "2026-03-04"})
	must(t, "refund", err)
	if refund.Amount != ils(-10000) || refund.ChargeID == nil || *refund.ChargeID != ch.ID {
		t.Fatalf("refund = %+v, want -100 on the charge", refund)
	}
	if ch, _ = ss.GetCharge(ctx, ch.ID); ch.Balance != ils(10000) {
		t.Fatalf("charge after a refund = %+v", ch)
	}
	if _, _, err := ss.RecordPayment(ctx, domain.Payment{TraineeID: noa.ID, ReversesID: &rest.ID, Amount: ils(14951), Method: domain.PayBit, PaidOn: "2026-03-04"}); !errors.Is(err, store.ErrPayment) {
		t.Fatalf("a refund of more than is left: %v", err)
	}
	if _, _, err := ss.RecordPayment(ctx, domain.Payment{TraineeID: noa.ID, ReversesID: &refund.ID, Amount: ils(1), Method: domain.PayBit, PaidOn: "2026-03-04"}); !errors.Is(err, store.ErrPayment) {
		t.Fatalf("a refund of a refund: %v", err)
	}
	_, _, err = ss.RecordPayment(ctx, domain.Payment{TraineeID: other.ID, ReversesID: &rest.ID, Amount: ils(1), Method: domain.PayBit, PaidOn: "2026-03-04"})
	mustNotFound(t, "a refund of another trainee's payment", err)
	for name, bad := range map[string]domain.Payment{
		"zero":           {TraineeID: noa.ID, Amount: ils(0), Method: domain.PayCash, PaidOn: "2026-03-04"},
		"negative":       {TraineeID: noa.ID, Amount: ils(-5), Method: domain.PayCash, PaidOn: "2026-03-04"},
		"method":         {TraineeID: noa.ID, Amount: ils(5), Method: "cheque", PaidOn: "2026-03-04"},
		"date":           {TraineeID: noa.ID, Amount: ils(5), Method: domain.PayCash, PaidOn: "4.3.2026"},
		"charge's money": {TraineeID: noa.ID, ChargeID: &ch.ID, Amount: money.Money{Minor: 5, Currency: "USD"}, Method: domain.PayCash, PaidOn: "2026-03-04"},
	} {
		if _, _, err := ss.RecordPayment(ctx, bad); !errors.Is(err, store.ErrPayment) {
			t.Errorf("a payment with a bad %s: %v, want ErrPayment", name, err)
		}
	}
	_, _, err = ss.RecordPayment(ctx, domain.Payment{TraineeID: other.ID, ChargeID: &ch.ID, Amount: ils(5), Method: domain.PayCash, PaidOn: "2026-03-04"})
	mustNotFound(t, "a payment of another trainee's charge", err)

	// Tenancy.
	_, err = sb.GetCharge(ctx, ch.ID)
	mustNotFound(t, "GetCharge from another studio", err)
	_, err = sb.GetPayment(ctx, pay.ID)
	mustNotFound(t, "GetPayment from another studio", err)
	_, _, err = sb.RecordPayment(ctx, domain.Payment{TraineeID: noa.ID, Amount: ils(5), Method: domain.PayCash, PaidOn: "2026-03-04"})
	mustNotFound(t, "RecordPayment for another studio's trainee", err)
	if l, _ := sb.ListPayments(ctx, store.PaymentFilter{}); l.Total != 0 {
		t.Fatalf("another studio lists %d payments", l.Total)
	}
	list, err := ss.ListPayments(ctx, store.PaymentFilter{TraineeID: noa.ID, Page: page(50, 0)})
	must(t, "ListPayments", err)
	if list.Total != 3 || list.Items[0].ID != refund.ID || list.Items[2].ID != pay.ID {
		t.Fatalf("ListPayments = %+v, want newest first", list)
	}

	// A processor's event is one payment however often it arrives, at once too.
	var wg sync.WaitGroup
	got := make([]domain.Payment, 4)
	made := make([]bool, 4)
	errs := make([]error, 4)
	for i := range got {
		wg.Go(func() {
			got[i], made[i], errs[i] = store.RecordPayment(ctx, st, domain.Payment{StudioID: a.ID, TraineeID: noa.ID, Amount: ils(100), Method: domain.PayCard,
				PaidOn: "2026-03-05", Source: domain.PaidByProcessor, ExternalID: ptr("in_123")})
		})
	}
	wg.Wait()
	n := 0
	for i := range got {
		must(t, "RecordPayment of an event", errs[i])
		if made[i] {
			n++
		}
		if got[i].ID != got[0].ID {
			t.Fatalf("one event recorded as %s and %s", got[0].ID, got[i].ID)
		}
	}
	if n != 1 {
		t.Fatalf("one event created %d payments", n)
	}
	// The same external id from the coach's own records is another payment.
	if _, made, err := ss.RecordPayment(ctx, domain.Payment{TraineeID: noa.ID, Amount: ils(100), Method: domain.PayCard, PaidOn: "2026-03-05", ExternalID: ptr("in_123")}); err != nil || !made {
		t.Fatalf("the same external id from another source: %v, %v", made, err)
	}

	// A membership runs month by month, charged for each period once, due
	// by the studio's payment terms.
	_, err = store.PatchStudioSettings(ctx, st, a.ID, map[string]any{"paymentTermsDays": 5})
	must(t, "payment terms", err)
	omer := newTrainee(t, ss, "Omer", "Billing")
	msub := domain.Subscription{TraineeID: omer.ID, ProductID: member.ID, StartedOn: "2026-01-31", Price: ptr(ils(39900))}
	must(t, "CreateSubscription membership", ss.CreateSubscription(ctx, &msub))
	if msub.EndsOn == nil || *msub.EndsOn != "2026-02-27" {
		t.Fatalf("a monthly membership from Jan 31 ends %v, want 2026-02-27", msub.EndsOn)
	}
	noRenew := domain.Product{Name: "No renewal", Currency: "ILS", Active: true, Kind: domain.PlanMembership, Period: ptr(domain.PeriodWeek), Price: ptr(ils(5000))}
	must(t, "CreateProduct no renewal", ss.CreateProduct(ctx, &noRenew))
	must(t, "CreateSubscription no renewal", ss.CreateSubscription(ctx, &domain.Subscription{TraineeID: omer.ID, ProductID: noRenew.ID, StartedOn: "2026-02-01", Price: ptr(ils(5000))}))
	counts := make([]int, 3)
	for i := range counts {
		wg.Go(func() {
			var err error
			counts[i], err = ss.RenewMemberships(ctx, "2026-04-01")
			errs[i] = err
		})
	}
	wg.Wait()
	total := 0
	for i := range counts {
		must(t, "RenewMemberships", errs[i])
		total += counts[i]
	}
	if total != 2 {
		t.Fatalf("three renewals at once added %d periods, want 2 (Feb 28 – Mar 27, Mar 28 – Apr 27)", total)
	}
	if n, err := ss.RenewMemberships(ctx, "2026-04-01"); err != nil || n != 0 {
		t.Fatalf("renewing again: %d, %v", n, err)
	}
	renewed, _ := ss.GetSubscription(ctx, msub.ID)
	if *renewed.EndsOn != "2026-04-27" {
		t.Fatalf("renewed membership ends %s", *renewed.EndsOn)
	}
	mc, _ := ss.ListCharges(ctx, store.ChargeFilter{SubscriptionID: msub.ID, Page: page(50, 0)})
	if mc.Total != 3 || mc.Items[0].DueOn != "2026-02-05" || mc.Items[1].PeriodStart != "2026-02-28" || *mc.Items[1].PeriodEnd != "2026-03-27" ||
		mc.Items[2].PeriodStart != "2026-03-28" || mc.Items[2].DueOn != "2026-04-02" || mc.Items[2].Amount != ils(39900) {
		t.Fatalf("membership charges = %+v", mc.Items)
	}
	if l, _ := ss.ListCharges(ctx, store.ChargeFilter{TraineeIDs: []string{omer.ID}}); l.Total != 4 {
		t.Fatalf("omer's charges = %d, want three of the membership and one of the week that does not renew", l.Total)
	}
}

package billing_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

type subView struct {
	ID           string
	PlanName     string
	Kind         string
	Status       string
	PaymentState string
	Credits      *struct {
		SessionsUsed int
		SessionsLeft *int
		ExpiresOn    *string
	}
}

type billingView struct {
	Summary       string
	TraineeID     string
	Owed, Overdue map[string]json.Number
	Subscriptions []subView
	OpenCharges   []struct {
		ID      string
		DueOn   string
		Amount  json.Number
		Balance json.Number
	}
	Payments []struct {
		ID         string
		Amount     json.Number
		Method     string
		ReversesID *string
	}
}

type payment struct {
	ID         string
	TraineeID  string
	ChargeID   *string
	Amount     json.Number
	Currency   string
	Method     string
	PaidOn     string
	ReversesID *string
}

func subOf(t *testing.T, v billingView, id string) subView {
	t.Helper()
	for _, s := range v.Subscriptions {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no subscription %s in %+v", id, v.Subscriptions)
	return subView{}
}

func billingOf(t *testing.T, e *kit.Env, key, traineeID string) billingView {
	t.Helper()
	var v billingView
	e.OK(200, e.Call(key, "GET", "/trainees/"+traineeID+"/billing", nil)).Into(t, &v)
	return v
}

// A package's whole loop on the lane: sold with its sessions, charged on
// its start, paid in two parts exact to the agora, refunded as a payment
// of its own; its state and credits beside its status.
func TestAPackageIsChargedPaidAndRefunded(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("pack")
		var plan struct {
			ID, Kind  string
			Sessions  *int
			ValidDays *int
		}
		e.OK(201, e.Call(f.Key, "POST", "/products", map[string]any{"name": "Ten sessions", "price": 1200.5, "kind": "package", "sessions": 10, "validDays": 60})).Into(t, &plan)
		if plan.Kind != "package" || *plan.Sessions != 10 || *plan.ValidDays != 60 {
			t.Fatalf("plan = %+v", plan)
		}
		start := kit.AddDays(kit.Today(), -3)
		var sub struct{ ID string }
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/subscription", map[string]any{"productId": "Ten sessions", "startedOn": start})).Into(t, &sub)

		v := billingOf(t, e, f.Key, f.Trainee.ID)
		if v.Owed["ILS"] != "1200.5" || v.Overdue["ILS"] != "1200.5" || len(v.OpenCharges) != 1 || v.OpenCharges[0].DueOn != start {
			t.Fatalf("billing after the sale = %+v", v)
		}
		s := subOf(t, v, sub.ID)
		if s.ID != sub.ID || s.Kind != "package" || s.PaymentState != "overdue" || s.Credits == nil || *s.Credits.SessionsLeft != 10 || *s.Credits.ExpiresOn != kit.AddDays(start, 59) {
			t.Fatalf("the package's line = %+v", s)
		}
		if !strings.Contains(v.Summary, "₪1200.50") || !strings.Contains(v.Summary, "10 of 10 sessions left") {
			t.Errorf("summary %q", v.Summary)
		}

		// The same payment sent twice at once with its Idempotency-Key is one.
		pay := map[string]any{"amount": 500.25, "method": "cash", "note": "receipt 17"}
		var wg sync.WaitGroup
		got := make([]payment, 2)
		for i := range got {
			wg.Go(func() {
				a := e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/payments", pay, "Idempotency-Key", "pay-17")
				for a.Status == 409 && a.Code() == "IDEMPOTENCY_IN_PROGRESS" { // the other is running: its answer follows
					time.Sleep(20 * time.Millisecond)
					a = e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/payments", pay, "Idempotency-Key", "pay-17")
				}
				if a.Status != 201 {
					t.Errorf("payment %d: %d %s", i, a.Status, a.Raw)
					return
				}
				a.Into(t, &got[i])
			})
		}
		wg.Wait()
		if got[0].ID == "" || got[0].ID != got[1].ID || got[0].Amount != "500.25" || got[0].ChargeID == nil || got[0].Method != "cash" {
			t.Fatalf("one payment twice = %+v", got)
		}
		v = billingOf(t, e, f.Key, f.Trainee.ID)
		if v.Owed["ILS"] != "700.25" || len(v.Payments) != 2 { // the fixture's own 100, on her account, and this one
			t.Fatalf("after 500.25 = owed %v, %d payments", v.Owed, len(v.Payments))
		}
		var rest payment
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/payments", map[string]any{"amount": 700.25, "method": "bit", "chargeId": *got[0].ChargeID})).Into(t, &rest)
		v = billingOf(t, e, f.Key, f.Trainee.ID)
		if len(v.Owed) != 0 || subOf(t, v, sub.ID).PaymentState != "paid" || !strings.Contains(v.Summary, "owes nothing") {
			t.Fatalf("paid in full = %+v", v)
		}

		// A refund is a new payment; the one it reverses is unchanged.
		var refund payment
		e.OK(201, e.Call(f.Key, "POST", "/payments/"+rest.ID+"/refund", map[string]any{"amount": 100, "note": "one session less"})).Into(t, &refund)
		if refund.Amount != "-100" || refund.ReversesID == nil || *refund.ReversesID != rest.ID || refund.Method != "bit" {
			t.Fatalf("refund = %+v", refund)
		}
		var all payment
		e.OK(201, e.Call(f.Key, "POST", "/payments/"+rest.ID+"/refund", nil)).Into(t, &all)
		if all.Amount != "-600.25" {
			t.Fatalf("refund of the rest = %+v, want -600.25", all)
		}
		e.Fails(409, "CONFLICT", e.Call(f.Key, "POST", "/payments/"+rest.ID+"/refund", nil))
		e.Refused("amount", e.Call(f.Key, "POST", "/payments/"+got[0].ID+"/refund", map[string]any{"amount": 500.26}))
		v = billingOf(t, e, f.Key, f.Trainee.ID)
		if v.Owed["ILS"] != "700.25" || subOf(t, v, sub.ID).PaymentState != "overdue" || len(v.Payments) != 5 {
			t.Fatalf("after refunds = %+v", v)
		}
		var list struct {
			Summary  string
			Received map[string]json.Number
			Items    []payment
			Total    int
		}
		e.OK(200, e.Call(f.Key, "GET", "/payments?traineeId="+f.Trainee.ID, nil)).Into(t, &list)
		if list.Total != 5 || list.Received["ILS"] != "600.25" || list.Items[0].ID != all.ID {
			t.Fatalf("payments = %+v", list)
		}
		var charges struct{ Total int }
		e.OK(200, e.Call(f.Key, "GET", "/charges?status=overdue", nil)).Into(t, &charges)
		if charges.Total != 1 {
			t.Fatalf("overdue charges = %d", charges.Total)
		}
	})
}

// Bad input gets a sentence naming the field.
func TestBadPlansAndPaymentsAreRefused(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("bad")
		for field, body := range map[string]map[string]any{
			"sessions":  {"name": "P", "kind": "package"},
			"period":    {"name": "P", "kind": "package", "sessions": 5, "period": "week"},
			"validDays": {"name": "M", "kind": "membership", "validDays": 30},
			"kind":      {"name": "O", "kind": "other", "sessions": 3},
		} {
			a := e.Call(f.Key, "POST", "/products", body)
			e.Refused(field, a)
			if !strings.Contains(a.Raw, field) {
				t.Errorf("%v: %s", body, a.Raw)
			}
		}
		e.Refused("sessions", e.Call(f.Key, "PATCH", "/products/"+f.Product.ID, map[string]any{"sessions": 4}))
		var m struct {
			Kind   string
			Period *string
		}
		e.OK(201, e.Call(f.Key, "POST", "/products", map[string]any{"name": "Member", "kind": "membership", "sessions": 2})).Into(t, &m)
		if m.Kind != "membership" || *m.Period != "month" {
			t.Fatalf("a membership without a period = %+v, want month", m)
		}
		pp := "/trainees/" + f.Trainee.ID + "/payments"
		e.Refused("amount", e.Call(f.Key, "POST", pp, map[string]any{"amount": 0, "method": "cash"}))
		e.Refused("amount", e.Call(f.Key, "POST", pp, map[string]any{"amount": 10.001, "method": "cash"}))
		e.Refused("method", e.Call(f.Key, "POST", pp, map[string]any{"amount": 10, "method": "cheque"}))
		e.Refused("paidOn", e.Call(f.Key, "POST", pp, map[string]any{"amount": 10, "method": "cash", "paidOn": kit.AddDays(kit.Today(), 30)}))
		e.Refused("currency", e.Call(f.Key, "POST", pp, map[string]any{"amount": 10, "method": "cash", "currency": "shekel"}))
		e.Refused("from", e.Call(f.Key, "GET", "/payments?from="+kit.Today()+"&to="+kit.AddDays(kit.Today(), -3), nil))
		e.Refused("renewMemberships", e.Call(f.Key, "PATCH", "/billing/settings", map[string]any{}))
		e.Refused("paymentTermsDays", e.Call(f.Key, "PATCH", "/billing/settings", map[string]any{"paymentTermsDays": 400}))
		var set struct {
			RenewMemberships bool
			PaymentTermsDays int
		}
		e.OK(200, e.Call(f.Key, "PATCH", "/billing/settings", map[string]any{"renewMemberships": false, "paymentTermsDays": 7})).Into(t, &set)
		if set.RenewMemberships || set.PaymentTermsDays != 7 {
			t.Fatalf("settings = %+v", set)
		}
	})
}

// Billing is its own scope: a key without it is refused billing's routes
// and sees no billing reason; another studio's ids are not found; a
// trainee reads her own billing, redacted, and no one else's.
func TestBillingScopeTenancyAndTheTraineesOwn(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("scope")
		e.OK(201, e.Call(f.Key, "POST", "/products", map[string]any{"name": "Five", "price": 500, "kind": "package", "sessions": 5}))
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/subscription", map[string]any{"productId": "Five", "startedOn": kit.AddDays(kit.Today(), -5)}))
		var p payment
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/payments", map[string]any{"amount": 100, "method": "card"})).Into(t, &p)

		old := e.KeyWith(f.Studio.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite, auth.ScopeStudioAdmin)
		a := e.Call(old, "GET", "/trainees/"+f.Trainee.ID+"/billing", nil)
		if a.Status != 403 || !strings.Contains(a.Message(), "billing") {
			t.Fatalf("a key without billing: %d %s", a.Status, a.Raw)
		}
		e.Fails(403, "FORBIDDEN", e.Call(old, "POST", "/trainees/"+f.Trainee.ID+"/payments", map[string]any{"amount": 1, "method": "cash"}))
		var triage struct {
			Items []struct {
				TraineeID string
				Reasons   []struct{ Code string }
			}
		}
		codes := func(key string) string {
			e.OK(200, e.Call(key, "GET", "/trainees/needs-attention?limit=200", nil)).Into(t, &triage)
			var out []string
			for _, it := range triage.Items {
				if it.TraineeID == f.Trainee.ID {
					for _, r := range it.Reasons {
						out = append(out, r.Code)
					}
				}
			}
			return strings.Join(out, " ")
		}
		if got := codes(f.Key); !strings.Contains(got, "owes") {
			t.Errorf("reasons with billing: %q, want owes", got)
		}
		if got := codes(old); strings.Contains(got, "owes") {
			t.Errorf("reasons without billing: %q, want no owes", got)
		}

		// A subscription's payment state and credits beside its status, for billing only.
		var subs struct {
			Items []map[string]json.RawMessage
		}
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/subscriptions", nil)).Into(t, &subs)
		seen := false
		for _, it := range subs.Items {
			if string(it["productName"]) == `"Five"` {
				seen = string(it["paymentState"]) == `"overdue"` && string(it["sessionsLeft"]) == "5" && string(it["status"]) == `"live"`
			}
		}
		if !seen {
			t.Errorf("the package's line lacks its state and credits: %+v", subs.Items)
		}
		if a := e.Call(old, "GET", "/trainees/"+f.Trainee.ID+"/subscriptions", nil); a.Status != 200 || strings.Contains(a.Raw, "paymentState") {
			t.Errorf("a key without billing reads the payment state: %s", a.Raw)
		}

		_, other, _ := e.Studio("scope-other", "pro")
		for _, c := range [][2]string{{"GET", "/trainees/" + f.Trainee.ID + "/billing"}, {"POST", "/payments/" + p.ID + "/refund"}, {"POST", "/trainees/" + f.Trainee.ID + "/payments"}} {
			e.Fails(404, "NOT_FOUND", e.Call(other, c[0], c[1], map[string]any{"amount": 1, "method": "cash"}))
		}
		if l := e.Call(other, "GET", "/payments", nil); l.Status != 200 || strings.Contains(l.Raw, p.ID) {
			t.Fatalf("another studio lists %s", l.Raw)
		}

		token := e.TraineeToken(f)
		var own map[string]json.RawMessage
		e.OK(200, e.Call(token, "GET", "/trainees/me/billing", nil)).Into(t, &own)
		if _, ok := own["traineeId"]; ok || !strings.Contains(string(own["summary"]), "You owe") || !strings.Contains(string(own["subscriptions"]), `"credits"`) {
			t.Fatalf("her own billing: %v", own)
		}
		if strings.Contains(string(own["payments"]), p.ID) {
			t.Errorf("her payments keep their ids: %s", own["payments"])
		}
		if a := e.OK(200, e.Call(token, "GET", "/trainees/me/overview", nil)); !strings.Contains(a.Raw, "Five: 5 of 5 sessions left") {
			t.Errorf("her overview shows no credits: %s", a.Raw)
		}
		second := e.SecondTrainee(f)
		e.Fails(404, "NOT_FOUND", e.Call(token, "GET", "/trainees/"+second.Trainee+"/billing", nil))
		e.Fails(403, "FORBIDDEN", e.Call(token, "POST", "/trainees/me/payments", map[string]any{"amount": 1, "method": "cash"}))
	})
}

// "Who owes me" and "whose package ends" are one call each: the triage's
// reason filter.
func TestWhoOwesAndWhosePackageEnds(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("owes")
		k := f.Key
		e.OK(201, e.Call(k, "POST", "/products", map[string]any{"name": "Two", "price": 200, "kind": "package", "sessions": 2, "validDays": 90}))
		e.OK(201, e.Call(k, "POST", "/products", map[string]any{"name": "Weekly", "price": 90, "kind": "membership", "sessions": 1, "period": "week"}))
		newTrainee := func(first, phone string) string {
			var tr struct{ ID string }
			e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": first, "lastName": "Owes", "phone": phone})).Into(t, &tr)
			return tr.ID
		}
		owes, paid, ends := newTrainee("Owen", "050-700-0001"), newTrainee("Paula", "050-700-0002"), newTrainee("Enid", "050-700-0003")
		start := kit.AddDays(kit.Today(), -10)
		for _, id := range []string{owes, paid, ends} {
			e.OK(201, e.Call(k, "POST", "/trainees/"+id+"/subscription", map[string]any{"productId": "Two", "startedOn": start}))
		}
		e.OK(201, e.Call(k, "POST", "/trainees/"+paid+"/payments", map[string]any{"amount": 200, "method": "bank_transfer"}))
		e.OK(201, e.Call(k, "POST", "/trainees/"+ends+"/payments", map[string]any{"amount": 200, "method": "cash"}))
		if _, err := store.UseCredit(context.Background(), st, f.Studio.ID, ends, "apt_ends_1", time.Now()); err != nil {
			t.Fatal(err)
		}
		ask := func(reason string) []string {
			var out struct {
				Items []struct {
					TraineeID string
					Reasons   []struct {
						Code, Message string
					}
				}
				Total int
			}
			e.OK(200, e.Call(k, "GET", "/trainees/needs-attention?reason="+reason, nil)).Into(t, &out)
			var got []string
			for _, it := range out.Items {
				got = append(got, it.TraineeID)
			}
			return got
		}
		if got := ask("owes"); len(got) != 1 || got[0] != owes {
			t.Errorf("who owes: %v, want only %s", got, owes)
		}
		if got := ask("package_ends"); len(got) != 1 || got[0] != ends {
			t.Errorf("whose package ends: %v, want only %s", got, ends)
		}
		if _, err := store.UseCredit(context.Background(), st, f.Studio.ID, ends, "apt_ends_2", time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := ask("no_credits"); len(got) != 1 || got[0] != ends {
			t.Errorf("no credits: %v, want only %s", got, ends)
		}
		var ov struct{ Notes []string }
		a := e.OK(200, e.Call(k, "GET", "/trainees/"+owes+"/overview", nil))
		if !strings.Contains(a.Raw, "2 of 2 sessions left") || !strings.Contains(a.Raw, "Owes ₪200.00") {
			t.Errorf("her overview names no credits or debt: %s", a.Raw)
		}
		_ = ov
	})
}

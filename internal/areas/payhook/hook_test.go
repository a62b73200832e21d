package payhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// world is the lane with the payments webhook's area and, on another
// server on 127.0.0.1, the webhook itself, both on one store.
type world struct {
	t    *testing.T
	e    *kit.Env
	st   store.Store
	hook *httptest.Server
}

func newWorld(t *testing.T, st store.Store, key []byte) *world {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	set := areas.New(areas.Options{PayHook: payhook.Options{SecretKey: key, PublicURL: srv.URL}})
	e := kit.New(t, st, kit.Options{Areas: set.Areas()})
	h, err := payhook.NewHook(payhook.HookOptions{Store: st, SecretKey: key})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle(payhook.Route, h)
	return &world{t: t, e: e, st: st, hook: srv}
}

// studio is a studio on the pro tier with its webhook on: its key, URL
// and signing secret.
type studioHook struct {
	domain.Studio
	key, url, secret string
}

func (w *world) studioWithHook(slug string) studioHook {
	w.t.Helper()
	s, key, _ := w.e.Studio(slug, "pro")
	var on payhook.Turned
	w.e.OK(201, w.e.Call(key, "POST", "/payments-webhook", nil)).Into(w.t, &on)
	if !on.Enabled || on.URL == "" || !strings.HasPrefix(on.SigningSecret, "whsec_") {
		w.t.Fatalf("turned on: %+v", on)
	}
	return studioHook{Studio: s, key: key, url: on.URL, secret: on.SigningSecret}
}

func (w *world) trainee(key, first, phone, email string) domain.Trainee {
	w.t.Helper()
	var tr domain.Trainee
	body := map[string]any{"firstName": first, "lastName": "Payer", "phone": phone}
	if email != "" {
		body["email"] = email
	}
	w.e.OK(201, w.e.Call(key, "POST", "/trainees", body)).Into(w.t, &tr)
	return tr
}

type delivery struct {
	status int
	OK     bool            `json:"ok"`
	Data   payhook.Outcome `json:"data"`
	Error  struct{ Code, Message string }
}

// deliver posts body to url with the Stripe-Signature header sig ("" for none).
func deliver(t *testing.T, url, body, sig string) delivery {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(payhook.SignatureHeader, sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return delivery{}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	d := delivery{status: resp.StatusCode}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Errorf("%d %s", resp.StatusCode, raw)
	}
	return d
}

// signed delivers body signed now under secret.
func signed(t *testing.T, url, secret, body string) delivery {
	t.Helper()
	return deliver(t, url, body, payhook.Sign(secret, time.Now(), []byte(body)))
}

func event(id, typ, object string) string {
	return fmt.Sprintf(`{"id":%q,"object":"event","api_version":"2025-03-31.basil","created":%d,"livemode":false,"type":%q,"data":{"object":%s}}`,
		id, time.Now().Unix(), typ, object)
}

func invoicePaid(eventID, invoiceID, traineeID string, amount int64) string {
	return event(eventID, "invoice.paid", fmt.Sprintf(`{"id":%q,"object":"invoice","amount_paid":%d,"amount_due":%d,"currency":"ils",
		"customer_email":"someone@example.com","metadata":{"perform_trainee_id":%q}}`, invoiceID, amount, amount, traineeID))
}

// eventRow is an event as the lane answers it, its amount a decimal.
type eventRow struct {
	store.PaymentEvent
	Amount json.Number `json:"amount"`
}

func (w *world) events(key, outcome string) []eventRow {
	w.t.Helper()
	var l kit.List[eventRow]
	path := "/payment-events"
	if outcome != "" {
		path += "?outcome=" + outcome
	}
	w.e.OK(200, w.e.Call(key, "GET", path, nil)).Into(w.t, &l)
	return l.Items
}

func testKey() []byte { return secret.NewKey() }

// A signed test event marks an invoice paid: one payment, for the trainee
// the payment link's metadata names; the same event again, or twice at
// once, is that one payment; the invoice's Checkout session records
// nothing more; each taking is audited.
func TestASignedEventMarksAnInvoicePaid(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, testKey())
		a := w.studioWithHook("paid")
		noa := w.trainee(a.key, "Noa", "050-111-2233", "")
		// Her package of ten sessions: one charge of 350, due.
		ctx, ss := context.Background(), st.Studio(a.ID)
		ten, price := 10, money.Money{Minor: 35000, Currency: "ILS"}
		plan := domain.Product{Name: "Ten sessions", Price: &price, Currency: "ILS", Kind: domain.PlanPackage, Sessions: &ten, Active: true}
		if err := ss.CreateProduct(ctx, &plan); err != nil {
			t.Fatal(err)
		}
		today := time.Now().UTC().Format(time.DateOnly)
		if err := ss.CreateSubscription(ctx, &domain.Subscription{TraineeID: noa.ID, ProductID: plan.ID, StartedOn: today, Price: &price, Currency: "ILS", Status: "active"}); err != nil {
			t.Fatal(err)
		}
		charges := func() []domain.Charge {
			l, err := ss.ListCharges(ctx, store.ChargeFilter{TraineeIDs: []string{noa.ID}, Page: store.Page{Limit: 10}})
			if err != nil {
				t.Fatal(err)
			}
			return l.Items
		}
		if c := charges(); len(c) != 1 || c[0].Balance.Minor != 35000 {
			t.Fatalf("her charge before the event: %+v", c)
		}

		body := invoicePaid("evt_paid_1", "in_paid_1", noa.ID, 35000)
		d := signed(t, a.url, a.secret, body)
		if d.status != 200 || d.Data.Outcome != store.PaymentEventRecorded || d.Data.PaymentID == "" {
			t.Fatalf("a signed paid invoice: %d %+v", d.status, d)
		}
		payment := d.Data.PaymentID
		if c := charges(); len(c) != 1 || c[0].Balance.Minor != 0 || c[0].Paid.Minor != 35000 || domain.PaymentState(c, today) != domain.PaymentPaid {
			t.Fatalf("her charge after the event: %+v", c)
		}
		got := w.events(a.key, "")
		if len(got) != 1 || got[0].TraineeID != noa.ID || got[0].Amount != "350" || got[0].Currency != "ILS" || got[0].PaymentID != payment {
			t.Fatalf("the event kept: %+v", got)
		}

		// Replayed: the same payment, nothing new.
		again := signed(t, a.url, a.secret, body)
		if again.status != 200 || !again.Data.Duplicate {
			t.Fatalf("the event replayed: %d %+v", again.status, again)
		}

		// A new event delivered eight times at once: one is taken.
		racing := invoicePaid("evt_paid_2", "in_paid_2", noa.ID, 12000)
		var wg sync.WaitGroup
		var mu sync.Mutex
		taken := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := signed(t, a.url, a.secret, racing)
				if d.status != 200 {
					t.Errorf("a concurrent delivery: %d %+v", d.status, d.Error)
				}
				if !d.Data.Duplicate {
					mu.Lock()
					taken++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if taken != 1 {
			t.Fatalf("eight concurrent deliveries took the event %d times, want 1", taken)
		}

		// The Checkout session that made the first invoice: the same payment.
		checkout := event("evt_cs_1", "checkout.session.completed", fmt.Sprintf(`{"id":"cs_paid_1","object":"checkout.session","mode":"subscription",
			"payment_status":"paid","amount_total":35000,"currency":"ils","invoice":"in_paid_1","client_reference_id":%q}`, noa.ID))
		if d := signed(t, a.url, a.secret, checkout); d.status != 200 || d.Data.Outcome != store.PaymentEventAlreadyRecorded || d.Data.PaymentID != payment {
			t.Fatalf("the invoice's Checkout session: %d %+v (the invoice's payment is %s)", d.status, d.Data, payment)
		}
		recorded := w.events(a.key, store.PaymentEventRecorded)
		if len(recorded) != 2 {
			t.Fatalf("recorded events: %+v", recorded)
		}
		w.assertPayments(a.ID, noa.ID, []int64{12000, 35000})

		w.e.Audit.Flush()
		audit, err := st.ListAudit(context.Background(), a.ID, store.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range audit.Items {
			if ev.Route == payhook.Route && ev.Source == payhook.Source {
				n++
			}
		}
		if n != 3 {
			t.Errorf("%d audit rows of the webhook, want 3 (each event taken)", n)
		}
	})
}

// Deliveries the webhook refuses record nothing: a forged signature, a
// stale one, none, another studio's URL, a URL that is no hook's.
func TestRefusedDeliveriesRecordNothing(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, testKey())
		a, b := w.studioWithHook("refa"), w.studioWithHook("refb")
		noa := w.trainee(a.key, "Noa", "050-111-2244", "")
		body := invoicePaid("evt_ref_1", "in_ref_1", noa.ID, 35000)
		now := time.Now()

		cases := []struct {
			name, url, sig string
			status         int
			says           string
		}{
			{"forged: signed under another secret", a.url, payhook.Sign("whsec_forged_forged_forged", now, []byte(body)), 400, "no v1 signature"},
			{"signed ten minutes ago", a.url, payhook.Sign(a.secret, now.Add(-10*time.Minute), []byte(body)), 400, "300 seconds"},
			{"no Stripe-Signature", a.url, "", 400, "no Stripe-Signature"},
			{"a malformed Stripe-Signature", a.url, "v1=abc", 400, "not t=<unix seconds>"},
			{"studio A's event at studio B's URL", b.url, payhook.Sign(a.secret, now, []byte(body)), 400, "no v1 signature"},
			{"a token that is no hook's", w.hook.URL + "/v1/hooks/payments/pwh_" + strings.Repeat("a", 32), payhook.Sign(a.secret, now, []byte(body)), 404, "No payments webhook"},
			{"a path that is no token", w.hook.URL + "/v1/hooks/payments/nope", payhook.Sign(a.secret, now, []byte(body)), 404, "No payments webhook"},
		}
		for _, tc := range cases {
			d := deliver(t, tc.url, body, tc.sig)
			if d.status != tc.status || d.OK || !strings.Contains(d.Error.Message, tc.says) {
				t.Errorf("%s: %d %+v, want %d saying %q", tc.name, d.status, d.Error, tc.status, tc.says)
			}
		}
		// Over 1 MiB.
		huge := `{"id":"evt_huge","pad":"` + strings.Repeat("a", 1<<20) + `"}`
		if d := signed(t, a.url, a.secret, huge); d.status != 413 {
			t.Errorf("a body over 1 MiB: %d %+v", d.status, d.Error)
		}
		// Signed, but not an event.
		if d := signed(t, a.url, a.secret, `{"hello":1}`); d.status != 400 || d.Error.Code != lane.CodeValidation {
			t.Errorf("a signed body that is no event: %d %+v", d.status, d.Error)
		}
		for _, s := range []studioHook{a, b} {
			if got := w.events(s.key, ""); len(got) != 0 {
				t.Errorf("studio %s kept events of refused deliveries: %+v", s.Slug, got)
			}
		}
		w.assertPayments(a.ID, noa.ID, nil)
		// And the one delivery that is right is taken.
		if d := signed(t, a.url, a.secret, body); d.status != 200 || d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("the right delivery after the refused ones: %d %+v", d.status, d)
		}
	})
}

// A payment no trainee's metadata, phone or email matches waits for the
// coach, who matches it; phone and email match when they are one
// trainee's. Another studio neither sees nor matches it.
func TestUnmatchedEventsWaitForTheCoach(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, testKey())
		a, b := w.studioWithHook("unma"), w.studioWithHook("unmb")
		dana := w.trainee(a.key, "Dana", "050-765-4321", "dana@example.com")
		omer := w.trainee(a.key, "Omer", "052-333-4444", "omer@example.com")
		bOnly := w.trainee(b.key, "Gal", "053-111-0000", "gal@example.com")

		byPhone := event("evt_phone", "checkout.session.completed", `{"id":"cs_phone","payment_status":"paid","amount_total":20000,"currency":"ils",
			"payment_intent":"pi_phone","customer_details":{"email":"other@example.com","phone":"+972 50 765 4321","name":"D. L."}}`)
		if d := signed(t, a.url, a.secret, byPhone); d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("matched by phone: %+v", d)
		}
		byEmail := event("evt_email", "invoice.paid", `{"id":"in_email","amount_paid":15000,"currency":"ils","customer_email":"OMER@example.com"}`)
		if d := signed(t, a.url, a.secret, byEmail); d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("matched by email: %+v", d)
		}
		// B's trainee's id in A's payment link matches no one of A.
		stranger := invoicePaid("evt_stranger", "in_stranger", bOnly.ID, 9900)
		d := signed(t, a.url, a.secret, stranger)
		if d.status != 200 || d.Data.Outcome != store.PaymentEventUnmatched || d.Data.PaymentID != "" {
			t.Fatalf("a payment of no trainee: %d %+v", d.status, d.Data)
		}
		w.assertPayments(a.ID, dana.ID, []int64{20000})
		w.assertPayments(a.ID, omer.ID, []int64{15000})

		waiting := w.events(a.key, store.PaymentEventUnmatched)
		if len(waiting) != 1 || waiting[0].EventID != "evt_stranger" || waiting[0].Payer != "someone@example.com" || waiting[0].Amount != "99" {
			t.Fatalf("the events waiting: %+v", waiting)
		}
		var status payhook.Status
		w.e.OK(200, w.e.Call(a.key, "GET", "/payments-webhook", nil)).Into(t, &status)
		if status.Unmatched != 1 || !status.Enabled {
			t.Errorf("status: %+v", status)
		}
		id := waiting[0].ID
		if got := w.events(b.key, ""); len(got) != 0 {
			t.Errorf("B sees A's events: %+v", got)
		}
		w.e.Fails(404, lane.CodeNotFound, w.e.Call(b.key, "POST", "/payment-events/"+id+"/match", map[string]any{"traineeId": bOnly.ID}))
		w.e.Fails(404, lane.CodeNotFound, w.e.Call(a.key, "POST", "/payment-events/"+id+"/match", map[string]any{"traineeId": bOnly.ID}))

		// As a dry run: what it would record, and nothing recorded.
		w.e.OK(200, w.e.Call(a.key, "POST", "/payment-events/"+id+"/match", map[string]any{"traineeId": omer.ID}, lane.PreferHeader, "dry-run"))
		w.assertPayments(a.ID, omer.ID, []int64{15000})
		if got := w.events(a.key, store.PaymentEventUnmatched); len(got) != 1 {
			t.Fatalf("a dry run matched the event: %+v", got)
		}
		var matched eventRow
		w.e.OK(200, w.e.Call(a.key, "POST", "/payment-events/"+id+"/match", map[string]any{"traineeId": omer.ID})).Into(t, &matched)
		if matched.Outcome != store.PaymentEventRecorded || matched.TraineeID != omer.ID || matched.PaymentID == "" {
			t.Fatalf("matched: %+v", matched)
		}
		w.assertPayments(a.ID, omer.ID, []int64{9900, 15000})
		w.e.Fails(409, lane.CodeConflict, w.e.Call(a.key, "POST", "/payment-events/"+id+"/match", map[string]any{"traineeId": dana.ID}))
		if got := w.events(a.key, store.PaymentEventUnmatched); len(got) != 0 {
			t.Errorf("still waiting: %+v", got)
		}
	})
}

// A refund records what it adds of the charge's refunds, against the
// payment it refunds and for its trainee; a failed invoice records only
// the event.
func TestRefundsAndFailedInvoices(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, testKey())
		a := w.studioWithHook("refund")
		noa := w.trainee(a.key, "Noa", "050-222-3344", "")
		paid := event("evt_pi", "checkout.session.completed", fmt.Sprintf(`{"id":"cs_r","payment_status":"paid","amount_total":40000,"currency":"ils",
			"payment_intent":"pi_r","metadata":{"perform_trainee_id":%q}}`, noa.ID))
		p := signed(t, a.url, a.secret, paid)
		if p.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("paid: %+v", p)
		}
		refund := func(eventID string, refunded int64) delivery {
			return signed(t, a.url, a.secret, event(eventID, "charge.refunded", fmt.Sprintf(
				`{"id":"ch_r","amount":40000,"amount_refunded":%d,"currency":"ils","payment_intent":"pi_r","billing_details":{"email":"elsewhere@example.com"}}`, refunded)))
		}
		if d := refund("evt_refund_1", 10000); d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("a first refund: %+v", d)
		}
		if d := refund("evt_refund_1", 10000); !d.Data.Duplicate {
			t.Fatalf("the refund again: %+v", d)
		}
		if d := refund("evt_refund_2", 25000); d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("a second refund: %+v", d)
		}
		w.assertPayments(a.ID, noa.ID, []int64{-15000, -10000, 40000})
		for _, e := range w.events(a.key, store.PaymentEventRecorded) {
			if e.Type == "charge.refunded" && (e.Reverses != p.Data.PaymentID || e.TraineeID != noa.ID) {
				t.Errorf("a refund that does not reverse the payment %s of Noa: %+v", p.Data.PaymentID, e)
			}
		}

		failed := event("evt_failed", "invoice.payment_failed", fmt.Sprintf(`{"id":"in_failed","amount_paid":0,"amount_due":30000,"currency":"ils",
			"metadata":{"perform_trainee_id":%q}}`, noa.ID))
		if d := signed(t, a.url, a.secret, failed); d.status != 200 || d.Data.Outcome != store.PaymentEventFailed || d.Data.PaymentID != "" {
			t.Fatalf("a failed invoice: %d %+v", d.status, d.Data)
		}
		if got := w.events(a.key, store.PaymentEventFailed); len(got) != 1 || got[0].TraineeID != noa.ID {
			t.Errorf("the failed invoice's event: %+v", got)
		}
		w.assertPayments(a.ID, noa.ID, []int64{-15000, -10000, 40000})
		// She needs her coach: the failure is a reason on the roster (and
		// so in the morning digest), until a payment comes in.
		if r := w.failedReason(a.key, noa.ID); r == nil || r.Numbers["amount"] != 300.0 || !strings.Contains(r.Message, "₪300.00 failed at Stripe on ") {
			t.Fatalf("her reason: %+v", r)
		}
		if d := signed(t, a.url, a.secret, invoicePaid("evt_after", "in_failed", noa.ID, 30000)); d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("the invoice paid after all: %+v", d)
		}
		if r := w.failedReason(a.key, noa.ID); r != nil {
			t.Errorf("the reason stays after she paid: %+v", r)
		}
	})
}

// The webhook is turned on only with PERFORM_SECRET_KEY, by a key with
// studio:admin; its URL and secret are answered once; a rotation makes the
// old URL (or secret) stop at once; turned off, its URL answers 404.
func TestTurnOnRotateTurnOff(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		none := newWorld(t, st, nil)
		_, key, _ := none.e.Studio("nokey", "pro")
		a := none.e.Fails(409, lane.CodeConflict, none.e.Call(key, "POST", "/payments-webhook", nil))
		if !strings.Contains(a.Message(), "PERFORM_SECRET_KEY") {
			t.Errorf("without a secret key: %s", a.Message())
		}
		var off payhook.Status
		none.e.OK(200, none.e.Call(key, "GET", "/payments-webhook", nil)).Into(t, &off)
		if off.Enabled || off.CanEnable {
			t.Errorf("status without a key: %+v", off)
		}

		w := newWorld(t, st, testKey())
		s := w.studioWithHook("turn")
		noa := w.trainee(s.key, "Noa", "050-999-1122", "")
		// A key without studio:admin reads the status, and changes nothing.
		plain := auth.NewKey()
		if err := st.CreateAPIKey(context.Background(), &domain.APIKey{ID: ids.New(ids.APIKey), StudioID: s.ID, Name: "plain", Prefix: auth.Display(plain),
			Hash: auth.Hash(plain), Scopes: []string{auth.ScopeStudioRead, auth.ScopeStudioWrite}}); err != nil {
			t.Fatal(err)
		}
		w.e.OK(200, w.e.Call(plain, "GET", "/payments-webhook", nil))
		w.e.Fails(403, lane.CodeForbidden, w.e.Call(plain, "POST", "/payments-webhook/rotate", nil))
		w.e.Fails(403, lane.CodeForbidden, w.e.Call(plain, "DELETE", "/payments-webhook", nil))
		w.e.Fails(403, lane.CodeForbidden, w.e.Call(plain, "GET", "/payment-events", nil)) // what trainees paid needs billing
		w.e.Fails(409, lane.CodeConflict, w.e.Call(s.key, "POST", "/payments-webhook", nil))
		var st1 payhook.Status
		w.e.OK(200, w.e.Call(s.key, "GET", "/payments-webhook", nil)).Into(t, &st1)
		raw := w.e.Call(s.key, "GET", "/payments-webhook", nil).Raw
		if !st1.Enabled || st1.Processor != "stripe" || !strings.HasPrefix(s.url, strings.TrimSuffix(st1.URLHint, "…")) || strings.Contains(raw, s.secret) || strings.Contains(raw, s.url) {
			t.Errorf("the status shows more or less than it should: %s (url %s)", raw, s.url)
		}
		w.e.Refused("signingSecret", w.e.Call(s.key, "POST", "/payments-webhook/rotate", map[string]any{"signingSecret": "short"}))

		var rot payhook.Turned
		w.e.OK(200, w.e.Call(s.key, "POST", "/payments-webhook/rotate", nil)).Into(t, &rot)
		if rot.URL == s.url || rot.SigningSecret == s.secret || rot.URL == "" || rot.SigningSecret == "" {
			t.Fatalf("a rotation: %+v", rot)
		}
		body := invoicePaid("evt_rot_1", "in_rot_1", noa.ID, 1000)
		if d := signed(t, s.url, s.secret, body); d.status != 404 {
			t.Errorf("the old URL after a rotation: %d", d.status)
		}
		if d := signed(t, rot.URL, s.secret, body); d.status != 400 {
			t.Errorf("the old secret at the new URL: %d", d.status)
		}
		if d := signed(t, rot.URL, rot.SigningSecret, body); d.status != 200 {
			t.Errorf("the new URL and secret: %d %+v", d.status, d.Error)
		}

		// The processor's own secret, rolled there: the URL stays.
		const given = "whsec_from_the_processor_0123456789"
		var kept payhook.Turned
		w.e.OK(200, w.e.Call(s.key, "POST", "/payments-webhook/rotate", map[string]any{"signingSecret": given, "keepUrl": true})).Into(t, &kept)
		if kept.URL != "" || kept.SigningSecret != "" {
			t.Errorf("a rotation keeping the URL with the processor's secret shows: %+v", kept)
		}
		body2 := invoicePaid("evt_rot_2", "in_rot_2", noa.ID, 2000)
		if d := signed(t, rot.URL, given, body2); d.status != 200 {
			t.Errorf("the kept URL with the given secret: %d %+v", d.status, d.Error)
		}
		if d := signed(t, rot.URL, rot.SigningSecret, invoicePaid("evt_rot_3", "in_rot_3", noa.ID, 3000)); d.status != 400 {
			t.Errorf("the replaced secret: %d", d.status)
		}

		// A server with another PERFORM_SECRET_KEY, or none, cannot open the secret.
		for name, key := range map[string][]byte{"another key": testKey(), "no key": nil} {
			other, err := payhook.NewHook(payhook.HookOptions{Store: st, SecretKey: key})
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			mux.Handle(payhook.Route, other)
			srv := httptest.NewServer(mux)
			d := signed(t, srv.URL+strings.TrimPrefix(rot.URL, w.hook.URL), given, invoicePaid("evt_rot_5", "in_rot_5", noa.ID, 5000))
			srv.Close()
			if d.status != 503 || !strings.Contains(d.Error.Message, "PERFORM_SECRET_KEY") {
				t.Errorf("%s: %d %+v", name, d.status, d.Error)
			}
		}

		w.e.OK(200, w.e.Call(s.key, "DELETE", "/payments-webhook", nil))
		if d := signed(t, rot.URL, given, invoicePaid("evt_rot_4", "in_rot_4", noa.ID, 4000)); d.status != 404 {
			t.Errorf("a delivery after turning off: %d", d.status)
		}
		w.e.Fails(409, lane.CodeConflict, w.e.Call(s.key, "DELETE", "/payments-webhook", nil))
		w.e.Fails(409, lane.CodeConflict, w.e.Call(s.key, "POST", "/payments-webhook/rotate", nil))
		if got := w.events(s.key, ""); len(got) != 2 {
			t.Errorf("the events outlive the hook: %d, want 2", len(got))
		}
	})
}

// assertPayments checks the trainee's payments recorded through the
// webhook, by amount, in order.
func (w *world) assertPayments(studioID, traineeID string, want []int64) {
	w.t.Helper()
	got := w.paymentsOf(w.t, studioID, traineeID)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		w.t.Errorf("the trainee's payments: %v, want %v", got, want)
	}
}

// failedReason is the trainee's payment_failed reason on the roster's
// needs-attention, or nil.
func (w *world) failedReason(key, traineeID string) *training.Reason {
	w.t.Helper()
	var l struct{ Items []training.Attention }
	w.e.OK(200, w.e.Call(key, "GET", "/trainees/needs-attention", nil)).Into(w.t, &l)
	for _, a := range l.Items {
		for _, r := range a.Reasons {
			if a.TraineeID == traineeID && r.Code == payhook.ReasonPaymentFailed {
				return &r
			}
		}
	}
	return nil
}

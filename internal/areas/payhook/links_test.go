package payhook_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A plan's payment link goes into the drafted payment reminder with the
// trainee's id, and the Checkout session it opens records her payment:
// the loop from "who owes" to "paid" without a coach matching anything.
func TestAPlansPaymentLinkNamesTheTrainee(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		w := newWorld(t, st, testKey())
		a, b := w.studioWithHook("linka"), w.studioWithHook("linkb")
		var plan, other domain.Product
		w.e.OK(201, w.e.Call(a.key, "POST", "/products", map[string]any{"name": "Monthly", "price": 350, "durationDays": 30})).Into(t, &plan)
		w.e.OK(201, w.e.Call(b.key, "POST", "/products", map[string]any{"name": "B's plan", "price": 100})).Into(t, &other)
		noa := w.trainee(a.key, "Noa", "050-666-7788", "")
		w.e.OK(201, w.e.Call(a.key, "POST", "/trainees/"+noa.ID+"/subscription", map[string]any{"productId": plan.ID}))

		path := "/products/" + plan.ID + "/payment-link"
		for _, bad := range []string{"http://buy.stripe.com/x", "https://", "buy.stripe.com/x", "https://user:pw@buy.stripe.com/x", "https://buy.stripe.com/x y"} {
			w.e.Refused("url", w.e.Call(a.key, "PUT", path, map[string]any{"url": bad}))
		}
		w.e.Fails(404, lane.CodeNotFound, w.e.Call(a.key, "PUT", "/products/"+other.ID+"/payment-link", map[string]any{"url": "https://buy.stripe.com/test_b"}))
		w.e.Fails(404, lane.CodeNotFound, w.e.Call(b.key, "GET", path, nil))
		var link payhook.PaymentLink
		w.e.OK(200, w.e.Call(a.key, "PUT", path, map[string]any{"url": " https://buy.stripe.com/test_abc "})).Into(t, &link)
		if link.URL != "https://buy.stripe.com/test_abc" {
			t.Fatalf("the link set: %+v", link)
		}

		var draft struct{ Text, Link string }
		w.e.OK(200, w.e.Call(a.key, "POST", "/trainees/"+noa.ID+"/message-drafts", map[string]any{"purpose": "payment_due"})).Into(t, &draft)
		want := "https://buy.stripe.com/test_abc?client_reference_id=" + noa.ID
		if !strings.HasSuffix(draft.Text, " "+want) || !strings.Contains(draft.Link, url.QueryEscape(want)) {
			t.Fatalf("the reminder does not carry her link %s: %+v", want, draft)
		}
		var checkIn struct{ Text string }
		w.e.OK(200, w.e.Call(a.key, "POST", "/trainees/"+noa.ID+"/message-drafts", map[string]any{"purpose": "check_in"})).Into(t, &checkIn)
		if strings.Contains(checkIn.Text, "stripe") {
			t.Errorf("a check-in carries the payment link: %q", checkIn.Text)
		}

		// Stripe's Checkout session of that link carries her id back.
		paid := event("evt_link", "checkout.session.completed", fmt.Sprintf(`{"id":"cs_link","payment_status":"paid","amount_total":35000,"currency":"ils",
			"payment_intent":"pi_link","client_reference_id":%q,"customer_details":{"email":"unknown@example.com"}}`, noa.ID))
		if d := signed(t, a.url, a.secret, paid); d.Data.Outcome != store.PaymentEventRecorded {
			t.Fatalf("the link's payment: %+v", d)
		}
		w.assertPayments(a.ID, noa.ID, []int64{35000})

		w.e.OK(200, w.e.Call(a.key, "DELETE", path, nil))
		w.e.Fails(409, lane.CodeConflict, w.e.Call(a.key, "DELETE", path, nil))
		var after payhook.PaymentLink
		w.e.OK(200, w.e.Call(a.key, "GET", path, nil)).Into(t, &after)
		if after.URL != "" || after.ProductID != plan.ID {
			t.Errorf("the link after removing it: %+v", after)
		}
	})
}

func TestPersonalLink(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://buy.stripe.com/test_1":                   "https://buy.stripe.com/test_1?client_reference_id=trn_1",
		"https://buy.stripe.com/test_1?prefilled_email=x": "https://buy.stripe.com/test_1?client_reference_id=trn_1&prefilled_email=x",
		"https://pay.example.com/p/1":                     "https://pay.example.com/p/1",
		"https://notstripe.com/x":                         "https://notstripe.com/x",
	} {
		if got := payhook.PersonalLink(in, "trn_1"); got != want {
			t.Errorf("PersonalLink(%s) = %s, want %s", in, got, want)
		}
	}
}

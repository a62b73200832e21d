package payhook_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas/payhook"
)

// vectorBody was signed by stripe-go v82.5.1 (webhook.GenerateTestSignedPayload)
// under vectorSecret at 1767225600: Perform's check agrees with the official
// library on Stripe's scheme.
const (
	vectorBody   = `{"id":"evt_vector","object":"event","type":"invoice.paid"}`
	vectorSecret = "whsec_test_secret"
	vectorHeader = "t=1767225600,v1=362d58eff1038c93b64f53abce37bcb8c3324da43b512b1af39bc0d581be8fa9"
)

var vectorAt = time.Unix(1767225600, 0)

func TestSignatureAgreesWithStripesLibrary(t *testing.T) {
	t.Parallel()
	if got := payhook.Sign(vectorSecret, vectorAt, []byte(vectorBody)); got != vectorHeader {
		t.Errorf("Sign = %s, stripe-go signs %s", got, vectorHeader)
	}
	if err := payhook.Verify(vectorHeader, []byte(vectorBody), vectorSecret, vectorAt.Add(time.Minute)); err != nil {
		t.Errorf("Verify of stripe-go's signature: %v", err)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	body := []byte(vectorBody)
	other := payhook.Sign("whsec_another_secret", vectorAt, body)
	_, otherV1, _ := strings.Cut(other, ",")
	_, goodV1, _ := strings.Cut(vectorHeader, ",")
	cases := []struct {
		name   string
		header string
		body   string
		now    time.Time
		want   error
	}{
		{"signed now", vectorHeader, vectorBody, vectorAt, nil},
		{"300 s later", vectorHeader, vectorBody, vectorAt.Add(300 * time.Second), nil},
		{"301 s later", vectorHeader, vectorBody, vectorAt.Add(301 * time.Second), payhook.ErrStale},
		{"signed 301 s ahead of now", vectorHeader, vectorBody, vectorAt.Add(-301 * time.Second), payhook.ErrStale},
		{"a secret being rolled: two v1, the second ours", "t=1767225600," + otherV1 + "," + goodV1, vectorBody, vectorAt, nil},
		{"v0 and unknown keys are skipped", "t=1767225600,v0=abc,x=y," + goodV1, vectorBody, vectorAt, nil},
		{"spaces around pairs", " t=1767225600 , " + goodV1 + " ", vectorBody, vectorAt, nil},
		{"another secret's signature", other, vectorBody, vectorAt, payhook.ErrBadSignature},
		{"the body changed", vectorHeader, strings.Replace(vectorBody, "paid", "PAID", 1), vectorAt, payhook.ErrBadSignature},
		{"the time changed", strings.Replace(vectorHeader, "t=1767225600", "t=1767225601", 1), vectorBody, vectorAt, payhook.ErrBadSignature},
		{"no header", "", vectorBody, vectorAt, payhook.ErrNotSigned},
		{"no t", goodV1, vectorBody, vectorAt, payhook.ErrBadHeader},
		{"two t", "t=1767225600,t=1767225600," + goodV1, vectorBody, vectorAt, payhook.ErrBadHeader},
		{"t not a number", "t=12a," + goodV1, vectorBody, vectorAt, payhook.ErrBadHeader},
		{"t negative", "t=-1," + goodV1, vectorBody, vectorAt, payhook.ErrBadHeader},
		{"a pair without =", "t=1767225600,v1", vectorBody, vectorAt, payhook.ErrBadHeader},
		{"only v0", "t=1767225600,v0=" + strings.Repeat("ab", 32), vectorBody, vectorAt, payhook.ErrNoSignature},
		{"v1 not hex", "t=1767225600,v1=zz", vectorBody, vectorAt, payhook.ErrNoSignature},
		{"v1 too short", "t=1767225600,v1=" + strings.Repeat("ab", 16), vectorBody, vectorAt, payhook.ErrNoSignature},
		{"a header of 3 KB", "t=1767225600," + goodV1 + strings.Repeat(",x=y", 800), vectorBody, vectorAt, payhook.ErrBadHeader},
	}
	for _, tc := range cases {
		if err := payhook.Verify(tc.header, []byte(tc.body), vectorSecret, tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: Verify = %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := payhook.Verify(vectorHeader, body, vectorSecret+"x", vectorAt); !errors.Is(err, payhook.ErrBadSignature) {
		t.Errorf("another secret: %v", err)
	}
}

func TestParseStripe(t *testing.T) {
	t.Parallel()
	ev := func(typ, object string) string {
		return `{"id":"evt_1","object":"event","type":"` + typ + `","created":1767225600,"livemode":false,"data":{"object":` + object + `}}`
	}
	cases := []struct {
		name string
		body string
		want payhook.Event
	}{
		{"a paid invoice carrying the trainee in its subscription's metadata", ev("invoice.paid",
			`{"id":"in_1","object":"invoice","amount_paid":35000,"amount_due":35000,"currency":"ils","customer_email":"noa@example.com","customer_name":"Noa",
			"parent":{"subscription_details":{"metadata":{"perform_trainee_id":"trn_x"}}}}`),
			payhook.Event{Kind: payhook.Paid, ObjectID: "in_1", ExternalID: "in_1", Amount: 35000, Currency: "ILS", TraineeID: "trn_x", Email: "noa@example.com", Name: "Noa"}},
		{"a failed invoice", ev("invoice.payment_failed", `{"id":"in_2","amount_paid":0,"amount_due":12000,"currency":"usd","customer_phone":"+972501234567","metadata":{}}`),
			payhook.Event{Kind: payhook.Failed, ObjectID: "in_2", ExternalID: "in_2", Amount: 12000, Currency: "USD", Phone: "+972501234567"}},
		{"a completed Checkout session that made an invoice is recorded by the invoice", ev("checkout.session.completed",
			`{"id":"cs_1","object":"checkout.session","mode":"subscription","payment_status":"paid","amount_total":35000,"currency":"ils","invoice":"in_1",
			"client_reference_id":"trn_y","customer_details":{"email":"a@b.c","phone":"050-123-4567","name":"Dana"}}`),
			payhook.Event{Kind: payhook.Paid, ObjectID: "cs_1", ExternalID: "in_1", Amount: 35000, Currency: "ILS", TraineeID: "trn_y", Email: "a@b.c", Phone: "050-123-4567", Name: "Dana"}},
		{"a one-off Checkout payment is recorded by its payment intent", ev("checkout.session.completed",
			`{"id":"cs_2","payment_status":"paid","amount_total":5000,"currency":"eur","payment_intent":{"id":"pi_2","object":"payment_intent"},"metadata":{"perform_trainee_id":"trn_z"}}`),
			payhook.Event{Kind: payhook.Paid, ObjectID: "cs_2", ExternalID: "pi_2", Amount: 5000, Currency: "EUR", TraineeID: "trn_z"}},
		{"an unpaid Checkout session records nothing", ev("checkout.session.completed", `{"id":"cs_3","payment_status":"unpaid","amount_total":5000,"currency":"ils"}`),
			payhook.Event{Kind: payhook.Ignored, ObjectID: "cs_3", Currency: "ILS", Detail: `the Checkout session's payment_status is "unpaid", not paid`}},
		{"a refund", ev("charge.refunded", `{"id":"ch_1","amount":35000,"amount_refunded":10000,"currency":"ils","payment_intent":"pi_1","invoice":null,
			"billing_details":{"email":null,"phone":null,"name":"Noa"},"receipt_email":"noa@example.com"}`),
			payhook.Event{Kind: payhook.Refunded, ObjectID: "ch_1", ExternalID: "ch_1/refunded/10000", Reverses: []string{"pi_1", "ch_1"}, Amount: 10000, Currency: "ILS", Email: "noa@example.com", Name: "Noa"}},
		{"a type Perform does not map", ev("customer.created", `{"id":"cus_1"}`), payhook.Event{Kind: payhook.Ignored}},
		{"an invoice of nothing", ev("invoice.paid", `{"id":"in_0","amount_paid":0,"currency":"ils"}`),
			payhook.Event{Kind: payhook.Ignored, ObjectID: "in_0", ExternalID: "in_0", Currency: "ILS", Detail: "nothing was paid (an amount of 0)"}},
	}
	for _, tc := range cases {
		got, err := payhook.ParseStripe([]byte(tc.body))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.ID != "evt_1" || got.Processor != "stripe" || got.Livemode || !got.Occurred.Equal(vectorAt) {
			t.Errorf("%s: the event's own fields: %+v", tc.name, got)
		}
		got.ID, got.Processor, got.Occurred, got.Type = "", "", time.Time{}, ""
		if !sameEvent(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}

	bad := []struct{ name, body, says string }{
		{"not JSON", `{"id":`, "not a Stripe event"},
		{"no id", `{"type":"invoice.paid","data":{"object":{}}}`, "no id or type"},
		{"an invoice without an amount", ev("invoice.paid", `{"id":"in_1","currency":"ils"}`), "no amount_paid"},
		{"a negative amount", ev("invoice.paid", `{"id":"in_1","amount_paid":-5,"currency":"ils"}`), "no amount_paid"},
		{"no currency", ev("invoice.paid", `{"id":"in_1","amount_paid":5}`), "three-letter currency"},
		{"an object without an id", ev("charge.refunded", `{"amount_refunded":5,"currency":"ils"}`), "object has no id"},
		{"an object that is a list", ev("invoice.paid", `[1,2]`), "not the object it names"},
		{"an invoice field that is a number", ev("checkout.session.completed", `{"id":"cs","payment_status":"paid","amount_total":1,"currency":"ils","invoice":7}`), "not the object it names"},
	}
	for _, tc := range bad {
		_, err := payhook.ParseStripe([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: err %v, want one saying %q", tc.name, err, tc.says)
		}
	}
}

func sameEvent(a, b payhook.Event) bool {
	if len(a.Reverses) != len(b.Reverses) {
		return false
	}
	for i := range a.Reverses {
		if a.Reverses[i] != b.Reverses[i] {
			return false
		}
	}
	a.Reverses, b.Reverses = nil, nil
	return a.Kind == b.Kind && a.ObjectID == b.ObjectID && a.ExternalID == b.ExternalID && a.Amount == b.Amount && a.Currency == b.Currency &&
		a.TraineeID == b.TraineeID && a.Email == b.Email && a.Phone == b.Phone && a.Name == b.Name && a.Detail == b.Detail
}

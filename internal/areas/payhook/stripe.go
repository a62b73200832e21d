package payhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/money"
)

// Stripe's webhook, as Stripe documents it: the Stripe-Signature header
// carries t=<unix seconds> and one or more v1=<hex HMAC-SHA256 of
// "t.body" under the endpoint's signing secret> (two while a secret is
// rolled), and a delivery whose t is more than 300 s from now is refused
// so a captured delivery cannot be replayed later. Perform checks it
// itself rather than through stripe-go (docs/payments-webhook.md says why).

// SignatureHeader is the header Stripe signs a delivery in.
const SignatureHeader = "Stripe-Signature"

// Tolerance is how far a delivery's signed time may be from now.
const Tolerance = 300 * time.Second

// maxHeader bounds the Stripe-Signature header read; maxSignatures the
// v1 signatures compared.
const (
	maxHeader     = 2048
	maxSignatures = 8
)

// The ways a delivery's signature fails. Each answers 400, with its
// sentence; none records anything.
var (
	ErrNotSigned    = errors.New("the delivery has no Stripe-Signature header; Stripe signs every delivery, so this did not come from Stripe")
	ErrBadHeader    = errors.New("the Stripe-Signature header is not t=<unix seconds>,v1=<hex signature>")
	ErrNoSignature  = errors.New("the Stripe-Signature header carries no v1 signature")
	ErrStale        = errors.New("the Stripe-Signature timestamp is more than 300 seconds from now; a delivery is taken only within 5 minutes of being signed")
	ErrBadSignature = errors.New("no v1 signature of the Stripe-Signature header matches this studio's signing secret")
)

// Signature is a parsed Stripe-Signature header.
type Signature struct {
	At time.Time
	V1 [][]byte
}

// ParseSignature reads a Stripe-Signature header: comma-separated
// key=value pairs, exactly one t (whole seconds), v1 signatures of 32
// bytes in hex; other schemes (v0) and unknown keys are skipped, as Stripe
// asks, and so is a v1 that is not 64 hex digits.
func ParseSignature(h string) (Signature, error) {
	var s Signature
	h = strings.TrimSpace(h)
	switch {
	case h == "":
		return s, ErrNotSigned
	case len(h) > maxHeader:
		return s, ErrBadHeader
	}
	seenT := false
	for part := range strings.SplitSeq(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return s, ErrBadHeader
		}
		switch k {
		case "t":
			if seenT || v == "" || len(v) > 12 || strings.Trim(v, "0123456789") != "" {
				return s, ErrBadHeader
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, ErrBadHeader
			}
			s.At, seenT = time.Unix(n, 0).UTC(), true
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil || len(sig) != sha256.Size || len(s.V1) == maxSignatures {
				continue
			}
			s.V1 = append(s.V1, sig)
		}
	}
	if !seenT {
		return s, ErrBadHeader
	}
	if len(s.V1) == 0 {
		return s, ErrNoSignature
	}
	return s, nil
}

// Verify checks a delivery's body against its Stripe-Signature header
// under secret at now: a signed time within Tolerance, and one v1 equal,
// compared in constant time, to the body's HMAC.
func Verify(header string, body []byte, secret string, now time.Time) error {
	s, err := ParseSignature(header)
	if err != nil {
		return err
	}
	if d := now.Sub(s.At); d > Tolerance || d < -Tolerance {
		return ErrStale
	}
	want := mac(secret, s.At, body)
	ok := 0
	for _, sig := range s.V1 {
		ok |= boolInt(hmac.Equal(sig, want))
	}
	if ok == 0 {
		return ErrBadSignature
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mac(secret string, at time.Time, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(at.Unix(), 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Sign is the Stripe-Signature header Stripe would send with body signed
// under secret at at: for test events.
func Sign(secret string, at time.Time, body []byte) string {
	return "t=" + strconv.FormatInt(at.Unix(), 10) + ",v1=" + hex.EncodeToString(mac(secret, at, body))
}

// stripe reads Stripe's events.
type stripe struct{}

func (stripe) Name() string { return "stripe" }

func (stripe) Verify(h http.Header, body []byte, secret string, now time.Time) error {
	return Verify(h.Get(SignatureHeader), body, secret, now)
}

func (stripe) Parse(body []byte) (Event, error) { return ParseStripe(body) }

// The keys of the metadata a studio's payment link carries: the trainee's
// id ("perform_trainee_id"); a Checkout session's client_reference_id
// counts the same (a payment link takes it as ?client_reference_id=).
const MetadataTraineeKey = "perform_trainee_id"

type stripeEvent struct {
	ID       string `json:"id"`
	Object   string `json:"object"`
	Type     string `json:"type"`
	Created  int64  `json:"created"`
	Livemode bool   `json:"livemode"`
	Data     struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// stripeObject holds the fields Perform reads of the four objects it maps
// (an invoice, a Checkout session, a charge); each sets its own.
type stripeObject struct {
	ID       string            `json:"id"`
	Object   string            `json:"object"`
	Currency string            `json:"currency"`
	Metadata map[string]string `json:"metadata"`
	// invoice
	AmountPaid          *int64 `json:"amount_paid"`
	AmountDue           *int64 `json:"amount_due"`
	CustomerEmail       string `json:"customer_email"`
	CustomerPhone       string `json:"customer_phone"`
	CustomerName        string `json:"customer_name"`
	SubscriptionDetails *struct {
		Metadata map[string]string `json:"metadata"`
	} `json:"subscription_details"`
	Parent *struct {
		SubscriptionDetails *struct {
			Metadata map[string]string `json:"metadata"`
		} `json:"subscription_details"`
	} `json:"parent"`
	// Checkout session
	AmountTotal       *int64 `json:"amount_total"`
	PaymentStatus     string `json:"payment_status"`
	ClientReferenceID string `json:"client_reference_id"`
	CustomerDetails   *struct {
		Email string `json:"email"`
		Phone string `json:"phone"`
		Name  string `json:"name"`
	} `json:"customer_details"`
	Invoice       stripeRef `json:"invoice"`
	PaymentIntent stripeRef `json:"payment_intent"`
	// charge
	AmountRefunded *int64 `json:"amount_refunded"`
	ReceiptEmail   string `json:"receipt_email"`
	BillingDetails *struct {
		Email string `json:"email"`
		Phone string `json:"phone"`
		Name  string `json:"name"`
	} `json:"billing_details"`
}

// stripeRef is a field Stripe sends as an id or, expanded, as the object.
type stripeRef string

func (r *stripeRef) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*r = stripeRef(s)
		return nil
	}
	var o struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New("an id or an object with an id")
	}
	*r = stripeRef(o.ID)
	return nil
}

// maxID bounds every id and text Perform keeps of an event.
const maxID = 255

// ParseStripe reads a Stripe event into the processor-neutral Event:
// invoice.paid and checkout.session.completed (and
// checkout.session.async_payment_succeeded) are payments,
// invoice.payment_failed a failed payment, charge.refunded a refund; any
// other type is Ignored. A body that is not an event, or an event of those
// types whose object lacks what the mapping reads, is an error.
func ParseStripe(body []byte) (Event, error) {
	var ev stripeEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return Event{}, fmt.Errorf("the body is not a Stripe event (JSON with id, type and data.object): %v", err)
	}
	if ev.ID == "" || ev.Type == "" || len(ev.ID) > maxID || len(ev.Type) > 100 {
		return Event{}, errors.New("the Stripe event has no id or type")
	}
	out := Event{Processor: "stripe", ID: ev.ID, Type: ev.Type, Livemode: ev.Livemode, Kind: Ignored}
	if ev.Created > 0 && ev.Created < 1<<40 {
		out.Occurred = time.Unix(ev.Created, 0).UTC()
	}
	switch ev.Type {
	case "invoice.paid", "invoice.payment_failed", "checkout.session.completed", "checkout.session.async_payment_succeeded", "charge.refunded":
	default:
		return out, nil
	}
	var o stripeObject
	if err := json.Unmarshal(ev.Data.Object, &o); err != nil {
		return Event{}, fmt.Errorf("the %s event's data.object is not the object it names: %v", ev.Type, err)
	}
	if o.ID == "" || len(o.ID) > maxID {
		return Event{}, fmt.Errorf("the %s event's object has no id", ev.Type)
	}
	out.ObjectID = o.ID
	cur, ok := money.Code(o.Currency)
	if !ok {
		return Event{}, fmt.Errorf("the %s event's object has no three-letter currency", ev.Type)
	}
	out.Currency = cur
	amount := func(field string, v *int64) (int64, error) {
		if v == nil || *v < 0 || *v > money.MaxMinor {
			return 0, fmt.Errorf("the %s event's object has no %s of 0 or more", ev.Type, field)
		}
		return *v, nil
	}
	var err error
	switch ev.Type {
	case "invoice.paid", "invoice.payment_failed":
		out.Kind, out.ExternalID = Paid, o.ID
		if ev.Type == "invoice.payment_failed" {
			out.Kind = Failed
			out.Amount, err = amount("amount_due", o.AmountDue)
		} else {
			out.Amount, err = amount("amount_paid", o.AmountPaid)
		}
		out.TraineeID = firstOf(o.Metadata[MetadataTraineeKey], subscriptionMeta(o)[MetadataTraineeKey])
		out.Email, out.Phone, out.Name = o.CustomerEmail, o.CustomerPhone, o.CustomerName
	case "checkout.session.completed", "checkout.session.async_payment_succeeded":
		if o.PaymentStatus != "paid" {
			// Unpaid (a delayed method still to settle: its
			// async_payment_succeeded comes later) or free.
			out.Detail = fmt.Sprintf("the Checkout session's payment_status is %q, not paid", clip(o.PaymentStatus, 40))
			return out, nil
		}
		out.Kind = Paid
		// A session that made an invoice is paid by it: invoice.paid
		// records the same payment by the invoice's id, so either event
		// records it once.
		out.ExternalID = firstOf(string(o.Invoice), string(o.PaymentIntent), o.ID)
		out.Amount, err = amount("amount_total", o.AmountTotal)
		out.TraineeID = firstOf(o.ClientReferenceID, o.Metadata[MetadataTraineeKey])
		if d := o.CustomerDetails; d != nil {
			out.Email, out.Phone, out.Name = d.Email, d.Phone, d.Name
		}
	case "charge.refunded":
		out.Kind = Refunded
		out.Amount, err = amount("amount_refunded", o.AmountRefunded)
		// A refund is recorded by the charge and how much of it is
		// refunded in all, so a second partial refund records what it adds.
		out.ExternalID = fmt.Sprintf("%s/refunded/%d", o.ID, out.Amount)
		for _, id := range []string{string(o.Invoice), string(o.PaymentIntent), o.ID} {
			if id != "" {
				out.Reverses = append(out.Reverses, clip(id, maxID))
			}
		}
		out.TraineeID = o.Metadata[MetadataTraineeKey]
		if d := o.BillingDetails; d != nil {
			out.Email, out.Phone, out.Name = d.Email, d.Phone, d.Name
		}
		out.Email = firstOf(out.Email, o.ReceiptEmail)
	}
	if err != nil {
		return Event{}, err
	}
	if out.Amount == 0 && out.Kind == Paid {
		out.Kind, out.Detail = Ignored, "nothing was paid (an amount of 0)"
	}
	out.ExternalID = clip(out.ExternalID, maxID)
	out.TraineeID, out.Email, out.Phone, out.Name = clip(out.TraineeID, 64), clip(out.Email, 200), clip(out.Phone, 40), clip(out.Name, 200)
	return out, nil
}

func subscriptionMeta(o stripeObject) map[string]string {
	if o.SubscriptionDetails != nil && len(o.SubscriptionDetails.Metadata) > 0 {
		return o.SubscriptionDetails.Metadata
	}
	if o.Parent != nil && o.Parent.SubscriptionDetails != nil {
		return o.Parent.SubscriptionDetails.Metadata
	}
	return nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

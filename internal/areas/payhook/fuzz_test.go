package payhook_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/otherwise/perform/internal/areas/payhook"
)

// FuzzParseSignature: any header either parses into one time and 1 to 8
// signatures of 32 bytes, or is refused with one of the parser's errors;
// a header Sign wrote always verifies, and a byte changed in its
// signature never does.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{vectorHeader, "", "t=1,v1=" + hex.EncodeToString(make([]byte, 32)), "t=,v1=", "v1=ab,t=5", "t=1767225600,v0=x,v1=y", ",,,", "t=99999999999999999999"} {
		f.Add(s)
	}
	known := []error{payhook.ErrNotSigned, payhook.ErrBadHeader, payhook.ErrNoSignature}
	f.Fuzz(func(t *testing.T, h string) {
		s, err := payhook.ParseSignature(h)
		if err != nil {
			for _, k := range known {
				if errors.Is(err, k) {
					return
				}
			}
			t.Fatalf("ParseSignature(%q): an error of no known kind: %v", h, err)
		}
		if s.At.IsZero() && h != "" && len(s.V1) == 0 || len(s.V1) == 0 || len(s.V1) > 8 {
			t.Fatalf("ParseSignature(%q) = %+v", h, s)
		}
		for _, v := range s.V1 {
			if len(v) != 32 {
				t.Fatalf("ParseSignature(%q): a signature of %d bytes", h, len(v))
			}
		}
		// Signing the header's text as a body verifies, at its own time.
		body := []byte(h)
		signed := payhook.Sign("whsec_fuzz", s.At, body)
		if err := payhook.Verify(signed, body, "whsec_fuzz", s.At); err != nil {
			t.Fatalf("a header Sign wrote does not verify: %v", err)
		}
		forged := []byte(signed)
		forged[len(forged)-1] ^= 1
		if bytes.Equal(forged, []byte(signed)) || payhook.Verify(string(forged), body, "whsec_fuzz", s.At) == nil {
			t.Fatalf("a forged signature verifies: %s", forged)
		}
	})
}

// FuzzParseStripe: any body is read as an event or refused with a
// sentence; an event read has an id and a kind, an amount of 0 or more
// within the money bounds, an upper-case currency where it records money,
// and text fields within their bounds, valid UTF-8 where the body was.
func FuzzParseStripe(f *testing.F) {
	f.Add([]byte(vectorBody))
	f.Add([]byte(`{"id":"evt_1","type":"invoice.paid","data":{"object":{"id":"in_1","amount_paid":100,"currency":"ils","metadata":{"perform_trainee_id":"trn_1"}}}}`))
	f.Add([]byte(`{"id":"evt_2","type":"charge.refunded","data":{"object":{"id":"ch_1","amount_refunded":100,"currency":"usd","payment_intent":{"id":"pi_1"}}}}`))
	f.Add([]byte(`{"id":"evt_3","type":"checkout.session.completed","data":{"object":{"id":"cs_1","payment_status":"paid","amount_total":1,"currency":"eur","customer_details":{"email":"x@y.z"}}}}`))
	f.Add([]byte(`{"id":"evt_4","type":"invoice.payment_failed","data":{"object":{"id":"in_1","amount_due":1e3,"currency":"ils"}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := payhook.ParseStripe(body)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty refusal")
			}
			return
		}
		if ev.ID == "" || ev.Type == "" || ev.Processor != "stripe" {
			t.Fatalf("an event without its id, type or processor: %+v", ev)
		}
		switch ev.Kind {
		case payhook.Paid, payhook.Failed, payhook.Refunded:
			if ev.Amount < 0 || ev.Amount > 1_000_000_000_000_000 || len(ev.Currency) != 3 || ev.ObjectID == "" || ev.ExternalID == "" {
				t.Fatalf("a money event out of bounds: %+v", ev)
			}
		case payhook.Ignored:
		default:
			t.Fatalf("kind %q", ev.Kind)
		}
		for _, s := range []string{ev.ExternalID, ev.TraineeID, ev.Email, ev.Phone, ev.Name} {
			if len(s) > 255 {
				t.Fatalf("a field of %d bytes kept", len(s))
			}
			if utf8.Valid(body) && !utf8.ValidString(s) {
				t.Fatalf("a field cut inside a character: %q", s)
			}
		}
		if ev.Kind == payhook.Refunded && len(ev.Reverses) == 0 {
			t.Fatalf("a refund reverses nothing: %+v", ev)
		}
		if !ev.Occurred.IsZero() && ev.Occurred.Before(time.Unix(0, 0)) {
			t.Fatalf("occurred %v", ev.Occurred)
		}
	})
}

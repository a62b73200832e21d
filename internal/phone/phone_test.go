package phone

import (
	"strings"
	"testing"
)

func TestNormalizeAcceptsTypedForms(t *testing.T) {
	for _, in := range []string{"050-123-4567", "+972 50 123 4567", "972501234567", "0501234567", " +972-50-123-4567 ", "(050) 123 4567"} {
		got, err := Normalize(in, "IL")
		if err != nil || got != "+972501234567" {
			t.Errorf("Normalize(%q) = %q, %v; want +972501234567", in, got, err)
		}
	}
	if got, err := Normalize("(415) 555-2671", "US"); err != nil || got != "+14155552671" {
		t.Errorf("US number: %q, %v", got, err)
	}
	if got, err := Normalize("+44 20 7946 0958", "IL"); err != nil || got != "+442079460958" {
		t.Errorf("foreign number with plus: %q, %v", got, err)
	}
}

func TestNormalizeRejects(t *testing.T) {
	for _, in := range []string{"", "abc", "12", "+", strings.Repeat("9", 30), "050-12"} {
		if got, err := Normalize(in, "IL"); err == nil {
			t.Errorf("Normalize(%q) = %q, want an error", in, got)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"050-123-4567", "+972 50 123 4567", "972501234567", "", "+1 415 555 2671", "00972501234567", "++--", "٠٥٠١٢٣٤٥٦٧"} {
		f.Add(s, "IL")
	}
	f.Add("4155552671", "US")
	f.Fuzz(func(t *testing.T, in, region string) {
		if !ValidRegion(region) {
			region = "IL"
		}
		got, err := Normalize(in, region)
		if err != nil {
			return
		}
		if !strings.HasPrefix(got, "+") || Digits(got) != got[1:] {
			t.Fatalf("Normalize(%q) = %q: not E.164", in, got)
		}
		// Normalising an E.164 number again is a fixed point.
		again, err := Normalize(got, region)
		if err != nil || again != got {
			t.Fatalf("Normalize(%q) = %q, %v; want the fixed point %q", got, again, err, got)
		}
	})
}

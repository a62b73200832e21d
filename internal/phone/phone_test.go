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
	for _, in := range []string{"", "abc", "12", "+", strings.Repeat("9", 30), "050-12",
		// Only zeros: the library wrote +97200000000 as +9720000000, so a
		// trainee stored from it could not be found by its own phone.
		"000000000", "+97200000000", "+9720000000", "0000000000", "+1 000 000 0000"} {
		if got, err := Normalize(in, "IL"); err == nil {
			t.Errorf("Normalize(%q) = %q, want an error", in, got)
		}
	}
}

// Whatever is typed, its normal form normalises to itself in every region.
func TestNormalizeIsAFixedPoint(t *testing.T) {
	for _, in := range []string{"050-123-4567", "+44 20 7946 0958", "(415) 555-2671", "0501234", "00972501234567", "972 50 123 4567"} {
		for _, region := range []string{"IL", "US", "GB", "DE"} {
			got, err := Normalize(in, region)
			if err != nil {
				continue
			}
			for _, again := range []string{"IL", "US", "GB", "DE"} {
				if n, err := Normalize(got, again); err != nil || n != got {
					t.Errorf("Normalize(%q, %s) = %q; normalised again in %s: %q, %v", in, region, got, again, n, err)
				}
			}
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"+97200000000", "000000000", "050-123-4567", "+972 50 123 4567", "972501234567", "", "+1 415 555 2671", "00972501234567", "++--", "٠٥٠١٢٣٤٥٦٧"} {
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
		// Normalising an E.164 number again is a fixed point, in any region.
		for _, r := range []string{region, "IL", "US"} {
			again, err := Normalize(got, r)
			if err != nil || again != got {
				t.Fatalf("Normalize(%q) = %q; Normalize(%q, %s) = %q, %v; want the fixed point", in, got, got, r, again, err)
			}
		}
	})
}

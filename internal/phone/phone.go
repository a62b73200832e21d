// Package phone normalises the phone numbers people type into E.164.
package phone

import (
	"errors"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// DefaultRegion is the region assumed for a number typed without a country
// code when a studio has not set one.
const DefaultRegion = "IL"

// ErrInvalid is returned for input that is not a possible phone number.
var ErrInvalid = errors.New("not a valid phone number")

// Normalize returns the E.164 form of raw ("+972501234567"). It accepts the
// forms people type: national ("050-123-4567"), international with spaces
// ("+972 50 123 4567") and international without the plus ("972501234567").
// Normalising its answer again gives the same answer, in any region.
func Normalize(raw, region string) (string, error) {
	n, err := normalize(raw, region)
	if err != nil {
		return "", err
	}
	// The answer must be an answer too ("008100100000000AAA" read as
	// +8100100000000222 has more digits than E.164 allows): what is stored
	// must find itself.
	if again, err := normalize(n, region); err != nil || again != n {
		return "", ErrInvalid
	}
	return n, nil
}

func normalize(raw, region string) (string, error) {
	if region == "" {
		region = DefaultRegion
	}
	s := strings.TrimSpace(raw)
	if s == "" || len(s) > 40 {
		return "", ErrInvalid
	}
	digits := Digits(s)
	if len(digits) < 6 || len(digits) > 15 {
		return "", ErrInvalid
	}
	if n, err := parse(s, region); err == nil {
		return n, nil
	}
	// "972501234567": digits that already start with a country code.
	if !strings.HasPrefix(s, "+") && !strings.HasPrefix(digits, "0") {
		if n, err := parse("+"+digits, region); err == nil {
			return n, nil
		}
	}
	return "", ErrInvalid
}

// parse reads s as a number of region and answers its E.164 form, only
// when that form reads back as itself: a number the library would write one
// way and read another (a national number of only zeros, leading zeros it
// counts differently) is no number anyone can dial, and keeping it would
// break the fixed point Normalize promises: a stored phone must find its
// trainee, and the duplicate check must see it.
func parse(s, region string) (string, error) {
	num, err := phonenumbers.Parse(s, region)
	if err != nil {
		return "", err
	}
	if !phonenumbers.IsPossibleNumber(num) || num.GetNationalNumber() == 0 {
		return "", ErrInvalid
	}
	e164 := phonenumbers.Format(num, phonenumbers.E164)
	back, err := phonenumbers.Parse(e164, "")
	if err != nil || !phonenumbers.IsPossibleNumber(back) || phonenumbers.Format(back, phonenumbers.E164) != e164 {
		return "", ErrInvalid
	}
	return e164, nil
}

// Digits returns only the ASCII digits of s.
func Digits(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ValidRegion reports whether region is a region code the library knows.
func ValidRegion(region string) bool {
	return phonenumbers.GetCountryCodeForRegion(strings.ToUpper(region)) != 0
}

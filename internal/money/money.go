// Package money holds amounts exactly: whole minor units of an ISO 4217
// currency (agorot of a shekel, cents of a dollar), never a float.
//
// People and models speak in major units ("350", "349.90"); Parse reads
// such a decimal exactly and refuses more decimals than the currency has,
// and Decimal writes one back (349.9, not 349.90000001).
package money

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Default is the currency of a studio that names none: the Israeli shekel.
const Default = "ILS"

// Money is an amount in minor units of Currency (upper-case ISO 4217).
type Money struct {
	Minor    int64
	Currency string
}

// zeroDigits and threeDigits are the ISO 4217 currencies whose minor unit is
// not a hundredth; every other code has two decimals.
var (
	zeroDigits  = set("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF")
	threeDigits = set("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND")
)

func set(codes ...string) map[string]bool {
	m := make(map[string]bool, len(codes))
	for _, c := range codes {
		m[c] = true
	}
	return m
}

// Digits is how many decimals the currency's minor unit has: 2 for ILS,
// USD and EUR, 0 for JPY, 3 for KWD.
func Digits(currency string) int {
	switch c := strings.ToUpper(currency); {
	case zeroDigits[c]:
		return 0
	case threeDigits[c]:
		return 3
	default:
		return 2
	}
}

// MaxMinor bounds an amount: 10^15 minor units, well inside int64 and
// exactly representable as a float64 major amount.
const MaxMinor int64 = 1_000_000_000_000_000

// Parse reads a decimal amount in major units of currency ("349.90", "350",
// "0.5", or as JSON may write a number, "3.4990e2") exactly. It refuses a
// sign, more decimals than the currency has and amounts beyond MaxMinor. Its error is a predicate that
// reads after a field's name: "price has 3 decimals but ILS has 2: …".
func Parse(s, currency string) (Money, error) {
	currency = strings.ToUpper(currency)
	digits := Digits(currency)
	s = plain(s)
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || (dot && frac == "") {
		return Money{}, fmt.Errorf("must be an amount written with digits and at most one decimal point, such as 349.90; got %q", short(s))
	}
	// Trailing zeros are no precision: 350.000 ILS is 350 ILS.
	frac = strings.TrimRight(frac, "0")
	if len(frac) > digits {
		if digits == 0 {
			return Money{}, fmt.Errorf("has decimals but %s has none: send a whole number, such as %s", currency, whole)
		}
		return Money{}, fmt.Errorf("has %d decimals but %s has %d: send at most %d, such as %s.%s", len(frac), currency, digits, digits, whole, frac[:digits])
	}
	whole = strings.TrimLeft(whole, "0")
	frac += strings.Repeat("0", digits-len(frac))
	n, err := strconv.ParseInt("0"+whole+frac, 10, 64)
	if len(whole) > 16 || err != nil || n > MaxMinor {
		return Money{}, fmt.Errorf("is too large an amount: %s", short(s))
	}
	return Money{Minor: n, Currency: currency}, nil
}

// ParseJSON reads an amount from a JSON number or a JSON string holding
// one; null is no amount (nil).
func ParseJSON(raw json.RawMessage, currency string) (*Money, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal([]byte(s), &s); err != nil {
			return nil, fmt.Errorf("must be an amount, a JSON number or a string such as \"349.90\"")
		}
		s = strings.TrimSpace(s)
	}
	m, err := Parse(s, currency)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// plain writes a number with an exponent ("3.499e2") as a plain decimal
// ("349.9"); anything else, or an exponent beyond ±40, is returned as it is
// (and refused by Parse).
func plain(s string) string {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s
	}
	exp, err := strconv.Atoi(s[i+1:])
	whole, frac, dot := strings.Cut(s[:i], ".")
	if err != nil || exp < -40 || exp > 40 || whole == "" || !allDigits(whole) || !allDigits(frac) || (dot && frac == "") {
		return s
	}
	digits, point := whole+frac, len(whole)+exp
	if point <= 0 {
		return "0." + strings.Repeat("0", -point) + digits
	}
	if point >= len(digits) {
		return digits + strings.Repeat("0", point-len(digits))
	}
	return digits[:point] + "." + digits[point:]
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Decimal is the amount in major units, with no more decimals than it
// needs: "349.9", "350", "0.05".
func (m Money) Decimal() string {
	d := Digits(m.Currency)
	neg, n := "", m.Minor
	if n < 0 {
		neg, n = "-", -n
	}
	s := strconv.FormatInt(n, 10)
	if d == 0 {
		return neg + s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	whole, frac := s[:len(s)-d], strings.TrimRight(s[len(s)-d:], "0")
	if frac == "" {
		return neg + whole
	}
	return neg + whole + "." + frac
}

// Major is the amount in major units as a float, for arithmetic that is
// not money's own (a chart, a sum shown rounded).
func (m Money) Major() float64 {
	return float64(m.Minor) / math.Pow10(Digits(m.Currency))
}

// MarshalJSON writes the amount as a JSON number in major units, exactly.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.Decimal()), nil }

// In is the same amount in another currency's minor units (the currency of
// a plan changed, its price kept), refused when the amount has more
// decimals than that currency.
func (m Money) In(currency string) (Money, error) {
	return Parse(m.Decimal(), currency)
}

var symbols = map[string]string{"ILS": "₪", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}

// String is the amount for people, every decimal of the currency shown:
// "₪349.90", "$12.00", "¥500", "349.90 CHF".
func (m Money) String() string {
	d := Digits(m.Currency)
	n := m.Minor
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	s := strconv.FormatInt(n, 10)
	if d > 0 {
		if len(s) <= d {
			s = strings.Repeat("0", d-len(s)+1) + s
		}
		s = s[:len(s)-d] + "." + s[len(s)-d:]
	}
	if sym, ok := symbols[m.Currency]; ok {
		return neg + sym + s
	}
	return neg + s + " " + m.Currency
}

// Code is currency as an ISO 4217 code, upper case, when it is three
// letters; "ils" is ILS.
func Code(currency string) (string, bool) {
	c := strings.ToUpper(strings.TrimSpace(currency))
	if len(c) != 3 {
		return "", false
	}
	for i := range 3 {
		if c[i] < 'A' || c[i] > 'Z' {
			return "", false
		}
	}
	return c, true
}

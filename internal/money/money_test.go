package money

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, cur string
		minor   int64
		err     string // a piece of the sentence; "" for none
	}{
		{"349.90", "ILS", 34990, ""},
		{"349.9", "ILS", 34990, ""},
		{"349.99", "ils", 34999, ""},
		{"120", "ILS", 12000, ""},
		{"0.05", "USD", 5, ""},
		{"350.000", "EUR", 35000, ""},
		{"007.5", "ILS", 750, ""},
		{"500", "JPY", 500, ""},
		{"1.234", "KWD", 1234, ""},
		{"0", "ILS", 0, ""},
		{"349.999", "ILS", 0, "has 3 decimals but ILS has 2: send at most 2, such as 349.99"},
		{"500.5", "JPY", 0, "has decimals but JPY has none"},
		{"1.2345", "KWD", 0, "KWD has 3"},
		{"-5", "ILS", 0, "must be an amount"},
		{"3.5e2", "ILS", 35000, ""},
		{"3.4999E+2", "ILS", 34999, ""},
		{"12e-2", "USD", 12, ""},
		{"1e-7", "ILS", 0, "has 7 decimals but ILS has 2"},
		{"1e400", "ILS", 0, "must be an amount"},
		{"e5", "ILS", 0, "must be an amount"},
		{"12.", "ILS", 0, "must be an amount"},
		{".5", "ILS", 0, "must be an amount"},
		{"", "ILS", 0, "must be an amount"},
		{"1,000", "ILS", 0, "must be an amount"},
		{"99999999999999999999", "ILS", 0, "too large"},
		{"10000000000000.01", "ILS", 0, "too large"},
	} {
		got, err := Parse(c.in, c.cur)
		if c.err == "" {
			if err != nil || got.Minor != c.minor || got.Currency != strings.ToUpper(c.cur) {
				t.Errorf("Parse(%q, %s) = %+v, %v; want %d", c.in, c.cur, got, err, c.minor)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Parse(%q, %s) error = %v; want it to say %q", c.in, c.cur, err, c.err)
		}
	}
}

func TestParseJSON(t *testing.T) {
	for raw, want := range map[string]int64{`349.9`: 34990, `"349.90"`: 34990, ` " 120 " `: 12000} {
		m, err := ParseJSON(json.RawMessage(raw), "ILS")
		if err != nil || m == nil || m.Minor != want {
			t.Errorf("ParseJSON(%s) = %v, %v; want %d", raw, m, err, want)
		}
	}
	if m, err := ParseJSON(json.RawMessage(`null`), "ILS"); m != nil || err != nil {
		t.Errorf("ParseJSON(null) = %v, %v; want nil", m, err)
	}
	if _, err := ParseJSON(json.RawMessage(`true`), "ILS"); err == nil {
		t.Error("ParseJSON(true) took a boolean for an amount")
	}
}

func TestDecimalAndString(t *testing.T) {
	for _, c := range []struct {
		m             Money
		decimal, text string
	}{
		{Money{34990, "ILS"}, "349.9", "₪349.90"},
		{Money{35000, "ILS"}, "350", "₪350.00"},
		{Money{5, "USD"}, "0.05", "$0.05"},
		{Money{500, "JPY"}, "500", "¥500"},
		{Money{1234, "KWD"}, "1.234", "1.234 KWD"},
		{Money{-150, "EUR"}, "-1.5", "-€1.50"},
		{Money{0, "ILS"}, "0", "₪0.00"},
	} {
		if got := c.m.Decimal(); got != c.decimal {
			t.Errorf("%+v.Decimal() = %q, want %q", c.m, got, c.decimal)
		}
		if got := c.m.String(); got != c.text {
			t.Errorf("%+v.String() = %q, want %q", c.m, got, c.text)
		}
	}
	b, err := json.Marshal(struct {
		Price *Money `json:"price"`
	}{&Money{34990, "ILS"}})
	if err != nil || string(b) != `{"price":349.9}` {
		t.Errorf("marshal = %s, %v", b, err)
	}
}

func TestIn(t *testing.T) {
	if m, err := (Money{35000, "ILS"}).In("JPY"); err != nil || m != (Money{350, "JPY"}) {
		t.Errorf("350 ILS in JPY = %+v, %v", m, err)
	}
	if _, err := (Money{35050, "ILS"}).In("JPY"); err == nil {
		t.Error("350.50 ILS became a whole number of yen")
	}
}

// Whatever the text, Parse either refuses it or reads an amount that
// writes back to the same decimal and parses again to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"349.90", "0", "120", "349.999", "1e3", "-1", "00.10", "999999999999999999999", "."} {
		f.Add(s, "ILS")
		f.Add(s, "JPY")
		f.Add(s, "KWD")
	}
	f.Fuzz(func(t *testing.T, s, cur string) {
		m, err := Parse(s, cur)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "must ") && !strings.HasPrefix(err.Error(), "has ") && !strings.HasPrefix(err.Error(), "is ") {
				t.Fatalf("Parse(%q) error %q does not read after a field's name", s, err)
			}
			return
		}
		if m.Minor < 0 || m.Minor > MaxMinor {
			t.Fatalf("Parse(%q) = %d, out of bounds", s, m.Minor)
		}
		back, err := Parse(m.Decimal(), cur)
		if err != nil || back != m {
			t.Fatalf("Parse(%q) = %+v; its decimal %q parses to %+v, %v", s, m, m.Decimal(), back, err)
		}
		if m.Currency == "ILS" && !strings.HasPrefix(m.String(), "₪") {
			t.Fatalf("%+v.String() = %q", m, m.String())
		}
	})
}

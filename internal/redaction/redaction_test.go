package redaction

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"call me on 050-123-4567 after 6", "call me on [REDACTED] after 6"},
		{"+972 50 123 4567", "[REDACTED]"},
		{"(03) 555-1234 or 0541234567.", "[REDACTED] or [REDACTED]."},
		{"mail dana.levi+fit@studio.example.co.il now", "mail [REDACTED] now"},
		{"id 123456789", "id [REDACTED]"},
		{"on 2026-07-01 050-123-4567 called", "on 2026-07-01 [REDACTED] called"},
		{"sets 5 5 5 050 123 4567", "sets 5 5 5 [REDACTED]"},
		{"0501234567 0521234567", "[REDACTED] [REDACTED]"},
		// Not phones: dates, times, sets, weights, durations, ids.
		{"2026-07-01", "2026-07-01"},
		{"2026-07-01T08:00:00Z", "2026-07-01T08:00:00Z"},
		{"2026-07-01 08:30 to 2026-07-08 09:45", "2026-07-01 08:30 to 2026-07-08 09:45"},
		{"from 01-07-2026 to 08-07-2026", "from 01-07-2026 to 08-07-2026"},
		{"squat 100 100 100 kg, then 5x5 @ 82.5kg", "squat 100 100 100 kg, then 5x5 @ 82.5kg"},
		{"reps 12 12 10 10 8 8", "reps 12 12 10 10 8 8"},
		{"ran 10000 m in 2400 s", "ran 10000 m in 2400 s"},
		// Ids and keys inside text, whole or in part, in any case.
		{"trn_06h346y008j1ak8jzerevqemb0 ses_0123456789abc", "[REDACTED] [REDACTED]"},
		{"ask coa_06h346y008j1ak8jzerevqemb0, not me", "ask [REDACTED], not me"},
		{"(key_06h346y008j1ak8jzerevqemb0)", "([REDACTED])"},
		{"COA_06H346Y008J1AK8JZEREVQEMB0.", "[REDACTED]."},
		{"use pf_live_Ab3-x_Yz09qqqqqqqqqqqqqqqqqqqq now", "use [REDACTED] now"},
		{"token pf_at_abcdefgh1234;pf_rt_ZZZZZZZZZZZZ", "token [REDACTED];[REDACTED]"},
		{"ogr_06h346y008j1ak8jzerevqemb0\nocl_06h346y008j1ak8jzerevqemb0", "[REDACTED]\n[REDACTED]"},
		// Not ids: a kind's prefix in a word, short tails, other prefixes.
		{"key_points and tag_line", "key_points and tag_line"},
		{"subkey_06h346y008j1ak8jzerevqemb0", "subkey_06h346y008j1ak8jzerevqemb0"},
		{"abc_06h346y008j1ak8jzerevqemb0", "abc_06h346y008j1ak8jzerevqemb0"},
		{"pf_live_ and pf_live_short", "pf_live_ and pf_live_short"},
		{"weighed 1234567.89 g", "weighed 1234567.89 g"},
		{"[REDACTED]", "[REDACTED]"},
		{"", ""},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzText: redaction is stable, leaves no email and never grows
// text that had nothing to redact.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"call me on 050-123-4567 after 6", "+972 50 123 4567", "(03) 555-1234 or 0541234567.",
		"dana.levi+fit@studio.example.co.il", "2026-07-01T08:00:00Z", "squat 100 100 100 kg",
		"trn_06h346y008j1ak8jzerevqemb0", "on 2026-07-01 050-123-4567", "a@b.co@c.de", "12-12-2026 0 0 0 0 0 0 0 0 0",
		"ask coa_06h346y008j1ak8jzerevqemb0 (key_06h346y008j1ak8jzerevqemb1)", "pf_live_Ab3-x_Yz09 pf_at_abcdefgh@x.example",
		"coa_06h346y008j1ak8jzerevqemb0@studio.example 0501234567",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if again := Text(out); again != out {
			t.Fatalf("Text(%q) = %q, then %q", s, out, again)
		}
		if emailPattern.MatchString(out) {
			t.Fatalf("Text(%q) = %q keeps an email", s, out)
		}
		if idPattern.MatchString(out) || secretPattern.MatchString(out) {
			t.Fatalf("Text(%q) = %q keeps an id or a key", s, out)
		}
		if !strings.Contains(out, Marker) && out != s {
			t.Fatalf("Text(%q) = %q changed text without redacting", s, out)
		}
	})
}

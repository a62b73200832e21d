package training

import "testing"

func TestISOWeeks(t *testing.T) {
	for _, tc := range []struct{ in, monday string }{
		// 1 January 2026 is a Thursday, so week 1 starts Monday 29 December 2025.
		{"2026-W01", "2025-12-29"},
		// Week 49 starts 48 weeks (336 days) later: 29 Dec 2025 + 336 days = 30 Nov 2026.
		{"2026-W49", "2026-11-30"},
		{"2026-W48", "2026-11-23"},
		// 2026 has 53 weeks (it starts on a Thursday); its week 53 starts 28 Dec 2026.
		{"2026-W53", "2026-12-28"},
	} {
		got, err := ParseISOWeek(tc.in)
		if err != nil || got != tc.monday {
			t.Errorf("ParseISOWeek(%q) = %q, %v; want %q", tc.in, got, err, tc.monday)
		}
		if w := ISOWeek(tc.monday); w != tc.in {
			t.Errorf("ISOWeek(%q) = %q; want %q", tc.monday, w, tc.in)
		}
	}
	for _, bad := range []string{"2027-W53", "2026-W00", "2026-48", "2026-W4", "W48-2026", "2026-W48x", ""} {
		if got, err := ParseISOWeek(bad); err == nil {
			t.Errorf("ParseISOWeek(%q) = %q; want an error", bad, got)
		}
	}
	// Wednesday 2 December 2026 is in the week of Monday 30 November.
	if got := WeekStart("2026-12-02"); got != "2026-11-30" {
		t.Errorf("WeekStart = %s", got)
	}
	if got := WeekStart("2026-11-29"); got != "2026-11-23" { // a Sunday
		t.Errorf("WeekStart(Sunday) = %s", got)
	}
}

func FuzzParseISOWeek(f *testing.F) {
	for _, s := range []string{"2026-W48", "2026-W53", "2027-W53", "0000-W01", "9999-W52", "2026-W-1", "２０２６-W48"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		monday, err := ParseISOWeek(s)
		if err != nil {
			return
		}
		// Whatever parses names a Monday whose week is s again.
		if ISOWeek(monday) != s || WeekStart(monday) != monday {
			t.Fatalf("ParseISOWeek(%q) = %q, which is week %q", s, monday, ISOWeek(monday))
		}
	})
}

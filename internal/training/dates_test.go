package training

import (
	"math"
	"testing"
	"time"
)

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

// dayNumberByTime is what dayNumber reads, by time.Parse.
func dayNumberByTime(day string) (int, bool) {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return 0, false
	}
	return int(t.Unix() / 86400), true // whole days from 1970 at midnight UTC; floors for days before
}

// dayDiffByTime is dayDiff as it was written on time.Parse.
func dayDiffByTime(a, b string) int {
	ta, err1 := time.Parse(time.DateOnly, a)
	tb, err2 := time.Parse(time.DateOnly, b)
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(math.Round(tb.Sub(ta).Hours() / 24))
}

func TestDayNumber(t *testing.T) {
	for _, tc := range []struct {
		day string
		n   int
		ok  bool
	}{
		{"1970-01-01", 0, true},
		{"1970-01-02", 1, true},
		{"1969-12-31", -1, true},
		{"2026-12-02", 20789, true},
		{"2000-02-29", 11016, true}, // 2000 is a leap year (divisible by 400)
		{"2024-02-29", 19782, true},
		{"0000-01-01", -719528, true},
		{"0000-02-29", -719469, true}, // year 0 is a leap year
		{"9999-12-31", 2932896, true},
		{"1900-02-29", 0, false}, // 1900 is not (divisible by 100)
		{"2026-02-29", 0, false},
		{"2026-04-31", 0, false},
		{"2026-13-01", 0, false},
		{"2026-00-10", 0, false},
		{"2026-01-00", 0, false},
		{"2026-1-01", 0, false},
		{"2026-01-1", 0, false},
		{"26-01-01", 0, false},
		{"2026/01/01", 0, false},
		{"2026-01-01x", 0, false},
		{"2026-01-01T00:00:00Z", 0, false},
		{"+026-01-01", 0, false},
		{"-026-01-01", 0, false},
		{"2026-+1-01", 0, false},
		{"2026-01--1", 0, false},
		{"２０２６-01-01", 0, false},
		{"", 0, false},
	} {
		n, ok := dayNumber(tc.day)
		if n != tc.n || ok != tc.ok {
			t.Errorf("dayNumber(%q) = %d, %v; want %d, %v", tc.day, n, ok, tc.n, tc.ok)
		}
		if wn, wok := dayNumberByTime(tc.day); n != wn || ok != wok {
			t.Errorf("dayNumber(%q) = %d, %v; time.Parse reads %d, %v", tc.day, n, ok, wn, wok)
		}
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2026-11-22", "2026-12-02", 10},
		{"2026-12-02", "2026-11-28", -4},
		{"2026-12-31", "2027-01-01", 1},
		{"2024-02-28", "2024-03-01", 2},
		{"2026-12-02", "2026-12-02", 0},
		{"bad", "2026-12-02", 0},
		{"2026-12-02", "2026-02-30", 0},
		{"0000-01-01", "9999-12-31", maxDayDiff}, // beyond a time.Duration: its bound
		{"9999-12-31", "0000-01-01", -maxDayDiff},
		{"1970-01-01", "2262-04-11", 106751},
		{"1970-01-01", "2262-04-12", 106752},
	} {
		if got := DayDiff(tc.a, tc.b); got != tc.want || got != dayDiffByTime(tc.a, tc.b) {
			t.Errorf("DayDiff(%q, %q) = %d; want %d (time.Parse: %d)", tc.a, tc.b, got, tc.want, dayDiffByTime(tc.a, tc.b))
		}
	}
}

// FuzzDayNumber holds dayNumber and dayDiff to time.Parse: the same days
// accepted, the same day numbers and differences.
func FuzzDayNumber(f *testing.F) {
	for _, s := range []string{"2026-12-02", "2000-02-29", "1900-02-29", "0000-01-01", "9999-12-31", "2026-13-01", "2026-1-01", "+026-01-01", "２０２６-01-01", ""} {
		f.Add(s, "2026-12-02")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		n, ok := dayNumber(a)
		if wn, wok := dayNumberByTime(a); n != wn || ok != wok {
			t.Fatalf("dayNumber(%q) = %d, %v; time.Parse reads %d, %v", a, n, ok, wn, wok)
		}
		if got, want := DayDiff(a, b), dayDiffByTime(a, b); got != want {
			t.Fatalf("DayDiff(%q, %q) = %d; time.Parse gives %d", a, b, got, want)
		}
	})
}

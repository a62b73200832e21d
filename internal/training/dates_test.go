package training

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestISOWeekNames(t *testing.T) {
	for _, tc := range []struct{ in, monday string }{
		// 1 January 2026 is a Thursday, so week 1 starts Monday 29 December 2025.
		{"2026-W01", "2025-12-29"},
		// Week 49 starts 48 weeks (336 days) later: 29 Dec 2025 + 336 days = 30 Nov 2026.
		{"2026-W49", "2026-11-30"},
		{"2026-W48", "2026-11-23"},
		// 2026 has 53 weeks (it starts on a Thursday); its week 53 starts 28 Dec 2026.
		{"2026-W53", "2026-12-28"},
	} {
		got, err := parseISOWeek(tc.in)
		if err != nil || got != tc.monday {
			t.Errorf("parseISOWeek(%q) = %q, %v; want %q", tc.in, got, err, tc.monday)
		}
	}
	for _, bad := range []string{"2027-W53", "2026-W00", "2026-48", "2026-W4", "W48-2026", "2026-W48x", ""} {
		if got, err := parseISOWeek(bad); err == nil {
			t.Errorf("parseISOWeek(%q) = %q; want an error", bad, got)
		}
	}
}

// TestWeekRule is the one week rule on every first day, across year ends
// and the clock changes.
func TestWeekRule(t *testing.T) {
	// Sunday 6 December 2026: each first day's week that holds it.
	for first, want := range map[time.Weekday]string{
		time.Sunday: "2026-12-06", time.Monday: "2026-11-30", time.Tuesday: "2026-12-01", time.Wednesday: "2026-12-02",
		time.Thursday: "2026-12-03", time.Friday: "2026-12-04", time.Saturday: "2026-12-05",
	} {
		if got := WeekStartOn("2026-12-06", first); got != want {
			t.Errorf("WeekStartOn(Sunday 2026-12-06, %v) = %s; want %s", first, got, want)
		}
		// Every day of that week has the same first day, and the day after it does not.
		for i := range 7 {
			if got := WeekStartOn(dayAdd(want, i), first); got != want {
				t.Errorf("WeekStartOn(%s, %v) = %s; want %s", dayAdd(want, i), first, got, want)
			}
		}
		if got := WeekStartOn(dayAdd(want, 7), first); got != dayAdd(want, 7) {
			t.Errorf("WeekStartOn(%s, %v) = %s", dayAdd(want, 7), first, got)
		}
	}
	for _, tc := range []struct {
		day   string
		first time.Weekday
		want  string
	}{
		{"2027-01-01", time.Sunday, "2026-12-27"}, // a Friday: the week crosses the year
		{"2027-01-01", time.Monday, "2026-12-28"},
		{"2027-01-01", time.Saturday, "2026-12-26"},
		{"2026-01-03", time.Sunday, "2025-12-28"}, // Saturday 3 January 2026
		{"2026-01-04", time.Sunday, "2026-01-04"}, // Sunday 4 January
		{"2024-03-01", time.Sunday, "2024-02-25"}, // across a leap day
		{"not a day", time.Sunday, ""},
	} {
		if got := WeekStartOn(tc.day, tc.first); got != tc.want {
			t.Errorf("WeekStartOn(%s, %v) = %q; want %q", tc.day, tc.first, got, tc.want)
		}
	}
	// Instants around the clock changes land on their local day's week, at
	// local midnight: Israel's summer time starts Friday 27 March 2026 and
	// ends Sunday 25 October 2026; London's starts Sunday 29 March.
	jerusalem, _ := time.LoadLocation("Asia/Jerusalem")
	london, _ := time.LoadLocation("Europe/London")
	for _, tc := range []struct {
		at    time.Time
		first time.Weekday
		want  string
	}{
		{time.Date(2026, 10, 25, 0, 30, 0, 0, jerusalem), time.Sunday, "2026-10-25"},
		{time.Date(2026, 10, 24, 23, 30, 0, 0, time.UTC), time.Sunday, "2026-10-25"}, // 01:30 local on the Sunday
		{time.Date(2026, 10, 31, 23, 59, 0, 0, jerusalem), time.Sunday, "2026-10-25"},
		{time.Date(2026, 3, 28, 12, 0, 0, 0, jerusalem), time.Sunday, "2026-03-22"},
		{time.Date(2026, 3, 29, 1, 30, 0, 0, london), time.Monday, "2026-03-23"},
		{time.Date(2026, 3, 30, 0, 0, 0, 0, london), time.Monday, "2026-03-30"},
	} {
		local := tc.at.In(jerusalem)
		if tc.at.Location() == london {
			local = tc.at
		}
		got := StartOfWeek(local, tc.first)
		if got.Format(time.DateOnly) != tc.want || got.Hour() != 0 || got.Minute() != 0 {
			t.Errorf("StartOfWeek(%v, %v) = %v; want %s at midnight", tc.at, tc.first, got, tc.want)
		}
		if d := DayInWeek(got, ISOWeekday(tc.first)); !d.Equal(got) {
			t.Errorf("DayInWeek(%v, first) = %v", got, d)
		}
	}
}

func TestParseWeek(t *testing.T) {
	for _, tc := range []struct {
		in, today string
		first     time.Weekday
		want      string
	}{
		// On a Sunday a Sunday studio's "this week" starts that day; a
		// Monday studio's is the week that ends that day.
		{"this", "2026-12-06", time.Sunday, "2026-12-06"},
		{"", "2026-12-06", time.Sunday, "2026-12-06"},
		{"next", "2026-12-06", time.Sunday, "2026-12-13"},
		{"last", "2026-12-06", time.Sunday, "2026-11-29"},
		{"this", "2026-12-06", time.Monday, "2026-11-30"},
		{"Next", "2026-12-06", time.Monday, "2026-12-07"},
		{"2026-12-09", "2026-12-06", time.Sunday, "2026-12-06"},
		{"2026-12-09", "2026-12-06", time.Monday, "2026-12-07"},
		// An ISO week names the studio's week holding its Monday.
		{"2026-W48", "2026-12-06", time.Monday, "2026-11-23"},
		{"2026-W48", "2026-12-06", time.Sunday, "2026-11-22"},
		{"2026-W01", "2026-12-06", time.Sunday, "2025-12-28"},
		{"2026-W53", "2026-12-06", time.Saturday, "2026-12-26"},
	} {
		got, err := ParseWeek(tc.in, tc.today, tc.first)
		if err != nil || got != tc.want {
			t.Errorf("ParseWeek(%q, today %s, %v) = %q, %v; want %q", tc.in, tc.today, tc.first, got, err, tc.want)
		}
	}
	for _, bad := range []string{"2027-W53", "2026-W00", "week 48", "2026-02-30", "tomorrow"} {
		_, err := ParseWeek(bad, "2026-12-06", time.Sunday)
		if err == nil || !strings.Contains(err.Error(), "this week starts on 2026-12-06") {
			t.Errorf("ParseWeek(%q) error = %v; want a sentence naming this week", bad, err)
		}
	}
}

func FuzzParseWeek(f *testing.F) {
	for _, s := range []string{"2026-W48", "2026-W53", "2027-W53", "0000-W01", "9999-W52", "2026-W-1", "２０２６-W48", "next", "2026-12-06", "2026-13-01"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, firstDay uint8) {
		first := time.Weekday(firstDay % 7)
		start, err := ParseWeek(s, "2026-12-06", first)
		if err != nil {
			return
		}
		// Whatever parses names a first day of the week, which names itself.
		d, ok := parseDay(start)
		if !ok || d.Weekday() != first {
			t.Fatalf("ParseWeek(%q, %v) = %q, not a %v", s, first, start, first)
		}
		if again, err := ParseWeek(start, "2026-12-06", first); err != nil || again != start {
			t.Fatalf("ParseWeek(%q) = %q, %v", start, again, err)
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

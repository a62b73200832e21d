// Package training holds the training memory's read models: the overview,
// the weekly debrief, the coaching insights and the roster triage. They are
// pure functions over domain values: no store, no clock. The caller passes
// today (a local day in the studio's zone) and the rows the model reads.
package training

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/text"
)

// Days are local dates "YYYY-MM-DD"; arithmetic on them runs in UTC, where
// every day has 24 hours.

func parseDay(day string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, day)
	return t, err == nil
}

// dayAdd is day moved by n days ("" for a day that does not parse).
func dayAdd(day string, n int) string {
	t, ok := parseDay(day)
	if !ok {
		return ""
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// DayDiff is b − a in days (0 when either does not parse). The roster
// triage calls it a few times a trainee, so the days are read by dayNumber,
// not time.Parse. A difference beyond ±106,752 days is that bound, as it
// was when it came from a time.Duration, which saturates there.
func DayDiff(a, b string) int {
	na, ok1 := dayNumber(a)
	nb, ok2 := dayNumber(b)
	if !ok1 || !ok2 {
		return 0
	}
	return min(max(nb-na, -maxDayDiff), maxDayDiff)
}

// maxDayDiff is the days in the longest time.Duration, rounded.
const maxDayDiff = 106752

// dayNumber reads a local day "YYYY-MM-DD" as the days since 1970-01-01;
// it accepts exactly what time.Parse(time.DateOnly, day) accepts: four
// digits of year, two of month (01–12), two of day (01 to the month's last
// day, 29 February in a leap year only).
func dayNumber(day string) (int, bool) {
	if len(day) != 10 || day[4] != '-' || day[7] != '-' {
		return 0, false
	}
	digits := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := digits(day[0:4])
	m, ok2 := digits(day[5:7])
	d, ok3 := digits(day[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the days from 1970-01-01 to y-m-d in the proleptic
// Gregorian calendar (H. Hinnant's days_from_civil; y ≥ 0 here, so the
// divisions need no flooring).
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := (y+400)/400 - 1 // floor(y/400) for y ≥ −1
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// StartOfWeek is the first day of t's week, at midnight in t's location,
// for a studio whose weeks start on first (the one week rule: every week
// Perform names is computed here).
func StartOfWeek(t time.Time, first time.Weekday) time.Time {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
	back := (int(d.Weekday()) - int(first) + 7) % 7
	return d.AddDate(0, 0, -back)
}

// WeekStartOn is the first day of day's week (YYYY-MM-DD) when weeks start
// on first; "" for a day that is not a date.
func WeekStartOn(day string, first time.Weekday) string {
	t, ok := parseDay(day)
	if !ok {
		return ""
	}
	return StartOfWeek(t, first).Format(time.DateOnly)
}

// ISOWeekday is the ISO number of d: 1 Monday … 7 Sunday.
func ISOWeekday(d time.Weekday) int { return (int(d)+6)%7 + 1 }

// DayInWeek is the date of the ISO weekday iso (1 Monday … 7 Sunday) in
// the week that starts on weekStart, whatever day that is.
func DayInWeek(weekStart time.Time, iso int) time.Time {
	return weekStart.AddDate(0, 0, (iso%7-int(weekStart.Weekday())+7)%7)
}

// ParseWeek reads a week as the routes and tools take it, in a studio
// whose weeks start on first, and answers its first day (YYYY-MM-DD):
// "this", "last" or "next" (around today); a day in it (YYYY-MM-DD); or an
// ISO week name (2026-W48), which names the studio's week that holds that
// ISO week's Monday (Monday to Sunday where weeks start on Monday, the
// Sunday before to the Saturday where they start on Sunday).
func ParseWeek(s, today string, first time.Weekday) (string, error) {
	this := WeekStartOn(today, first)
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "this":
		return this, nil
	case "last":
		return dayAdd(this, -7), nil
	case "next":
		return dayAdd(this, 7), nil
	}
	if t, ok := parseDay(s); ok {
		return StartOfWeek(t, first).Format(time.DateOnly), nil
	}
	monday, err := parseISOWeek(s)
	if err != nil {
		return "", fmt.Errorf("week %q is not a week: write this, last or next, a day in the week (YYYY-MM-DD), or an ISO week (YYYY-Www); this week starts on %s", text.Truncate(s, 20), this)
	}
	return WeekStartOn(monday, first), nil
}

// parseISOWeek answers the Monday of an ISO week written "2026-W48".
func parseISOWeek(s string) (string, error) {
	var y, w int
	if n, err := fmt.Sscanf(s, "%4d-W%2d", &y, &w); n != 2 || err != nil || len(s) != 8 {
		return "", fmt.Errorf("%q is not an ISO week; write it as YYYY-Www, for example 2026-W48", s)
	}
	// 4 January is always in week 1.
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	start := StartOfWeek(jan4, time.Monday).AddDate(0, 0, 7*(w-1))
	if yy, ww := start.ISOWeek(); y < 1970 || y > 9999 || w < 1 || yy != y || ww != w {
		return "", fmt.Errorf("%q is not a week of its year: year %d has weeks 1 to %d", s, y, weeksIn(y))
	}
	return start.Format(time.DateOnly), nil
}

func weeksIn(y int) int {
	_, w := time.Date(y, 12, 28, 0, 0, 0, 0, time.UTC).ISOWeek()
	return w
}

// tenths and hundredths keep figures readable.
func tenths(v float64) float64     { return math.Round(v*10) / 10 }
func hundredths(v float64) float64 { return math.Round(v*100) / 100 }

// ratio is a/b to two decimals, nil when b is 0.
func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := hundredths(float64(a) / float64(b))
	return &r
}

// changePct is (now − before) / before in percent to one decimal, nil when
// before is 0.
func changePct(now, before float64) *float64 {
	if before == 0 {
		return nil
	}
	c := tenths((now - before) / before * 100)
	return &c
}

// mean is the average of vs to one decimal, nil for none.
func mean(vs []float64) *float64 {
	if len(vs) == 0 {
		return nil
	}
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	m := tenths(sum / float64(len(vs)))
	return &m
}

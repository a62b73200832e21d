package appointments

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/training"
)

// The words a booking's day and time take, in the studio's zone and week:
// "today", "tomorrow", a weekday ("tuesday": the next one from today; "this
// tuesday" and "next tuesday": in this and next week of the studio), or a
// date (YYYY-MM-DD); in English or Hebrew ("מחר", "יום שלישי", "שלישי
// הבא"), as said of a booking or a move ("on tuesday", "ביום שלישי", "to
// thursday", "ליום חמישי"). A time is HH:MM (or H, HH, H:MM) on the 24-hour clock.

var weekdayWords = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday, "ראשון": time.Sunday,
	"monday": time.Monday, "mon": time.Monday, "שני": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday, "שלישי": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday, "רביעי": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "thurs": time.Thursday, "חמישי": time.Thursday,
	"friday": time.Friday, "fri": time.Friday, "שישי": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday, "שבת": time.Saturday,
}

// dayRule is said wherever a day is asked for.
const dayRule = "today, tomorrow, a weekday (tuesday: the next one; next tuesday: in next week), or YYYY-MM-DD; Hebrew words too (מחר, שלישי)"

// ParseDay reads day as a local date (YYYY-MM-DD), today being today in a
// studio whose weeks start on first. bare reports a plain weekday name,
// which moves a week on when its time has passed today.
func ParseDay(day, today string, first time.Weekday) (date string, bare bool, err error) {
	s := strings.ToLower(strings.Join(strings.Fields(day), " "))
	todayT, perr := time.Parse(time.DateOnly, today)
	if perr != nil {
		return "", false, perr
	}
	switch s {
	case "today", "היום":
		return today, false, nil
	case "tomorrow", "מחר":
		return todayT.AddDate(0, 0, 1).Format(time.DateOnly), false, nil
	case "מחרתיים", "day after tomorrow":
		return todayT.AddDate(0, 0, 2).Format(time.DateOnly), false, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Format(time.DateOnly), false, nil
	}
	week := ""
	for _, w := range []struct{ word, which string }{{"this ", "this"}, {"next ", "next"}} {
		if rest, ok := strings.CutPrefix(s, w.word); ok {
			s, week = rest, w.which
		}
	}
	for _, w := range []struct{ word, which string }{{" הזה", "this"}, {" הבא", "next"}} {
		if rest, ok := strings.CutSuffix(s, w.word); ok {
			s, week = rest, w.which
		}
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "on "), "to ")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "ב"), "ל") // ביום, and a move's ליום
	s = strings.TrimPrefix(s, "יום ")
	wd, ok := weekdayWords[s]
	if !ok {
		// "ביום שלישי" and "בשלישי": the prefix may have been the word's own letter.
		wd, ok = weekdayWords[strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.Join(strings.Fields(day), " ")), "ב"), "יום ")]
	}
	if !ok {
		return "", false, fmt.Errorf("%q is not a day: write %s", text.Truncate(day, 30), dayRule)
	}
	switch week {
	case "this", "next":
		start := training.StartOfWeek(todayT, first)
		if week == "next" {
			start = start.AddDate(0, 0, 7)
		}
		return start.AddDate(0, 0, (int(wd)-int(first)+7)%7).Format(time.DateOnly), false, nil
	}
	ahead := (int(wd) - int(todayT.Weekday()) + 7) % 7
	return todayT.AddDate(0, 0, ahead).Format(time.DateOnly), true, nil
}

// ParseClock reads a time of day as minutes after midnight: HH:MM, H:MM,
// HH or H, 0:00 to 23:59.
func ParseClock(s string) (int, error) {
	s = strings.TrimSpace(s)
	h, m, hasMin := strings.Cut(s, ":")
	bad := fmt.Errorf("%q is not a time of day: write HH:MM on the 24-hour clock, such as 18:00 or 7:30", text.Truncate(s, 20))
	if len(h) < 1 || len(h) > 2 || (hasMin && len(m) != 2) {
		return 0, bad
	}
	hh, err := strconv.Atoi(h)
	if err != nil || hh < 0 || hh > 23 || h[0] == '+' || h[0] == '-' {
		return 0, bad
	}
	mm := 0
	if hasMin {
		if mm, err = strconv.Atoi(m); err != nil || mm < 0 || mm > 59 || m[0] == '+' || m[0] == '-' {
			return 0, bad
		}
	}
	return hh*60 + mm, nil
}

// clock is minutes after midnight as HH:MM.
func clock(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

// localInstant is the instant of minute min of the local date in loc.
func localInstant(date string, min int, loc *time.Location) time.Time {
	d, _ := time.Parse(time.DateOnly, date)
	return time.Date(d.Year(), d.Month(), d.Day(), min/60, min%60, 0, 0, loc)
}

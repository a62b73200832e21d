package appointments

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// 2026-12-02 is a Wednesday; the Israeli week starts on Sunday 29 November.
func TestParseDay(t *testing.T) {
	t.Parallel()
	const today = "2026-12-02"
	for _, c := range []struct {
		in, want string
		bare     bool
	}{
		{"today", "2026-12-02", false}, {"Tomorrow", "2026-12-03", false}, {"מחר", "2026-12-03", false}, {"היום", "2026-12-02", false},
		{"tuesday", "2026-12-08", true}, {"wednesday", "2026-12-02", true}, {"Thu", "2026-12-03", true},
		{"שלישי", "2026-12-08", true}, {"יום שלישי", "2026-12-08", true}, {"ביום שלישי", "2026-12-08", true}, {"בשני", "2026-12-07", true},
		{"next tuesday", "2026-12-08", false}, {"this tuesday", "2026-12-01", false}, {"next sunday", "2026-12-06", false},
		{"ליום חמישי", "2026-12-03", true}, {"לחמישי", "2026-12-03", true}, {"to thursday", "2026-12-03", true}, {"ליום חמישי הבא", "2026-12-10", false},
		{"שלישי הבא", "2026-12-08", false}, {"2027-01-05", "2027-01-05", false}, {"מחרתיים", "2026-12-04", false},
	} {
		got, bare, err := ParseDay(c.in, today, time.Sunday)
		if err != nil || got != c.want || bare != c.bare {
			t.Errorf("ParseDay(%q) = %s %v %v, want %s %v", c.in, got, bare, err, c.want, c.bare)
		}
	}
	// The studio's week decides what next names.
	if got, _, _ := ParseDay("next sunday", today, time.Monday); got != "2026-12-13" {
		t.Errorf("next sunday in a Monday week = %s", got)
	}
	for _, bad := range []string{"", "someday", "2026-13-01", "next", "בטל", "tuesday 18:00"} {
		if _, _, err := ParseDay(bad, today, time.Sunday); err == nil || !strings.Contains(err.Error(), "is not a day") {
			t.Errorf("ParseDay(%q) = %v", bad, err)
		}
	}
}

func TestParseClock(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"18:00": 1080, "7:30": 450, "9": 540, "00:00": 0, "23:59": 1439} {
		if got, err := ParseClock(in); err != nil || got != want {
			t.Errorf("ParseClock(%q) = %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "24:00", "18:60", "18:5", "-1", "+9", "18:+5", "6pm", "123"} {
		if _, err := ParseClock(bad); err == nil {
			t.Errorf("ParseClock(%q) took it", bad)
		}
	}
}

// Any text is a day or a sentence naming what a day is; a day is a real
// date within a fortnight of today unless given as a date.
func FuzzParseDay(f *testing.F) {
	for _, s := range []string{"tuesday", "next שלישי", "ביום ראשון", "2026-02-29", "this sat", "\xff", "ב"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := ParseDay(s, "2026-12-02", time.Sunday)
		if err != nil {
			if !strings.Contains(err.Error(), "is not a day") || !utf8.ValidString(err.Error()) && utf8.ValidString(s) {
				t.Fatalf("ParseDay(%q) error %q", s, err)
			}
			return
		}
		d, perr := time.Parse(time.DateOnly, got)
		if perr != nil {
			t.Fatalf("ParseDay(%q) = %q, not a date", s, got)
		}
		if _, derr := time.Parse(time.DateOnly, strings.TrimSpace(s)); derr != nil {
			if n := d.Sub(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)).Hours() / 24; n < -7 || n > 13 {
				t.Fatalf("ParseDay(%q) = %s, %v days away", s, got, n)
			}
		}
	})
}

func FuzzParseClock(f *testing.F) {
	for _, s := range []string{"18:00", "7", "7:5", "٣:00", "09:00\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseClock(s)
		if err != nil {
			return
		}
		if m < 0 || m >= 24*60 {
			t.Fatalf("ParseClock(%q) = %d", s, m)
		}
		if back, err := ParseClock(clock(m)); err != nil || back != m {
			t.Fatalf("ParseClock(%q) = %d, and %s reads back as %d %v", s, m, clock(m), back, err)
		}
	})
}

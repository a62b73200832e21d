package appointments

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCalendarText(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 8, 16, 0, 0, 0, time.UTC)
	long := strings.Repeat("אבג, ", 30)
	got := string(Calendar("-//Perform//EN", "Dana", []Event{{UID: "slt_1@perform", Start: at, End: at.Add(time.Hour), Stamp: at, Summary: long, Location: "Room; 2\nupstairs"}}))
	for _, l := range strings.Split(strings.TrimSuffix(got, "\r\n"), "\r\n") {
		if len(l) > 75 || strings.ContainsAny(l, "\r\n") {
			t.Errorf("line of %d octets: %q", len(l), l)
		}
	}
	un := Unfold(got)
	for _, want := range []string{"DTSTART:20261208T160000Z\r\n", "DTEND:20261208T170000Z\r\n", `LOCATION:Room\; 2\nupstairs` + "\r\n", "SUMMARY:" + EscapeText(long) + "\r\n", "END:VCALENDAR\r\n"} {
		if !strings.Contains(un, want) {
			t.Errorf("no %q in\n%s", want, un)
		}
	}
}

// Escaped and folded, any text makes lines of at most 75 octets of valid
// UTF-8, ending CRLF, with no bare CR or LF, that unfold to the escaped
// value; and the escaping reads back to the text, newlines as \n.
func FuzzEscapeAndFold(f *testing.F) {
	for _, s := range []string{"Room; 1, upstairs", "a\\b", "שלום,\r\nעולם", strings.Repeat("é", 80), "\x00\x7f\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		esc := EscapeText(s)
		line := "SUMMARY:" + esc
		folded := Fold(line)
		if !strings.HasSuffix(folded, "\r\n") {
			t.Fatalf("no CRLF at the end: %q", folded)
		}
		for i, l := range strings.Split(strings.TrimSuffix(folded, "\r\n"), "\r\n") {
			if len(l) > 75 || strings.ContainsAny(l, "\r\n") || !utf8.ValidString(l) {
				t.Fatalf("line %d: %q", i, l)
			}
			if i > 0 && !strings.HasPrefix(l, " ") {
				t.Fatalf("continuation %d without its space: %q", i, l)
			}
		}
		if Unfold(folded) != line+"\r\n" {
			t.Fatalf("unfolds to %q, want %q", Unfold(folded), line)
		}
		if got, want := unescape(esc), strings.ReplaceAll(strings.ReplaceAll(asText(s), "\r\n", "\n"), "\r", "\n"); got != want {
			t.Fatalf("%q escaped %q reads back %q, want %q", s, esc, got, want)
		}
	})
}

// asText is s as TEXT may hold it: valid UTF-8, control characters but tab and newlines as spaces.
func asText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == 'n' {
				b.WriteByte('\n')
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

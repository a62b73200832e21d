package appointments

import (
	"strings"
	"time"
	"unicode/utf8"
)

// The iCalendar text (RFC 5545) of a feed, written by hand: it is small.
// Lines end CRLF and are folded at 75 octets (a continuation starts with
// one space, never inside a UTF-8 character); text values escape
// backslash, semicolon, comma and newlines; instants are UTC
// (YYYYMMDDTHHMMSSZ).

// Event is one VEVENT.
type Event struct {
	UID              string
	Start, End       time.Time
	Stamp            time.Time
	Summary          string
	Location         string
	Description      string
	Cancelled        bool
	SequenceOfChange int
}

// Calendar is a VCALENDAR of events; prodID names its maker and name is
// shown by calendar apps.
func Calendar(prodID, name string, events []Event) []byte {
	var b strings.Builder
	line := func(name, value string) { b.WriteString(Fold(name + ":" + value)) }
	line("BEGIN", "VCALENDAR")
	line("VERSION", "2.0")
	line("PRODID", EscapeText(prodID))
	line("CALSCALE", "GREGORIAN")
	line("METHOD", "PUBLISH")
	line("X-WR-CALNAME", EscapeText(name))
	for _, e := range events {
		line("BEGIN", "VEVENT")
		line("UID", EscapeText(e.UID))
		line("DTSTAMP", utc(e.Stamp))
		line("DTSTART", utc(e.Start))
		line("DTEND", utc(e.End))
		line("SUMMARY", EscapeText(e.Summary))
		if e.Location != "" {
			line("LOCATION", EscapeText(e.Location))
		}
		if e.Description != "" {
			line("DESCRIPTION", EscapeText(e.Description))
		}
		status := "CONFIRMED"
		if e.Cancelled {
			status = "CANCELLED"
		}
		line("STATUS", status)
		line("END", "VEVENT")
	}
	line("END", "VCALENDAR")
	return []byte(b.String())
}

func utc(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// EscapeText escapes a TEXT value (RFC 5545 3.3.11): \ ; , and newlines;
// other control characters, which TEXT may not hold, and invalid UTF-8
// become spaces and U+FFFD.
func EscapeText(s string) string {
	var b strings.Builder
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == ';':
			b.WriteString(`\;`)
		case r == ',':
			b.WriteString(`\,`)
		case r == '\n' || r == '\r':
			b.WriteString(`\n`)
		case r < 0x20 && r != '\t' || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// foldAt is the longest line, in octets, without its CRLF.
const foldAt = 75

// Fold is a content line folded (RFC 5545 3.1): at most 75 octets a line,
// each continuation beginning with a space, never splitting a UTF-8
// character; every line ends CRLF.
func Fold(line string) string {
	var b strings.Builder
	width := foldAt
	for len(line) > width {
		cut := width
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		b.WriteString(line[:cut])
		b.WriteString("\r\n ")
		line = line[cut:]
		width = foldAt - 1 // the continuation's space counts
	}
	b.WriteString(line)
	b.WriteString("\r\n")
	return b.String()
}

// Unfold joins folded lines (for tests and readers): CRLF followed by a
// space or tab is removed.
func Unfold(s string) string {
	s = strings.ReplaceAll(s, "\r\n ", "")
	return strings.ReplaceAll(s, "\r\n\t", "")
}

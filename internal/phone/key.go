package phone

import "strings"

// Key is the form a phone is looked up by, whoever typed it: E.164 when it
// parses, else "+" and its digits. WhatsApp sends international digits
// without the plus ("972501234567"), so digits not starting with 0 are read
// as international; a leading 0 is a national number of the default region
// (Israel), as coaches type their phones ("050-123-4567"). The store keeps
// this key beside each coach's phone as typed, so the WhatsApp assistant
// finds a sender's coaches with one indexed query.
func Key(raw string) string {
	digits := Digits(raw)
	candidate := raw
	if !strings.HasPrefix(strings.TrimSpace(raw), "+") && !strings.HasPrefix(digits, "0") {
		candidate = "+" + digits
	}
	if e164, err := Normalize(candidate, DefaultRegion); err == nil {
		return e164
	}
	return "+" + digits
}

// Masked shows only a phone's last four digits ("…4567"), for logs and
// pages that must not spell a number out.
func Masked(raw string) string {
	d := Digits(raw)
	if len(d) > 4 {
		d = d[len(d)-4:]
	}
	return "…" + d
}

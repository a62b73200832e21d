// Package text is the one rule for the text Perform accepts from a caller:
// valid UTF-8, no NUL and no other control character except newline and
// tab. Both stores keep such text exactly as sent, so SQLite and Postgres
// answer the same (Postgres refuses NUL and invalid UTF-8 outright; SQLite
// would store them and then match or compare them oddly).
//
// The lane checks every string of a request with it before anything reaches
// a handler; Printable turns any string into a readable form that passes the
// rule, for records (the audit) that must keep what was asked whatever it was.
// It depends on the standard library only.
package text

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Rule is the rule as a sentence tail, for messages and documentation.
const Rule = "text of valid UTF-8 without control characters other than newline and tab"

// Problem says what makes s text Perform refuses, as the tail of a
// sentence ("holds the control character U+0000 (NUL)"), or "" when s is
// acceptable.
func Problem(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("is not valid UTF-8 (byte %d is 0x%02x)", i, s[i])
		}
		if bad := runeProblem(r); bad != "" {
			return bad
		}
		i += size
	}
	return ""
}

// runeProblem is Problem for one well-formed character.
func runeProblem(r rune) string {
	if r == '\n' || r == '\t' || !unicode.IsControl(r) {
		return ""
	}
	if r == 0 {
		return "holds the control character U+0000 (NUL)"
	}
	return fmt.Sprintf("holds the control character U+%04X", r)
}

// JSONProblem is Problem for every string of a JSON value as it was sent
// (values and object keys), read from the raw bytes: encoding/json turns
// invalid UTF-8 and lone surrogates ("\ud800") into U+FFFD without a word,
// so the decoded value cannot tell. raw must be valid JSON syntax (decode
// it first). It answers where the bad string is, relative to the value
// ("", "[2]", ".note", `["x y"]`), and the problem; "" and "" when every
// string is acceptable.
func JSONProblem(raw []byte) (at, problem string) {
	w := walker{raw: raw}
	w.value("")
	return w.at, w.problem
}

// JSONLongest is the longest string of a JSON value (values and object
// names), in characters, and where it is (as JSONProblem says it); -1 when
// the value holds no string. raw must be valid JSON syntax.
func JSONLongest(raw []byte) (at string, n int) {
	w := walker{raw: raw, longest: -1}
	w.value("")
	return w.longestAt, w.longest
}

type walker struct {
	raw     []byte
	i       int
	at      string
	problem string
	// longest is the most characters of a string seen, at longestAt.
	longest   int
	longestAt string
}

func (w *walker) saw(at, s string) {
	if n := utf8.RuneCountInString(s); n > w.longest {
		w.longest, w.longestAt = n, at
	}
}

func (w *walker) fail(at, problem string) {
	if w.problem == "" {
		w.at, w.problem = at, problem
	}
}

func (w *walker) space() {
	for w.i < len(w.raw) && strings.IndexByte(" \t\r\n", w.raw[w.i]) >= 0 {
		w.i++
	}
}

// value walks one JSON value at path, stopping at the first problem.
func (w *walker) value(path string) {
	w.space()
	if w.i >= len(w.raw) || w.problem != "" {
		return
	}
	switch w.raw[w.i] {
	case '"':
		s, bad := w.str()
		if bad != "" {
			w.fail(path, bad)
		}
		w.saw(path, s)
	case '{':
		w.i++
		for w.problem == "" {
			w.space()
			if w.i >= len(w.raw) || w.raw[w.i] == '}' {
				w.i++
				return
			}
			if w.raw[w.i] == ',' {
				w.i++
				continue
			}
			key, bad := w.str()
			at := path + member(key)
			w.saw(at, key)
			if bad != "" {
				w.fail(at, "has a name that "+bad)
				return
			}
			w.space()
			w.i++ // ':'
			w.value(at)
		}
	case '[':
		w.i++
		for n := 0; w.problem == ""; {
			w.space()
			if w.i >= len(w.raw) || w.raw[w.i] == ']' {
				w.i++
				return
			}
			if w.raw[w.i] == ',' {
				w.i++
				n++
				continue
			}
			w.value(fmt.Sprintf("%s[%d]", path, n))
		}
	default: // a number, true, false or null
		for w.i < len(w.raw) && strings.IndexByte(",]} \t\r\n", w.raw[w.i]) < 0 {
			w.i++
		}
	}
}

// member is how a path names an object's member: .name when plain, else
// ["name"], cut to about 60 bytes.
func member(key string) string {
	if len(key) > 60 { // a name is shown, not kept: cut it short
		n := 60
		for n > 0 && !utf8.RuneStart(key[n]) {
			n--
		}
		key = key[:n] + "…"
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return "[" + strconv.Quote(Printable(key)) + "]"
		}
	}
	if key == "" {
		return `[""]`
	}
	return "." + key
}

// str reads the string literal at w.i, answering its text (as far as it
// could be read) and the first problem with it.
func (w *walker) str() (string, string) {
	var b strings.Builder
	problem := ""
	bad := func(p string) {
		if problem == "" {
			problem = p
		}
	}
	w.i++ // opening quote
	for w.i < len(w.raw) {
		c := w.raw[w.i]
		switch {
		case c == '"':
			w.i++
			return b.String(), problem
		case c == '\\' && w.i+1 < len(w.raw):
			esc := w.raw[w.i+1]
			w.i += 2
			switch esc {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b', 'f', 'r':
				r := map[byte]rune{'b': '\b', 'f': '\f', 'r': '\r'}[esc]
				bad(runeProblem(r))
			case 'u':
				r := w.hex()
				switch {
				case utf16.IsSurrogate(r) && r < 0xdc00 && w.i+1 < len(w.raw) && w.raw[w.i] == '\\' && w.raw[w.i+1] == 'u':
					w.i += 2
					lo := w.hex()
					if pair := utf16.DecodeRune(r, lo); pair != unicode.ReplacementChar {
						b.WriteRune(pair)
						continue
					}
					bad(fmt.Sprintf("holds a lone surrogate \\u%04x (an escape that is half of a character)", r))
				case utf16.IsSurrogate(r):
					bad(fmt.Sprintf("holds a lone surrogate \\u%04x (an escape that is half of a character)", r))
				default:
					bad(runeProblem(r))
					b.WriteRune(r)
				}
			default: // \" \\ \/
				b.WriteByte(esc)
			}
		default:
			r, size := utf8.DecodeRune(w.raw[w.i:])
			if r == utf8.RuneError && size == 1 {
				bad(fmt.Sprintf("is not valid UTF-8 (it holds the byte 0x%02x)", c))
			} else {
				bad(runeProblem(r))
				b.WriteRune(r)
			}
			w.i += size
		}
	}
	return b.String(), problem
}

// hex reads the four hex digits of a \u escape.
func (w *walker) hex() rune {
	if w.i+4 > len(w.raw) {
		w.i = len(w.raw)
		return unicode.ReplacementChar
	}
	n, err := strconv.ParseUint(string(w.raw[w.i:w.i+4]), 16, 32)
	w.i += 4
	if err != nil {
		return unicode.ReplacementChar
	}
	return rune(n)
}

// Printable returns s as it can be stored and shown anywhere, still
// readable: a backslash as \\, bytes that are not UTF-8 as \xff, control
// characters (newline and tab too) as \x00 or \u0085. Text the rule
// accepts and that has no backslash, newline or tab comes back unchanged;
// the result always passes Problem.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r == '\\' || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case unicode.IsControl(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Truncate cuts s to at most n bytes, on a character boundary, marking the
// cut with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ListProblem is Problem of the first value of vals that has one (a query
// or form parameter sent more than once), or "".
func ListProblem(vals []string) string {
	for _, v := range vals {
		if bad := Problem(v); bad != "" {
			return bad
		}
	}
	return ""
}

// ValuesProblem is the text rule over form or query values (url.Values):
// the first parameter, in name order, whose name or any value breaks it,
// and the problem ("has a name that …" for a bad name); "", "" when all
// are acceptable. A bad name is answered in Printable form.
func ValuesProblem(v map[string][]string) (name, problem string) {
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if bad := Problem(k); bad != "" {
			return Printable(k), "has a name that " + bad
		}
		if bad := ListProblem(v[k]); bad != "" {
			return k, bad
		}
	}
	return "", ""
}

// BidiProblem says what makes s unfit to show as a name beside other
// text: a bidirectional control character (U+202A to U+202E, U+2066 to
// U+2069, U+200E, U+200F, U+061C), which can make "Good App\u202egnp.exe"
// read as "Good Appexe.png" on a page. Right-to-left text itself (Hebrew,
// Arabic) is fine. "" when there is none.
func BidiProblem(s string) string {
	for _, r := range s {
		if isBidiControl(r) {
			return fmt.Sprintf("holds the bidirectional control character U+%04X", r)
		}
	}
	return ""
}

func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// NameProblem says what makes s unfit as a name shown beside others (an
// app's name on a consent page), as the tail of a sentence, or "" when it
// is fine: Problem's rule, then no character that is invisible or changes
// how the text around it reads, so no name can pass for another ("Perform"
// and "Per\u200bform" look alike): no control character at all (newline
// and tab neither), no format character (Unicode category Cf: zero-width
// spaces and joiners, bidirectional controls, the soft hyphen, the byte
// order mark, tags), no line or paragraph separator, no private-use
// character and no other default-ignorable one (the Hangul fillers); and at
// most max characters.
func NameProblem(s string, max int) string {
	if p := Problem(s); p != "" {
		return p
	}
	n := 0
	for _, r := range s {
		n++
		switch {
		case isBidiControl(r):
			return fmt.Sprintf("holds the bidirectional control character U+%04X", r)
		case unicode.IsControl(r):
			return fmt.Sprintf("holds the control character U+%04X", r)
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Other_Default_Ignorable_Code_Point):
			return fmt.Sprintf("holds the invisible character U+%04X", r)
		}
	}
	if n > max {
		return fmt.Sprintf("is %d characters long; at most %d are allowed", n, max)
	}
	return ""
}

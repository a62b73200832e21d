// Package redaction takes out of text what a reader must not see in it:
// email addresses, phone numbers, Perform's ids and keys, and people's
// names. The lane's scrubber (internal/lane) applies it to every string of
// an answer a trainee or a platform reads.
package redaction

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/otherwise/perform/internal/ids"
)

// Marker replaces what redaction takes out.
const Marker = "[REDACTED]"

// nameWord is a run of letters (any script, with their marks).
var nameWord = regexp.MustCompile(`[\p{L}\p{M}]+`)

// Names is the words of people's names worth finding in text: three
// letters or more, lower-cased.
func Names(people []string) map[string]bool {
	set := map[string]bool{}
	for _, p := range people {
		for _, w := range nameWord.FindAllString(p, -1) {
			if len([]rune(w)) >= 3 {
				set[strings.ToLower(w)] = true
			}
		}
	}
	return set
}

// NamesIn replaces the words of s that are words of a name in names,
// when written as a name is: capitalised (or in a script without case).
// "your coach" stays; "Yael said" does not.
func NamesIn(s string, names map[string]bool) string {
	if len(names) == 0 || s == "" {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range nameWord.FindAllStringIndex(s, -1) {
		w := s[loc[0]:loc[1]]
		if !names[strings.ToLower(w)] || !writtenAsName(w) {
			continue
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(Marker)
		last = loc[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// writtenAsName: the word's first letter is not lower case.
func writtenAsName(w string) bool {
	for _, r := range w {
		return !unicode.IsLower(r)
	}
	return false
}

// emailPattern finds email addresses in text.
var emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)

// phoneCandidate finds runs of digits that might be a phone number: an
// optional +, digits and the separators people write in phone numbers
// (spaces, dashes, parentheses). Which candidates are phones decides
// looksLikePhone.
var phoneCandidate = regexp.MustCompile(`\+?\(?\d[\d\-() ]*\d\)?`)

// datePattern is an ISO date (or its reverse) inside a candidate: dates
// are not phone numbers.
var datePattern = regexp.MustCompile(`\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4}`)

// idPattern is an id of any of Perform's kinds inside text: the kind's
// prefix, an underscore and ten or more letters and digits (a whole id has
// 26; a coach may paste part of one), whatever their case.
var idPattern = func() *regexp.Regexp {
	var kinds []string
	for _, k := range ids.Kinds() {
		kinds = append(kinds, regexp.QuoteMeta(string(k)))
	}
	slices.Sort(kinds)
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(kinds, "|") + `)_[0-9a-z]{10,}`)
}()

// secretPattern is a key or token of Perform's (pf_live_…, pf_at_…,
// pf_rt_…, pf_tt_…) inside text: the prefix and what follows it.
var secretPattern = regexp.MustCompile(`(?i)\bpf_[a-z]+_[0-9a-z_\-]{8,}`)

// Text replaces email addresses, phone numbers, Perform's ids
// (trn_…, coa_…, key_…) and keys and tokens (pf_live_…) in s. The answers'
// own id fields are not text: redact keeps the ids in them.
func Text(s string) string {
	if s == "" || s == Marker {
		return s
	}
	if strings.IndexByte(s, '_') >= 0 {
		s = secretPattern.ReplaceAllString(s, Marker)
		s = idPattern.ReplaceAllString(s, Marker)
	}
	if strings.IndexByte(s, '@') >= 0 {
		s = emailPattern.ReplaceAllString(s, Marker)
	}
	if !hasDigits(s, 9) { // most strings: no phone can be in them
		return s
	}
	locs := phoneCandidate.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		// A run glued to letters is part of a word or an id (trn_06h3…).
		if start > 0 && isWordByte(s[start-1]) || end < len(s) && isWordByte(s[end]) {
			continue
		}
		for _, ph := range phonesIn(s[start:end]) {
			b.WriteString(s[last : start+ph[0]])
			b.WriteString(Marker)
			last = start + ph[1]
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// phonesIn finds the phone numbers in one candidate run: the whole run, or
// else the longest runs of its space-separated words, from the left, that
// look like one ("2026-07-01 050-123-4567" holds one after its date).
func phonesIn(c string) [][2]int {
	if looksLikePhone(c) {
		return [][2]int{{0, len(c)}}
	}
	var words [][2]int
	for i := 0; i < len(c); {
		for i < len(c) && c[i] == ' ' {
			i++
		}
		j := i
		for j < len(c) && c[j] != ' ' {
			j++
		}
		if j > i {
			words = append(words, [2]int{i, j})
		}
		i = j
	}
	var found [][2]int
	for i := 0; i < len(words); i++ {
		for j := len(words) - 1; j >= i; j-- {
			if i == 0 && j == len(words)-1 {
				continue // the whole run, tried above
			}
			from, to := words[i][0], words[j][1]
			if looksLikePhone(c[from:to]) {
				found = append(found, [2]int{from, to})
				i = j
				break
			}
		}
	}
	return found
}

// hasDigits reports whether s holds at least n digits in all.
func hasDigits(s string, n int) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if n--; n == 0 {
				return true
			}
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// looksLikePhone tells a phone number from the other digit runs of a
// training record (dates, sets and reps, weights, times): 9 to 15 digits,
// no date inside, and written as phones are: with a leading + or 0, as
// one long run, or in dash or parenthesis groups of which one has three
// digits or more. "100 100 100" (three sets of 100) is not; "5x5 @ 100kg"
// never gets here.
func looksLikePhone(c string) bool {
	digits, longest, group := 0, 0, 0
	dashed := false
	for i := 0; i < len(c); i++ {
		switch ch := c[i]; {
		case ch >= '0' && ch <= '9':
			digits++
			group++
			longest = max(longest, group)
		default:
			if ch == '-' || ch == '(' || ch == ')' {
				dashed = true
			}
			group = 0
		}
	}
	if digits < 9 || digits > 15 || datePattern.MatchString(c) {
		return false
	}
	first := strings.TrimLeft(c, "(")
	switch {
	case strings.HasPrefix(first, "+"), strings.HasPrefix(first, "0"):
		return true
	case longest >= 7:
		return true
	default:
		return dashed && longest >= 3
	}
}

// HasEmail, HasSecret and HasID report an email address, a key or token of
// Perform's, or an id of any kind inside s: what Text takes out.
func HasEmail(s string) bool  { return emailPattern.MatchString(s) }
func HasSecret(s string) bool { return secretPattern.MatchString(s) }
func HasID(s string) bool     { return idPattern.MatchString(s) }

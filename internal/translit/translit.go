// Package translit matches names across the Hebrew and Latin scripts: "Tamar"
// and "תמר", "Avraham", "Abraham" and "אברהם", "Chen", "Hen" and "חן".
//
// A word's sound keys are its consonant skeletons in one small Latin
// alphabet, whichever script it is written in. Both scripts lose
// information the other keeps, so a word has a few keys, not one:
//
//   - vowels are not written in Hebrew: Latin a, e, i, o, u are dropped,
//     and so are the letters Hebrew uses as vowels when it does (ו, י, a
//     final ה: each gives a key with it and one without) and the silent
//     א and ע;
//   - letters two scripts tell apart the other does not: ב/ו/b/v/w are one
//     sound (b), פ/p/f one (p), ש/ס/s/sh one (s), ט/ת/t/th one (t), ק/k/c/q one
//     (k), ח/ה/h/ch/kh one (h), and כ is k or h (Michal, Malka);
//   - צ is tz/ts (c) or written z; Latin j is ג׳ (g) or י (y, Jonathan).
//
// Doubled letters count once (Hannah, Hadad). Two words are the same name
// when their key sets meet. The alphabet is b c d g h k l m n p r s t y z
// and the digits, which stand for themselves.
package translit

import (
	"slices"
	"strings"
	"unicode"
)

// maxKeys bounds the keys of one word: each ambiguous letter doubles them.
const maxKeys = 32

// Keys are the sound keys of one word, sorted, without repeats; none for
// a word with no consonant (or no letter) in either script.
func Keys(word string) []string {
	rs := clean(word)
	alts := [][]string{{""}}
	for i := 0; i < len(rs); {
		opts, n := unit(rs, i)
		i += n
		if opts == nil {
			continue
		}
		next := make([][]string, 0, len(alts)*len(opts))
		for _, a := range alts {
			for _, o := range opts {
				if len(next) < maxKeys {
					next = append(next, []string{a[0] + o})
				}
			}
		}
		alts = next
	}
	out := make([]string, 0, len(alts))
	for _, a := range alts {
		if k := squeeze(a[0]); k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NameKeys are the keys of every word of name, sorted, without repeats.
func NameKeys(name string) []string {
	var out []string
	for _, w := range Words(name) {
		out = append(out, Keys(w)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Words splits a name into its words: runs of letters, marks and digits (so
// "Ben-David", "בן־דוד" and "O'Neil" split where people expect).
func Words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsMark(r) && !isGeresh(r) && !unicode.IsDigit(r)
	})
}

// Same reports whether two words may be the same name: their keys meet.
func Same(a, b string) bool { return meet(Keys(a), Keys(b)) }

// Matches reports whether every word of query that has keys is the same
// name as some word of name, and at least one word has keys.
func Matches(query, name string) bool {
	var nameKeys [][]string
	for _, w := range Words(name) {
		nameKeys = append(nameKeys, Keys(w))
	}
	matched := false
	for _, q := range Words(query) {
		k := Keys(q)
		if len(k) == 0 {
			continue
		}
		if !slices.ContainsFunc(nameKeys, func(n []string) bool { return meet(k, n) }) {
			return false
		}
		matched = true
	}
	return matched
}

// meet reports whether two sorted key lists share a key.
func meet(a, b []string) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			return true
		case -1:
			i++
		default:
			j++
		}
	}
	return false
}

func isGeresh(r rune) bool { return r == '\'' || r == '׳' || r == '’' || r == '`' }

// clean lower-cases the word, strips Hebrew points and Latin accents, and
// keeps letters and geresh marks only.
func clean(word string) []rune {
	out := make([]rune, 0, len(word))
	for _, r := range strings.ToLower(word) {
		switch {
		case isGeresh(r):
			out = append(out, '\'')
		case r >= 0x0591 && r <= 0x05C7: // niqqud and cantillation
		case r >= 'a' && r <= 'z', r >= 'א' && r <= 'ת', r >= '0' && r <= '9':
			out = append(out, r)
		default:
			if b, ok := accents[r]; ok {
				out = append(out, b)
			}
		}
	}
	return out
}

// accents are the Latin letters with marks people type in names.
var accents = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ä': 'a', 'ã': 'a', 'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ì': 'i', 'î': 'i', 'ï': 'i', 'ó': 'o', 'ò': 'o', 'ô': 'o', 'ö': 'o', 'õ': 'o',
	'ú': 'u', 'ù': 'u', 'û': 'u', 'ü': 'u', 'ç': 'c', 'ñ': 'n', 'ş': 's', 'š': 's', 'ž': 'z', 'č': 'c',
}

// squeeze writes doubled letters once.
func squeeze(s string) string {
	b := []byte(s)
	out := b[:0]
	for i, c := range b {
		if i == 0 || c != b[i-1] {
			out = append(out, c)
		}
	}
	return string(out)
}

var (
	none     = []string{""}
	optional = func(k string) []string { return []string{"", k} }
)

// unit reads the letter (or digraph) at rs[i]: its key options (nil for
// nothing at all) and how many runes it took.
func unit(rs []rune, i int) ([]string, int) {
	r := rs[i]
	next := func(k int) rune {
		if i+k < len(rs) {
			return rs[i+k]
		}
		return 0
	}
	geresh := next(1) == '\''
	last := i == len(rs)-1 || i == len(rs)-2 && geresh
	switch r {
	case '\'':
		return nil, 1
	// Hebrew.
	case 'א', 'ע':
		return none, 1
	case 'ב':
		return []string{"b"}, 1
	case 'ג':
		return []string{"g"}, 1 + btoi(geresh)
	case 'ד':
		return []string{"d"}, 1
	case 'ה':
		if last {
			return optional("h"), 1
		}
		return []string{"h", ""}, 1
	case 'ו':
		switch {
		case next(1) == 'ו': // v, or w in a loanword (סקוואט, squat)
			return []string{"b", ""}, 2
		case i == 0:
			return []string{"b"}, 1
		}
		return optional("b"), 1
	case 'ז':
		return []string{"z"}, 1 + btoi(geresh)
	case 'ח':
		return []string{"h"}, 1
	case 'ט', 'ת':
		return []string{"t"}, 1 + btoi(geresh)
	case 'י':
		if next(1) == 'י' {
			return []string{"y", ""}, 2
		}
		if i == 0 {
			return []string{"y", ""}, 1
		}
		return optional("y"), 1
	case 'כ', 'ך':
		return []string{"k", "h"}, 1
	case 'ל':
		return []string{"l"}, 1
	case 'מ', 'ם':
		return []string{"m"}, 1
	case 'נ', 'ן':
		return []string{"n"}, 1
	case 'ס', 'ש':
		return []string{"s"}, 1
	case 'פ', 'ף':
		return []string{"p"}, 1
	case 'צ', 'ץ':
		if geresh {
			return []string{"h", "c"}, 2
		}
		return []string{"c", "z"}, 1
	case 'ק':
		return []string{"k"}, 1
	case 'ר':
		return []string{"r"}, 1
	}
	// Latin.
	n1 := next(1)
	switch {
	case r == 's' && n1 == 'c' && next(2) == 'h':
		return []string{"s"}, 3
	case r == 's' && n1 == 'h', r == 'z' && n1 == 'h':
		return []string{string(r)}, 2
	case (r == 'c' || r == 'k') && n1 == 'h':
		return []string{"h"}, 2
	case r == 'p' && n1 == 'h':
		return []string{"p"}, 2
	case r == 't' && n1 == 'h':
		return []string{"t"}, 2
	case r == 't' && (n1 == 'z' || n1 == 's'):
		return []string{"c"}, 2
	case r == 'c' && n1 == 'k', r == 'g' && n1 == 'h':
		return []string{string(r)}, 2
	}
	switch r {
	case 'a', 'e', 'i', 'o', 'u':
		return none, 1
	case 'b', 'v', 'w':
		return []string{"b"}, 1
	case 'f', 'p':
		return []string{"p"}, 1
	case 'c', 'k', 'q':
		return []string{"k"}, 1
	case 'j':
		return []string{"y", "g"}, 1
	case 'x':
		return []string{"ks"}, 1
	case 'y':
		if last && i > 0 { // a vowel at the end (Levy, Orly), or a consonant (Shay)
			return optional("y"), 1
		}
		return []string{"y"}, 1
	case 'd', 'g', 'h', 'l', 'm', 'n', 'r', 's', 't', 'z',
		'0', '1', '2', '3', '4', '5', '6', '7', '8', '9': // digits are themselves (VIP2 is not VIP)
		return []string{string(r)}, 1
	}
	return nil, 1
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

package agent

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind answerKind // 0: not an answer
		nums []int
	}{
		{"כן", answerAll, nil},
		{"Yes!", answerAll, nil},
		{" כן, בבקשה ", answerAll, nil},
		{"👍", answerAll, nil},
		{"ok", answerAll, nil},
		{"לא", answerNone, nil},
		{"No.", answerNone, nil},
		{"בטל", answerNone, nil},
		{"1", answerSome, []int{1}},
		{"1 3", answerSome, []int{1, 3}},
		{"3,1,3", answerSome, []int{1, 3}},
		{"1 ו-3", answerSome, []int{1, 3}},
		{"רק 2", answerSome, []int{2}},
		{"כן 2", answerSome, []int{2}},
		{"1 and 2", answerSome, []int{1, 2}},
		{"ו3", answerSome, []int{3}},
		// Not answers: they go to the model.
		{"", 0, nil},
		{"כן אבל תשנה ל-73", 0, nil},
		{"לא 2", 0, nil},
		{"yes no", 0, nil},
		{"72.4", 0, nil},
		{"2026", 0, nil},
		{"0", 0, nil},
		{"מה עם דנה?", 0, nil},
		{"כן " + strings.Repeat("בבקשה ", 20), 0, nil},
	} {
		got, ok := parseAnswer(tc.text)
		if ok != (tc.kind != 0) || got.kind != tc.kind || !slices.Equal(got.nums, tc.nums) {
			t.Errorf("parseAnswer(%q) = %+v, %v; want kind %d nums %v", tc.text, got, ok, tc.kind, tc.nums)
		}
	}
}

// FuzzParseAnswer: any text parses without panicking; an answer is one of
// the three kinds, numbers only with answerSome, ascending, distinct, in
// range; and a text that is too long is never an answer.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"כן", "yes", "לא", "no", "1 3", "1,2,3", "רק 2", "כן 2", "1 ו-3", "👍", "72.4", "לא 2", "מה עם דנה?", "٣", "１", "99", "100", "1\x002", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := parseAnswer(text)
		if !ok {
			if got.kind != 0 || got.nums != nil {
				t.Fatalf("refused %q but answered %+v", text, got)
			}
			return
		}
		if utf8.RuneCountInString(strings.TrimSpace(text)) > maxAnswerRunes {
			t.Fatalf("a %d-rune text was read as an answer", utf8.RuneCountInString(text))
		}
		switch got.kind {
		case answerAll, answerNone:
			if len(got.nums) != 0 {
				t.Fatalf("%q: kind %d with numbers %v", text, got.kind, got.nums)
			}
		case answerSome:
			if len(got.nums) == 0 || !slices.IsSorted(got.nums) || len(slices.Compact(slices.Clone(got.nums))) != len(got.nums) {
				t.Fatalf("%q: numbers %v", text, got.nums)
			}
			for _, n := range got.nums {
				if n < 1 || n > maxProposalNum {
					t.Fatalf("%q: number %d out of range", text, n)
				}
			}
		default:
			t.Fatalf("%q: kind %d", text, got.kind)
		}
	})
}

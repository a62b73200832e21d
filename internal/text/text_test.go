package text

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestProblem(t *testing.T) {
	for _, ok := range []string{"", "Dana", "line one\nline two", "a\tb", "יעל כהן", "😀 emoji", "\ufffd", "50% off_peak", `back\slash "quoted"`} {
		if p := Problem(ok); p != "" {
			t.Errorf("Problem(%q) = %q, want none", ok, p)
		}
	}
	for s, want := range map[string]string{
		"a\x00b":       "U+0000 (NUL)",
		"\x1b[2J":      "U+001B",
		"a\rb":         "U+000D",
		"del\x7f":      "U+007F",
		"c1\u0085":     "U+0085",
		"bad\xffbyte":  "not valid UTF-8",
		"\xed\xa0\x80": "not valid UTF-8", // a surrogate encoded as UTF-8
	} {
		if p := Problem(s); !strings.Contains(p, want) {
			t.Errorf("Problem(%q) = %q, want it to say %q", s, p, want)
		}
	}
}

func TestJSONProblem(t *testing.T) {
	for _, c := range []struct{ raw, at, says string }{
		{`{"title":"ok","note":"a\nb\tc"}`, "", ""},
		{`{"title":"a\u0000b"}`, ".title", "NUL"},
		{`{"title":"\ud800"}`, ".title", "lone surrogate"},
		{`{"title":"\udc00x"}`, ".title", "lone surrogate"},
		{`{"title":"\ud800\u0041"}`, ".title", "lone surrogate"},
		{`{"title":"\ud83d\ude00"}`, "", ""}, // a pair: 😀
		{"{\"title\":\"a\xffb\"}", ".title", "not valid UTF-8"},
		{`{"tags":["x","y\u001b"]}`, ".tags[1]", "U+001B"},
		{`{"fields":[{"key":"a"},{"key":"b","label":"\r"}]}`, ".fields[1].label", "U+000D"},
		{`{"answers":{"a\u0000":1}}`, `.answers["a\\x00"]`, "has a name that holds"},
		{`{"n":1e3,"b":true,"z":null,"s":"\\\"\/"}`, "", ""},
		{`"\u0007"`, "", "U+0007"},
		{"[1, \"\xc3\"]", "[1]", "not valid UTF-8"},
	} {
		at, p := JSONProblem([]byte(c.raw))
		if at != c.at || !strings.Contains(p, c.says) || (c.says == "") != (p == "") {
			t.Errorf("JSONProblem(%s) = %q, %q; want %q, %q", c.raw, at, p, c.at, c.says)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"trn_06h2rr9qjj9rg0t22j6x4h992g": "trn_06h2rr9qjj9rg0t22j6x4h992g",
		"trn_\x00":                       `trn_\x00`,
		"trn_\xff\xfe":                   `trn_\xff\xfe`,
		"trn_\x1b[2J\n2026":              `trn_\x1b[2J\x0a2026`,
		`a\x00`:                          `a\\x00`, // a typed backslash stays distinct from an escaped byte
		"יעל\u0085":                      `יעל\u0085`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzText: Printable always yields acceptable text and leaves clean text
// alone; JSONProblem, reading raw JSON, agrees with Problem on the decoded
// string and never panics on valid JSON.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "Dana", "a\x00b", "\xff", "\\", "\ud7ff", "a\nb\tc\r", "\u2028", `"\ud800"`, `{"a":["\u0000"]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Printable(s)
		if Problem(p) != "" {
			t.Fatalf("Printable(%q) = %q, which the rule refuses: %s", s, p, Problem(p))
		}
		if Problem(s) == "" && !strings.ContainsAny(s, "\\\n\t") && p != s {
			t.Fatalf("Printable changed clean text %q to %q", s, p)
		}
		if utf8.ValidString(s) {
			raw, _ := json.Marshal(s)
			if _, jp := JSONProblem(raw); (jp == "") != (Problem(s) == "") {
				t.Fatalf("%q: JSONProblem of %s says %q, Problem says %q", s, raw, jp, Problem(s))
			}
		}
		if json.Valid([]byte(s)) {
			at, jp := JSONProblem([]byte(s))
			var v any
			_ = json.Unmarshal([]byte(s), &v)
			if jp == "" && at != "" {
				t.Fatalf("JSONProblem(%s) names %q without a problem", s, at)
			}
			if !utf8.ValidString(s) && jp == "" {
				t.Fatalf("JSONProblem(%q) accepts invalid UTF-8", s)
			}
		}
	})
}

func TestJSONLongest(t *testing.T) {
	for _, c := range []struct {
		raw, at string
		n       int
	}{
		{`1`, "", -1},
		{`"ab"`, "", 2},
		{`{"a":"xyz","bb":["q","שלום!"]}`, ".bb[1]", 5},
		{`{"longer-name":1}`, ".longer-name", 11},
	} {
		if at, n := JSONLongest([]byte(c.raw)); at != c.at || n != c.n {
			t.Errorf("JSONLongest(%s) = %q, %d; want %q, %d", c.raw, at, n, c.at, c.n)
		}
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("שלום", 3); got != "ש…" {
		t.Errorf("Truncate cuts a character: %q", got)
	}
	if got := Truncate("short", 60); got != "short" {
		t.Errorf("Truncate short: %q", got)
	}
}

func TestValuesProblem(t *testing.T) {
	for _, c := range []struct {
		v          map[string][]string
		name, says string
	}{
		{map[string][]string{"a": {"x"}, "b": {"y", "z"}}, "", ""},
		{map[string][]string{"a": {"x"}, "b": {"y", "z\x00"}}, "b", "NUL"},
		{map[string][]string{"z": {"\xff"}, "b": {"\x1b"}}, "b", "U+001B"},
		{map[string][]string{"a\x00": {"x"}}, `a\x00`, "has a name that holds the control character U+0000"},
		{map[string][]string{}, "", ""},
	} {
		name, p := ValuesProblem(c.v)
		if name != c.name || !strings.Contains(p, c.says) || (c.says == "") != (p == "") {
			t.Errorf("ValuesProblem(%q) = %q, %q; want %q, %q", c.v, name, p, c.name, c.says)
		}
	}
}

func TestBidiProblem(t *testing.T) {
	for _, ok := range []string{"", "App", "האפליקציה שלי", "تطبيق", "Zero\u200bwidth"} {
		if p := BidiProblem(ok); p != "" {
			t.Errorf("BidiProblem(%q) = %q", ok, p)
		}
	}
	for _, bad := range []string{"a\u202eb", "\u202a", "\u2066x\u2069", "\u200f", "\u200e", "\u061c"} {
		if p := BidiProblem(bad); !strings.Contains(p, "bidirectional control") {
			t.Errorf("BidiProblem(%q) = %q", bad, p)
		}
	}
}

func TestNameProblem(t *testing.T) {
	for _, ok := range []string{"", "App", "Claude Code", "האפליקציה שלי", "تطبيق", "Café ☕", strings.Repeat("א", 100)} {
		if p := NameProblem(ok, 100); p != "" {
			t.Errorf("NameProblem(%q) = %q", ok, p)
		}
	}
	for _, c := range []struct{ name, says string }{
		{"Per\u200bform", "U+200B"}, // zero-width space
		{"Per\u200cform", "U+200C"}, // zero-width non-joiner
		{"Per\u200dform", "U+200D"}, // zero-width joiner
		{"Per\u2060form", "U+2060"}, // word joiner
		{"\ufeffPerform", "U+FEFF"}, // byte order mark
		{"Per\u00adform", "U+00AD"}, // soft hyphen
		{"Perform\U000E0041", "U+E0041"},
		{"Good App\u202egnp.exe", "bidirectional"},
		{"App\u2066x\u2069", "bidirectional"},
		{"App\u200f", "bidirectional"},
		{"App\u061c", "bidirectional"},
		{"two\nlines", "control character U+000A"},
		{"a\tb", "control character U+0009"},
		{"a\u0085b", "control character U+0085"},
		{"a\u2028b", "U+2028"},
		{"a\u2029b", "U+2029"},
		{"a\ue000b", "U+E000"},
		{"a\u3164b", "U+3164"}, // Hangul filler
		{"a\u0000b", "NUL"},
		{"a\xffb", "UTF-8"},
		{strings.Repeat("a", 101), "101 characters long; at most 100"},
		{strings.Repeat("א", 10000), "10000 characters long"},
	} {
		if p := NameProblem(c.name, 100); !strings.Contains(p, c.says) {
			t.Errorf("NameProblem(%q) = %q; want it to say %q", c.name, p, c.says)
		}
	}
}

// FuzzNameProblem: a name NameProblem accepts is text, holds no control,
// format, separator, private-use or default-ignorable character, and is at
// most the maximum long; one it refuses is refused with a sentence tail.
func FuzzNameProblem(f *testing.F) {
	for _, s := range []string{"App", "Per\u200bform", "Good App\u202egnp.exe", "האפליקציה", "a\nb", "\ufeff", strings.Repeat("x", 101), "a\xffb", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := NameProblem(s, 100)
		if p != "" {
			if strings.HasSuffix(p, ".") || strings.TrimSpace(p) != p {
				t.Fatalf("NameProblem(%q) = %q: not a sentence tail", s, p)
			}
			return
		}
		if Problem(s) != "" || BidiProblem(s) != "" || utf8.RuneCountInString(s) > 100 {
			t.Fatalf("NameProblem accepted %q", s)
		}
		for _, r := range s {
			if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Other_Default_Ignorable_Code_Point) {
				t.Fatalf("NameProblem accepted %q with U+%04X", s, r)
			}
		}
	})
}

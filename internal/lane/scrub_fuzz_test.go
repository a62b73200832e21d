package lane

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzScrub: any JSON value and allow list scrub to valid JSON without
// error; scrubbing again changes nothing; no email survives in the text;
// and every field kept sits under a path of the allow list.
func FuzzScrub(f *testing.F) {
	for _, s := range []struct{ json, allow string }{
		{`{"summary":"s","phone":"050-123-4567","items":[{"id":"ses_1","notes":"mail a@b.example"}]}`, "summary,items.id,items.notes"},
		{`{"a":{"b":[{"c":1,"d":[1,2,{"e":null}]}]},"f":"2026-07-01 0541234567"}`, "a.b.d.e,f"},
		{`[{"firstName":"Dana","coaches":[{"name":"Y","id":"coa_1"}]},[],null]`, "firstName,coaches"},
		{`"+972 50 123 4567"`, ""},
		{`{"x":"squat 100 100 100 kg on 2026-07-01T08:00:00Z","y":1.5e3,"z":true}`, "x,y,z"},
		{`{"":{"":""},"a.b":1}`, ",a.b,."},
		{`{"id":"ses_06h346y008j1ak8jzerevqemb0","coachIds":["coa_06h346y008j1ak8jzerevqemb0"],"note":"ask coa_06h346y008j1ak8jzerevqemb0 or pf_live_abcdefgh1234"}`, "id,coachIds,note"},
	} {
		f.Add(s.json, s.allow)
	}
	f.Fuzz(func(t *testing.T, in, allowList string) {
		if !json.Valid([]byte(in)) {
			return
		}
		allow := strings.Split(allowList, ",")
		out, err := scrubJSON([]byte(in), allow, "Yael Cohen")
		if err != nil {
			t.Fatalf("scrub %q: %v", in, err)
		}
		if !json.Valid(out) {
			t.Fatalf("scrub %q answered invalid JSON %q", in, out)
		}
		again, err := scrubJSON(out, allow, "Yael Cohen")
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("scrub is not stable on %q: %q then %q (%v)", in, out, again, err)
		}
		v, _ := parseOrdered(out)
		tree := allowTree(allow)
		checkUnder(t, v, tree, "")
	})
}

// checkUnder fails on a field of v not under an allow path, and on an
// email left in a string.
func checkUnder(t *testing.T, v any, n *allowNode, at string) {
	t.Helper()
	switch x := v.(type) {
	case object:
		for _, m := range x {
			if n == nil || !n.all && n.children[m.key] == nil {
				t.Fatalf("%s.%s kept, not allowed", at, m.key)
			}
			next := n
			if !n.all {
				next = n.children[m.key]
			}
			checkUnder(t, m.val, next, at+"."+m.key)
		}
	case []any:
		for _, e := range x {
			checkUnder(t, e, n, at+"[]")
		}
	case string:
		if emailPattern.MatchString(x) {
			t.Fatalf("%s keeps an email: %q", at, x)
		}
		if secretPattern.MatchString(x) {
			t.Fatalf("%s keeps a key: %q", at, x)
		}
		if idPattern.MatchString(x) && !visibleID(x) {
			t.Fatalf("%s keeps an id in text: %q", at, x)
		}
	}
}

// FuzzRedactText: redaction is stable, leaves no email and never grows
// text that had nothing to redact.
func FuzzRedactText(f *testing.F) {
	for _, s := range []string{
		"call me on 050-123-4567 after 6", "+972 50 123 4567", "(03) 555-1234 or 0541234567.",
		"dana.levi+fit@studio.example.co.il", "2026-07-01T08:00:00Z", "squat 100 100 100 kg",
		"trn_06h346y008j1ak8jzerevqemb0", "on 2026-07-01 050-123-4567", "a@b.co@c.de", "12-12-2026 0 0 0 0 0 0 0 0 0",
		"ask coa_06h346y008j1ak8jzerevqemb0 (key_06h346y008j1ak8jzerevqemb1)", "pf_live_Ab3-x_Yz09 pf_at_abcdefgh@x.example",
		"coa_06h346y008j1ak8jzerevqemb0@studio.example 0501234567",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactText(s)
		if again := RedactText(out); again != out {
			t.Fatalf("RedactText(%q) = %q, then %q", s, out, again)
		}
		if emailPattern.MatchString(out) {
			t.Fatalf("RedactText(%q) = %q keeps an email", s, out)
		}
		if idPattern.MatchString(out) || secretPattern.MatchString(out) {
			t.Fatalf("RedactText(%q) = %q keeps an id or a key", s, out)
		}
		if !strings.Contains(out, Redacted) && out != s {
			t.Fatalf("RedactText(%q) = %q changed text without redacting", s, out)
		}
	})
}

package lane

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/orderedjson"
	"github.com/otherwise/perform/internal/redaction"
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
		v, _ := orderedjson.Parse(out)
		tree := allowTree(allow)
		checkUnder(t, v, tree, "")
	})
}

// checkUnder fails on a field of v not under an allow path, and on an
// email left in a string.
func checkUnder(t *testing.T, v any, n *allowNode, at string) {
	t.Helper()
	switch x := v.(type) {
	case orderedjson.Object:
		for _, m := range x {
			if n == nil || !n.all && n.children[m.Key] == nil {
				t.Fatalf("%s.%s kept, not allowed", at, m.Key)
			}
			next := n
			if !n.all {
				next = n.children[m.Key]
			}
			checkUnder(t, m.Val, next, at+"."+m.Key)
		}
	case []any:
		for _, e := range x {
			checkUnder(t, e, n, at+"[]")
		}
	case string:
		if redaction.HasEmail(x) {
			t.Fatalf("%s keeps an email: %q", at, x)
		}
		if redaction.HasSecret(x) {
			t.Fatalf("%s keeps a key: %q", at, x)
		}
		if redaction.HasID(x) && !visibleID(x) {
			t.Fatalf("%s keeps an id in text: %q", at, x)
		}
	}
}

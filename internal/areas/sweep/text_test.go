package sweep_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// badText is text the lane refuses, each as a JSON string literal (so a
// lone surrogate and raw bytes reach the server as sent) and as the raw
// string for a query or a path.
var badText = []struct{ name, json, raw string }{
	{"NUL", `"a\u0000b"`, "a\x00b"},
	{"invalid UTF-8", "\"a\xffb\"", "a\xffb"},
	{"escape", `"a\u001b[2Jb"`, "a\x1b[2Jb"},
	{"carriage return", `"a\rb"`, "a\rb"},
	{"C1 control", `"a\u0085b"`, "a\u0085b"},
	{"lone surrogate", `"a\ud800b"`, "a\xed\xa0\x80b"},
}

// Query values hold the same rule as a body's strings: every string query
// parameter answers a 422 naming it, on both engines (Postgres used to
// answer 500 and SQLite to match every trainee for q=%00).
func TestQueryTextIsChecked(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("query-text")
		for _, c := range []struct{ path, param string }{
			{"/trainees/search", "q"}, {"/trainees/search", "tag"}, {"/trainees/search", "coachId"},
			{"/tasks", "clientId"}, {"/tasks", "coachId"},
			{"/products", "search"}, {"/program-templates", "search"}, {"/forms", "search"},
		} {
			for _, bad := range badText {
				a := e.Call(f.Key, "GET", c.path+"?"+c.param+"="+url.QueryEscape(bad.raw), nil)
				e.Fails(422, "VALIDATION", a)
				if !slices.Equal(a.Fields(), []string{c.param}) || !strings.Contains(a.Message(), "control characters") {
					t.Errorf("%s?%s=%s: fields %v, %q", c.path, c.param, bad.name, a.Fields(), a.Message())
				}
			}
		}
		// A phone in the path is the phone field.
		for _, bad := range badText {
			a := e.Fails(422, "VALIDATION", e.Call(f.Key, "GET", "/trainees/by-phone/"+url.PathEscape(bad.raw), nil))
			if !slices.Equal(a.Fields(), []string{"phone"}) {
				t.Errorf("by-phone %s: %s", bad.name, a.Raw)
			}
		}
		// A parameter's name holds the rule too: it is answered as the
		// field, shown escaped, never as it was sent.
		for _, c := range []struct{ query, field string }{
			{"q%00x=1", `q\x00x`}, {"z%FF=2", `z\xff`}, {"a%1Bb=1&q=ok", `a\x1bb`},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(f.Key, "GET", "/trainees/search?"+c.query, nil))
			if !slices.Equal(a.Fields(), []string{c.field}) || !strings.Contains(a.Message(), "it has a name that") || strings.ContainsAny(a.Raw, "\x00\x1b\ufffd") || strings.Contains(a.Raw, `\u0000`) {
				t.Errorf("?%s: fields %q, %s", c.query, a.Fields(), a.Raw)
			}
		}
		// "ab" plus a NUL is refused; "ab" alone still searches.
		e.Fails(422, "VALIDATION", e.Call(f.Key, "GET", "/trainees/search?q=ab%00", nil))
		e.OK(200, e.Call(f.Key, "GET", "/trainees/search?q=Dana", nil))
	})
}

// A path id that is not an id (internal/ids) is not found, with the usual
// sentence showing it escaped, whatever bytes it holds: never a 500.
func TestPathIDsThatAreNotIDsAreNotFound(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("path-ids")
		for _, c := range []struct{ method, path string }{
			{"GET", "/trainees/%s"}, {"PATCH", "/trainees/%s"}, {"DELETE", "/trainees/%s"},
			{"GET", "/trainees/%s/weights"}, {"POST", "/trainees/%s/weights"},
			{"POST", "/subscriptions/%s/freeze"}, {"PATCH", "/products/%s"}, {"PATCH", "/coaches/%s"},
			{"DELETE", "/tags/%s"}, {"PATCH", "/tasks/%s"}, {"PATCH", "/keys/%s"}, {"DELETE", "/keys/%s"},
		} {
			prefix := strings.Split(strings.TrimPrefix(c.path, "/"), "/")[0]
			kind := map[string]string{"trainees": "trn", "subscriptions": "sub", "products": "prd", "coaches": "coa", "tags": "tag", "tasks": "tsk", "keys": "key"}[prefix]
			for _, id := range []string{kind + "_%00", kind + "_%FF%FE", kind + "_06h2rr9qjj9rg0t22j6x4h99%00g", kind + "_short"} {
				path := strings.Replace(c.path, "%s", id, 1)
				var body any
				if c.method == "POST" || c.method == "PATCH" {
					body = map[string]any{}
				}
				a := e.Fails(404, "NOT_FOUND", e.Call(f.Key, c.method, path, body, "Idempotency-Key", "k-"+c.method+path))
				if !strings.Contains(a.Message(), "exists in this studio") || strings.ContainsAny(a.Message(), "\x00\ufffd") {
					t.Errorf("%s %s: %q", c.method, path, a.Message())
				}
			}
		}
	})
}

// One caller sending NULs in path ids costs no one an audit row: the
// sender's own rows are kept (escaped), and so are another studio's.
func TestBadPathIDsKeepEveryAuditRow(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		sender, senderKey, _ := e.Studio("sender", "pro")
		other, otherKey, _ := e.Studio("other", "pro")
		for i := range 5 {
			e.Fails(404, "NOT_FOUND", e.Call(senderKey, "GET", "/trainees/trn_%00%FF", nil))
			e.OK(201, e.Call(otherKey, "POST", "/tags", map[string]any{"name": "t" + string(rune('a'+i))}))
		}
		e.Audit.Flush()
		ctx := context.Background()
		mine, err := st.ListAudit(ctx, sender.ID, store.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := st.ListAudit(ctx, other.ID, store.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if mine.Total != 5 || theirs.Total != 5 {
			t.Fatalf("audit rows: sender %d, other %d; want 5 each", mine.Total, theirs.Total)
		}
		if got := mine.Items[0].ResourceID; got != `trn_\x00\xff` {
			t.Errorf("the sender's resource id is stored as %q, want it escaped", got)
		}
	})
}

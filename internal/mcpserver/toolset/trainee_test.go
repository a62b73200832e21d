package toolset

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/ids"
)

func TestRecordPath(t *testing.T) {
	path := recordPath("perform://sessions/", "/sessions/", ids.Session)
	id := ids.New(ids.Session)
	for uri, want := range map[string]string{
		"perform://sessions/" + id:                   "/sessions/" + id,
		"perform://sessions/" + ids.New(ids.Trainee): "",
		"perform://sessions/..":                      "",
		"perform://sessions/" + id + "/x":            "",
		"perform://programs/" + id:                   "",
		"perform://sessions/":                        "",
	} {
		if got := path(uri); got != want {
			t.Errorf("recordPath(%q) = %q; want %q", uri, got, want)
		}
	}
}

// FuzzRecordPath: a URI is either refused or becomes the lane path of one
// valid session id, so nothing a client sends can reach another lane path.
func FuzzRecordPath(f *testing.F) {
	f.Add("perform://sessions/" + ids.New(ids.Session))
	f.Add("perform://sessions/../trainees")
	f.Add("perform://sessions/ses_%2e%2e")
	f.Add("perform://programs/prg_x")
	path := recordPath("perform://sessions/", "/sessions/", ids.Session)
	f.Fuzz(func(t *testing.T, uri string) {
		p := path(uri)
		if p == "" {
			return
		}
		id, ok := strings.CutPrefix(p, "/sessions/")
		if !ok || !ids.Valid(id, ids.Session) || uri != "perform://sessions/"+id {
			t.Fatalf("recordPath(%q) = %q", uri, p)
		}
	})
}

func TestMatchBenchmark(t *testing.T) {
	all := pull{what: "Benchmarks", data: json.RawMessage(`{"items":[{"name":"Back squat 1RM","best":120},{"name":"Back squat 5RM","best":100},{"name":"5 km run","best":1500}]}`)}
	if got := matchBenchmark(all, "back squat 1rm"); got.err != "" || !strings.Contains(string(got.data), "120") || strings.Contains(string(got.data), "5RM") {
		t.Errorf("an exact name: %+v", got)
	}
	if got := matchBenchmark(all, "squat"); got.err != "" || !strings.Contains(string(got.data), "1RM") || !strings.Contains(string(got.data), "5RM") || strings.Contains(string(got.data), "run") {
		t.Errorf("part of a name: %+v", got)
	}
	if got := matchBenchmark(all, "Deadlift"); got.err == "" || !strings.Contains(got.err, "5 km run") {
		t.Errorf("an unknown name: %+v", got)
	}
	if got := matchBenchmark(pull{what: "Benchmarks", data: json.RawMessage(`{"items":[]}`)}, "x"); !strings.Contains(got.err, "none is recorded") {
		t.Errorf("no benchmarks: %+v", got)
	}
	failed := pull{what: "Benchmarks", err: "This connection lacks training:read."}
	if got := matchBenchmark(failed, "x"); got.err != failed.err {
		t.Errorf("a failed pull: %+v", got)
	}
}

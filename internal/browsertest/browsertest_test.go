package browsertest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/browsertest"
)

// TestMissingBrowser runs a browser test, in a child process, with no
// browser to find: it skips saying why, and under CI=true it fails.
func TestMissingBrowser(t *testing.T) {
	if os.Getenv("BROWSERTEST_CHILD") == "1" {
		browsertest.New(t)
		t.Log("started a browser")
		return
	}
	for _, tc := range []struct {
		ci      string
		fails   bool
		outcome string
	}{{"", false, "--- SKIP"}, {"true", true, "--- FAIL"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingBrowser$", "-test.v")
		cmd.Env = append(os.Environ(), "BROWSERTEST_CHILD=1", browsertest.PathEnv+"=/nonexistent/chromium", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fails || !strings.Contains(string(out), tc.outcome) || !strings.Contains(string(out), "no Chromium found") {
			t.Fatalf("CI=%q: err %v, want %s with the reason:\n%s", tc.ci, err, tc.outcome, out)
		}
	}
}

// TestBrowser starts the browser and reads a page it is given.
func TestBrowser(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>t</title><p id="p">שלום hello</p>`)
	}))
	defer srv.Close()
	b := browsertest.New(t)
	b.Open(srv.URL)
	if !b.Has("#p") || b.Has("#missing") {
		t.Fatal("Has does not see the page's elements")
	}
	b.MustShow("שלום hello")
}

// TestCheckLayout: the layout check finds what it looks for on a page
// made to have it (a table wider than a phone, a button spilling out of
// its card, a button and a link on its own line under 44 px), and nothing
// on a page without it (a link inside a sentence is text, not a target).
func TestCheckLayout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/bad" {
			io.WriteString(w, `<!doctype html><html lang="en" dir="ltr"><meta name="viewport" content="width=device-width, initial-scale=1">
<main><div class="card" style="width:200px"><table style="width:900px"><tr><td>wide</td><td><button style="height:30px;margin-left:700px">Disconnect</button></td></tr></table></div>
<p><a href="/login">Ask for a new code</a></p></main>`)
			return
		}
		io.WriteString(w, `<!doctype html><html lang="he" dir="rtl"><meta name="viewport" content="width=device-width, initial-scale=1">
<main><div class="card"><button style="min-height:44px;width:100%">ניתוק</button></div>
<p>קראו את <a href="/terms">התנאים</a> לפני.</p><p><a href="/login" style="display:inline-flex;min-height:44px">קוד חדש</a></p></main>`)
	}))
	defer srv.Close()
	b := browsertest.New(t)
	b.Size(390, 844)
	b.Open(srv.URL + "/bad")
	bad := b.CheckLayout()
	if bad.ScrollWidth <= bad.InnerWidth {
		t.Errorf("a 900 px table in a 390 px window: scrollWidth %d, innerWidth %d", bad.ScrollWidth, bad.InnerWidth)
	}
	problems := strings.Join(bad.Problems, "\n")
	for _, want := range []string{"under 44", "spills out of its div.card", "runs off the screen", `a "Ask for a new code" is`} {
		if !strings.Contains(problems, want) {
			t.Errorf("the problems lack %q:\n%s", want, problems)
		}
	}
	b.Open(srv.URL + "/good")
	good := b.CheckLayout()
	if good.Lang != "he" || good.Dir != "rtl" || good.ScrollWidth > good.InnerWidth || len(good.Problems) > 0 {
		t.Errorf("a good page: %+v", good)
	}
}

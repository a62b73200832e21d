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

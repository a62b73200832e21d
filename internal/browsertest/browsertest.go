// Package browsertest drives a headless Chromium from Go tests (chromedp),
// for the server-side pages: sign-in, consent, connected apps.
//
// Locally a test skips, saying so, when no Chromium is installed
// (apt-get install -y chromium); under CI=true it fails instead, so a
// browser test can never pass by not running. .ci/run installs Chromium.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// PathEnv names a variable that points at the browser to use.
const PathEnv = "PERFORM_CHROMIUM"

// Path finds Chromium: $PERFORM_CHROMIUM when set (and only there), else
// /usr/bin/chromium, then chromium, chromium-browser or google-chrome on
// PATH.
func Path() (string, bool) {
	if p := os.Getenv(PathEnv); p != "" {
		st, err := os.Stat(p)
		return p, err == nil && !st.IsDir()
	}
	if st, err := os.Stat("/usr/bin/chromium"); err == nil && !st.IsDir() {
		return "/usr/bin/chromium", true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// Timeout bounds one browser test from start to end.
const Timeout = 90 * time.Second

// Browser is one headless Chromium with a profile of its own (its own
// cookies), closed when the test ends.
type Browser struct {
	t   testing.TB
	ctx context.Context
}

// New starts the browser for t, or skips t (fails it under CI=true) when
// there is none.
func New(t testing.TB) *Browser {
	t.Helper()
	path, ok := Path()
	if !ok {
		msg := "no Chromium found (set " + PathEnv + " or apt-get install -y chromium); the browser tests need it"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		// Containers run tests as root, where Chromium's sandbox cannot start.
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(412, 915), // a phone's screen
	)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), Timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	// Start it now, so a browser that cannot start fails here, clearly.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	return &Browser{t: t, ctx: bctx}
}

// Context is the chromedp context, for actions the helpers do not cover.
func (b *Browser) Context() context.Context { return b.ctx }

// Open loads url and waits for the page.
func (b *Browser) Open(url string) {
	b.t.Helper()
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Navigate(url)); err != nil {
		b.t.Fatalf("open %s: %v", url, err)
	}
}

// Type types text into the element css selects, once it is visible.
func (b *Browser) Type(css, text string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.WaitVisible(chromedp.CSS(css)), chromedp.SendKeys(chromedp.CSS(css), text)); err != nil {
		b.t.Fatalf("type into %s: %v", css, err)
	}
}

// Click clicks the element css selects (a submit button, a link) and waits
// for the page it leads to.
func (b *Browser) Click(css string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.WaitVisible(chromedp.CSS(css))); err != nil {
		b.t.Fatalf("find %s: %v", css, err)
	}
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(css))); err != nil {
		b.t.Fatalf("click %s: %v", css, err)
	}
}

// URL is the page's address.
func (b *Browser) URL() string {
	b.t.Helper()
	u, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatalf("read the location: %v", err)
	}
	return u
}

// Text is the text the page shows.
func (b *Browser) Text() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		b.t.Fatalf("read the page: %v", err)
	}
	return s
}

// Has reports whether css selects anything on the page now.
func (b *Browser) Has(css string) bool {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, css)))
	if err != nil {
		b.t.Fatalf("query %s: %v", css, err)
	}
	return n > 0
}

// MustShow fails the test unless the page's text holds each of want.
func (b *Browser) MustShow(want ...string) {
	b.t.Helper()
	text := b.Text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			b.t.Fatalf("the page at %s does not show %q; it shows:\n%s", b.URL(), w, text)
		}
	}
}

// Package browsertest drives a headless Chromium from Go tests (chromedp),
// for the server-side pages: sign-in, consent, connected apps.
//
// Locally a test skips, saying so, when no Chromium is installed
// (apt-get install -y chromium); under CI=true it fails instead, so a
// browser test can never pass by not running. .ci/run installs Chromium.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// Size sets the page's viewport to width × height CSS pixels (1280 a
// desktop, 390 a phone); the open page lays itself out again.
func (b *Browser) Size(width, height int) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		b.t.Fatalf("set the viewport to %d×%d: %v", width, height, err)
	}
}

// Eval is the value of a JavaScript expression on b's page.
func Eval[T any](b *Browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// Screenshot saves the whole page as a PNG in dir (created if need be)
// under name, and answers the file's path. It stretches the viewport to
// the page's height for the shot and back after (Chromium's shot beyond
// the viewport shifts a right-to-left page sideways). With no dir it takes
// none and answers "" (a shot and its PNG cost the CPU of a page load).
func (b *Browser) Screenshot(dir, name string) string {
	b.t.Helper()
	if dir == "" {
		return ""
	}
	width, height := Eval[int](b, `innerWidth`), Eval[int](b, `innerHeight`)
	full := max(Eval[int](b, `document.documentElement.scrollHeight`), height)
	b.Size(width, full)
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	b.Size(width, height)
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	return path
}

// ScreenshotDir is where a test keeps its screenshots:
// $PERFORM_SCREENSHOTS (CI sets it and keeps that directory as an
// artifact); "" when unset, and Screenshot then takes none.
func ScreenshotDir() string {
	return os.Getenv("PERFORM_SCREENSHOTS")
}

// Layout is what CheckLayout measured of a page.
type Layout struct {
	Lang, Dir   string
	ScrollWidth int
	InnerWidth  int
	// Problems are sentences, one for each element out of place: a
	// button outside its card, form or page, a touch target under 44 px.
	Problems []string
}

// layoutJS measures the page: the document's width against the window's,
// every button, field, navigation link and link on a line of its own
// against its card (.card, else its form, else main) and against the
// 44 px a finger needs.
const layoutJS = `(() => {
  const out = {Lang: document.documentElement.lang, Dir: document.documentElement.dir,
    ScrollWidth: document.documentElement.scrollWidth, InnerWidth: window.innerWidth, Problems: []};
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + " \"" + (el.innerText || el.value || el.getAttribute("href") || "").trim().slice(0, 30) + "\"";
  // A link on a line of its own ("new code", "connected apps") is a tap
  // target too; a link inside a sentence is text, and exempt.
  const alone = a => { const p = a.parentElement; return !!p && !a.closest("header, footer") && p.innerText.trim() === a.innerText.trim(); };
  const targets = [...document.querySelectorAll("button, input:not([type=hidden]):not([type=radio]), select, header a, footer a"),
    ...[...document.querySelectorAll("main a")].filter(alone)];
  for (const el of targets) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.height < 44) out.Problems.push(name(el) + " is " + r.height.toFixed(1) + " px high, under 44");
    if (r.left < -0.5 || r.right > window.innerWidth + 0.5) out.Problems.push(name(el) + " runs off the screen (" + r.left.toFixed(1) + " to " + r.right.toFixed(1) + ")");
    const box = el.closest(".card") || el.closest("form") || el.closest("main, header, footer");
    if (box) {
      const b = box.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5)
        out.Problems.push(name(el) + " spills out of its " + box.tagName.toLowerCase() + (box.className ? "." + box.className : ""));
    }
  }
  return JSON.stringify(out);
})()`

// CheckLayout measures the page now shown.
func (b *Browser) CheckLayout() Layout {
	b.t.Helper()
	var l Layout
	if err := json.Unmarshal([]byte(Eval[string](b, layoutJS)), &l); err != nil {
		b.t.Fatalf("read the layout: %v", err)
	}
	return l
}

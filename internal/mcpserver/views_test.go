package mcpserver_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/browsertest"
	"github.com/otherwise/perform/internal/demo"
	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/views"
)

//go:embed testdata/viewhost.html
var viewHost string

// hostile is a name a person could type that is HTML: every view must
// show it as text.
const hostile = `<img src=x onerror=alert(1)>`

// ViewDocsEnv names a directory the views test writes two screenshots per
// view to (the demo studio in English, light, and NAME-he in Hebrew,
// dark): docs/views for the README.
const ViewDocsEnv = "PERFORM_VIEW_DOCS"

// viewHostContexts are the two hosts a view is drawn in: English in a light
// theme, and Hebrew (right to left) in a dark one whose style variables
// set the background the view must use.
var viewHostContexts = []map[string]any{
	{"theme": "light", "locale": "en-US", "displayMode": "inline", "platform": "web",
		"styles": map[string]any{"variables": map[string]any{"--color-background-primary": "rgb(255, 255, 255)", "--font-sans": "Arial, sans-serif"}}},
	{"theme": "dark", "locale": "he-IL", "displayMode": "inline", "platform": "web",
		"styles": map[string]any{"variables": map[string]any{"--color-background-primary": "rgb(20, 22, 26)", "--color-text-primary": "rgb(236, 238, 241)"}}},
}

// drawn is what a view drew, as the host page reads it.
type drawn struct {
	Dir, Lang, Text     string
	Imgs, Points, PRs   int
	Metrics, Benchmarks int
	Trainees            []string
	Days                []struct {
		Day           string
		Planned, Done int
	}
	Numbers, LTRNumbers int
	Background          string
	Headings            []string
}

// viewHostPage is the host's browser: Chromium on the test host page,
// recording every script error, console error and dialog of the page and
// its frames.
type viewHostPage struct {
	b    *browsertest.Browser
	mu   sync.Mutex
	errs []string
}

func newViewHostPage(t *testing.T) *viewHostPage {
	b := browsertest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(viewHost))
	}))
	t.Cleanup(srv.Close)
	h := &viewHostPage{b: b}
	err := chromedp.Listen(b.Context(), func(ev any) {
		h.mu.Lock()
		defer h.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			what := d.Text
			if d.Exception != nil {
				what += " " + d.Exception.Description
			}
			h.errs = append(h.errs, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, what))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				h.errs = append(h.errs, "console error: "+strings.Join(args, " "))
			}
		case *page.EventJavascriptDialogOpening:
			h.errs = append(h.errs, "dialog: "+ev.Message)
			go func() {
				_, _ = chromedp.Call(b.Context(), page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{})
			}()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	b.Open(srv.URL)
	b.Size(480, 900)
	return h
}

// show draws the view html in the host with host context ctx and the tool
// result res, and answers what it drew.
func (h *viewHostPage) show(t *testing.T, html string, ctx, args map[string]any, res *mcp.CallToolResult) drawn {
	t.Helper()
	arg := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	expr := fmt.Sprintf("show(%s, %s, %s, %s)", arg(html), arg(ctx), arg(args), arg(res))
	log, err := chromedp.Run(h.b.Context(), chromedp.Evaluate[[]string](expr, func(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }))
	if err != nil {
		t.Fatalf("the host could not show the view: %v", err)
	}
	if len(log) < 3 || log[0] != "ui/initialize" || log[1] != "ui/notifications/initialized" {
		t.Fatalf("the view sent %v; want ui/initialize, then ui/notifications/initialized, then its size", log)
	}
	var d drawn
	if err := json.Unmarshal([]byte(browsertest.Eval[string](h.b, "drawn()")), &d); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.errs) > 0 {
		t.Errorf("the view's page reported errors: %v", h.errs)
		h.errs = nil
	}
	return d
}

// viewClient connects to endpoint as an MCP Apps host does: it declares
// the extension with the views' MIME type.
func viewClient(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(views.Extension, map[string]any{"mimeTypes": []string{views.MIMEType}})
	client := mcp.NewClient(&mcp.Implementation{Name: "perform-view-host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// viewOf is the view a host shows for tool: the one its _meta names in
// tools/list (both keys), read with resources/read.
func viewOf(t *testing.T, cs *mcp.ClientSession, tool string) (uri, html string) {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name != tool {
			continue
		}
		ui, _ := tl.Meta["ui"].(map[string]any)
		uri, _ = ui["resourceUri"].(string)
		if flat, _ := tl.Meta["ui/resourceUri"].(string); uri == "" || flat != uri {
			t.Fatalf("%s's _meta = %v; want ui.resourceUri and the same ui/resourceUri", tool, tl.Meta)
		}
	}
	if uri == "" {
		t.Fatalf("tools/list has no %s", tool)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != views.MIMEType || res.Contents[0].URI != uri {
		t.Fatalf("resources/read %s: %v (%v)", uri, res, err)
	}
	return uri, res.Contents[0].Text
}

// call calls tool and answers its result and the structuredContent the
// view draws, decoded.
func callForView(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res := mcptest.Call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s: %s", tool, mcptest.Text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatalf("%s: structuredContent %s", tool, b)
	}
	return res, data
}

// viewCase is one tool whose answer a view draws, and what the view must
// show of that answer.
type viewCase struct {
	view, tool string
	args       map[string]any
	check      func(t *testing.T, data map[string]any, d drawn, locale string)
}

func list(data map[string]any, key string) []map[string]any {
	var out []map[string]any
	items, _ := data[key].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// viewCases are the four views with the checks of what each drew.
func viewCases(traineeID, week string) []viewCase {
	return []viewCase{
		{views.BodyTrend, "get_body_analysis", map[string]any{"traineeId": traineeID, "from": time.Now().AddDate(0, 0, -120).Format(time.DateOnly), "to": time.Now().Format(time.DateOnly)},
			func(t *testing.T, data map[string]any, d drawn, locale string) {
				metrics, points := list(data, "metrics"), 0
				for _, m := range metrics {
					trend, _ := m["trend"].([]any)
					points += len(trend)
				}
				if len(metrics) == 0 || d.Metrics != len(metrics) || d.Points != points {
					t.Errorf("drew %d metrics and %d points; the answer has %d and %d", d.Metrics, d.Points, len(metrics), points)
				}
				want := map[string]string{"en-US": "Weight", "he-IL": "משקל"}[locale]
				if len(d.Headings) == 0 || d.Headings[0] != want {
					t.Errorf("headings %v; want the first to be %q", d.Headings, want)
				}
			}},
		{views.Benchmarks, "get_trainee_benchmarks", map[string]any{"traineeId": traineeID, "limit": 4},
			func(t *testing.T, data map[string]any, d drawn, _ string) {
				items, points, prs := list(data, "items"), 0, 0
				for _, b := range items {
					for _, e := range list(b, "recent") {
						points++
						if e["pr"] == true {
							prs++
						}
					}
					if !strings.Contains(d.Text, b["name"].(string)) {
						t.Errorf("the view does not show the benchmark %q", b["name"])
					}
				}
				if len(items) == 0 || prs == 0 || d.Benchmarks != len(items) || d.Points != points || d.PRs != prs {
					t.Errorf("drew %d benchmarks, %d points, %d PR rings; the answer has %d, %d and %d", d.Benchmarks, d.Points, d.PRs, len(items), points, prs)
				}
			}},
		{views.WeekAdherence, "get_weekly_debrief", map[string]any{"traineeId": traineeID, "week": week},
			func(t *testing.T, data map[string]any, d drawn, locale string) {
				planned, done := 0, 0
				for _, day := range d.Days {
					planned += day.Planned
					done += day.Done
				}
				if len(d.Days) != 7 || d.Days[0].Day != data["from"] || float64(planned) != data["planned"] || float64(done) != data["completed"] {
					t.Errorf("drew days %+v (%d planned, %d done); the answer has %v planned, %v completed from %v", d.Days, planned, done, data["planned"], data["completed"], data["from"])
				}
				if want := map[string]string{"en-US": "done", "he-IL": "בוצעו"}[locale]; !strings.Contains(d.Text, want) {
					t.Errorf("the view does not say %q:\n%s", want, d.Text)
				}
			}},
		{views.Triage, "needs_attention", map[string]any{"limit": 6},
			func(t *testing.T, data map[string]any, d drawn, locale string) {
				var want, messages []string
				missed := false
				for _, a := range list(data, "items") {
					want = append(want, strings.TrimSpace(fmt.Sprint(a["firstName"], " ", a["lastName"])))
					for _, r := range list(a, "reasons") {
						messages = append(messages, r["message"].(string))
						missed = missed || r["code"] == "missed_sessions"
					}
				}
				if len(want) == 0 || strings.Join(d.Trainees, "|") != strings.Join(want, "|") {
					t.Errorf("drew trainees %q; the answer ranks %q", d.Trainees, want)
				}
				// English shows the lane's sentences; Hebrew says each reason
				// from its numbers, and the summary from the counts.
				for _, m := range messages {
					if shown := strings.Contains(d.Text, m); shown != (locale == "en-US") {
						t.Errorf("%s: the sentence %q shown: %v", locale, m, shown)
					}
				}
				if locale == "he-IL" {
					// Missed sessions are this week's: on its first day (a
					// Sunday, in the demo's Israeli studio) there are none.
					for _, s := range []string{"המתאמנים הפעילים צריכים תשומת לב", "הוחמצו השבוע"} {
						if s == "הוחמצו השבוע" && !missed {
							continue
						}
						if !strings.Contains(d.Text, s) {
							t.Errorf("the Hebrew view does not say %q:\n%s", s, d.Text)
						}
					}
				} else if !strings.Contains(d.Text, data["summary"].(string)) {
					t.Errorf("the view does not show the summary %q:\n%s", data["summary"], d.Text)
				}
			}},
	}
}

// Each view, drawn by a minimal MCP Apps host in Chromium with a real tool
// result from Perform's /mcp on the demo studio: the handshake, what it
// drew against the answer, the host's locale (English; Hebrew right to
// left with numbers left to right) and theme variables, and no script
// error. Screenshots go to $PERFORM_SCREENSHOTS (and with
// PERFORM_VIEW_DOCS=docs/views, the English ones to the docs).
func TestViewsInAnMCPAppsHost(t *testing.T) {
	t.Parallel()
	host := newViewHostPage(t)
	st, studio := demotest.Open(t)
	f := mcptest.NewOn(t, st)
	cs := viewClient(t, f.URL+mcptest.GatedPath, mcptest.NewKeyFor(t, st, demo.Slug))
	init := cs.InitializeResult()
	if _, ok := init.Capabilities.Extensions[views.Extension]; !ok {
		t.Fatalf("the server's capabilities %+v do not declare %s", init.Capabilities, views.Extension)
	}
	traineeID := busiestTrainee(t, st.Studio(studio.ID))
	shots, docs := browsertest.ScreenshotDir(), os.Getenv(ViewDocsEnv)
	for _, c := range viewCases(traineeID, time.Now().AddDate(0, 0, -7).Format(time.DateOnly)) {
		uri, html := viewOf(t, cs, c.tool)
		if uri != c.view {
			t.Fatalf("%s names the view %s, want %s", c.tool, uri, c.view)
		}
		res, data := callForView(t, cs, c.tool, c.args)
		for _, hc := range viewHostContexts {
			locale := hc["locale"].(string)
			t.Run(c.tool+"/"+locale, func(t *testing.T) {
				d := host.show(t, html, hc, c.args, res)
				c.check(t, data, d, locale)
				wantDir := map[string]string{"en-US": "ltr", "he-IL": "rtl"}[locale]
				if d.Dir != wantDir || d.Lang != locale || d.Imgs != 0 || d.Numbers == 0 || d.LTRNumbers != d.Numbers {
					t.Errorf("dir %q lang %q, %d img, %d of %d numbers left to right; want %s %s, none, all", d.Dir, d.Lang, d.Imgs, d.LTRNumbers, d.Numbers, wantDir, locale)
				}
				if bg := hc["styles"].(map[string]any)["variables"].(map[string]any)["--color-background-primary"]; d.Background != bg {
					t.Errorf("the view's background is %s; the host's variable says %s", d.Background, bg)
				}
				// A short viewport: the shot is as high as the view.
				name := strings.TrimPrefix(c.view, "ui://perform/")
				host.b.Size(480, 100)
				if shot := host.b.Screenshot(shots, "view-"+name+"-"+locale); shot != "" {
					t.Logf("screenshot %s", shot)
				}
				if docs != "" {
					t.Logf("screenshot for the docs %s", host.b.Screenshot(docs, name+map[string]string{"he-IL": "-he"}[locale]))
				}
				host.b.Size(480, 900)
			})
		}
	}
}

// A name a person typed as HTML is drawn as text in every view, by the
// coach's tools and by the trainee's (whose answers the lane scrubs): no
// element is made of it and no script of it runs.
func TestViewsDrawHostileNamesAsText(t *testing.T) {
	t.Parallel()
	host := newViewHostPage(t)
	f := mcptest.New(t)
	key := f.A.Key
	id := f.Create(t, key, "/trainees", map[string]any{"firstName": hostile, "lastName": "Levi", "phone": "0541112233"})
	now := time.Now().UTC()
	for i, kg := range []float64{82, 81.4, 80.9} {
		f.Create(t, key, "/trainees/"+id+"/weights", map[string]any{"weightKg": kg, "recordedAt": now.AddDate(0, 0, 7*(i-2)).Format(time.RFC3339)})
	}
	for i, v := range []float64{100, 95, 105} {
		f.Create(t, key, "/trainees/"+id+"/benchmarks", map[string]any{"name": hostile, "unit": "kg", "direction": "higher", "value": v, "recordedAt": now.AddDate(0, 0, 7*(i-2)).Format(time.RFC3339)})
	}
	f.Create(t, key, "/trainees/"+id+"/workouts", map[string]any{"sport": "strength", "title": hostile, "durationMin": 40})
	f.Create(t, key, "/trainees/"+id+"/injuries", map[string]any{"area": "knee", "severity": 2, "notes": hostile})

	coach := viewClient(t, f.URL+mcptest.GatedPath, key)
	trainee := viewClient(t, f.URL+mcptest.GatedPath, f.TraineeToken(t, f.A, id, ""))
	week := now.Format(time.DateOnly)
	calls := []struct {
		cs         *mcp.ClientSession
		door, tool string
		args       map[string]any
	}{
		{coach, "coach", "get_body_analysis", map[string]any{"traineeId": id}},
		{coach, "coach", "get_trainee_benchmarks", map[string]any{"traineeId": id}},
		{coach, "coach", "get_weekly_debrief", map[string]any{"traineeId": id, "week": week}},
		{coach, "coach", "needs_attention", map[string]any{}},
		{trainee, "trainee", "get_benchmarks", map[string]any{}},
		{trainee, "trainee", "get_weekly_debrief", map[string]any{"week": week}},
		{trainee, "trainee", "get_body_analysis", map[string]any{}},
	}
	for _, c := range calls {
		_, html := viewOf(t, c.cs, c.tool)
		res, data := callForView(t, c.cs, c.tool, c.args)
		t.Run(c.door+"/"+c.tool, func(t *testing.T) {
			d := host.show(t, html, viewHostContexts[0], c.args, res)
			if d.Imgs != 0 {
				t.Errorf("the view made %d img elements of the name", d.Imgs)
			}
			// The trainee's body analysis carries no name (the lane keeps
			// only from, to and metrics for her); every other answer does.
			named := !(c.door == "trainee" && c.tool == "get_body_analysis")
			if named != strings.Contains(d.Text, hostile) {
				t.Errorf("shows the name as text: %v, want %v; the view shows:\n%s", !named, named, d.Text)
			}
			if !named {
				if _, leaked := data["name"]; leaked {
					t.Errorf("the trainee's body analysis carries a name: %v", data)
				}
				if d.Metrics == 0 || d.Points == 0 {
					t.Errorf("the trainee's body view drew %d metrics, %d points", d.Metrics, d.Points)
				}
			}
		})
	}
}

// busiestTrainee is the demo trainee with the most benchmarks that has
// weigh-ins, for views with much to draw.
func busiestTrainee(t *testing.T, ss store.StudioStore) string {
	t.Helper()
	ctx := context.Background()
	l, err := ss.SearchTrainees(ctx, store.TraineeFilter{Status: domain.TraineeActive, Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	best, most := "", -1
	for _, tr := range l.Items {
		bs, err := ss.ListBenchmarks(ctx, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(bs) > most && tr.WeightKg != nil {
			best, most = tr.ID, len(bs)
		}
	}
	if best == "" {
		t.Fatal("the demo studio has no trainee with benchmarks and weigh-ins")
	}
	return best
}

// A client that does not declare the MCP Apps extension (the Go SDK's
// plain client) gets every tool with a view and the same complete answer:
// the text content is the whole data (the summary and the figures a view
// draws), equal to structuredContent.
func TestViewToolsAnswerPlainClientsInFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, studio := demotest.Open(t)
	f := mcptest.NewOn(t, st)
	cs := mcptest.Connect(t, f.URL+mcptest.GatedPath, mcptest.NewKeyFor(t, st, demo.Slug))
	traineeID := busiestTrainee(t, st.Studio(studio.ID))
	for _, c := range viewCases(traineeID, time.Now().AddDate(0, 0, -7).Format(time.DateOnly)) {
		res := mcptest.Call(t, cs, c.tool, c.args)
		text := mcptest.Text(res)
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %d contents, error %v: %s", c.tool, len(res.Content), res.IsError, text)
		}
		var fromText, structured map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal([]byte(text), &fromText) != nil || json.Unmarshal(b, &structured) != nil || !jsonEqual(fromText, structured) {
			t.Errorf("%s: the text is not the whole answer:\ntext %s\nstructured %s", c.tool, text, b)
		}
		var want []string
		switch c.tool {
		case "get_body_analysis":
			want = []string{`"metric":"weightKg"`, `"latest"`, `"change"`, `"trend"`}
		case "get_trainee_benchmarks":
			want = []string{`"best"`, `"recent"`, `"pr":true`}
		case "get_weekly_debrief":
			want = []string{`"summary"`, `"planned"`, `"completed"`, `"sessions"`}
		case "needs_attention":
			want = []string{`"summary"`, `"score"`, `"reasons"`}
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the text lacks %s: %s", c.tool, w, text)
			}
		}
	}
	// tools/list and resources/list are the same for a plain client: the
	// views are there for a host that draws them, and cost nothing else.
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	with := 0
	for _, tl := range list.Tools {
		if tl.Meta["ui/resourceUri"] != nil {
			with++
		}
	}
	if with != 4 {
		t.Errorf("%d coach tools name a view, want 4", with)
	}
}

package views_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/views"
)

// Every view is one self-contained document: its script and styles
// inline, nothing fetched from anywhere, data set as text only.
func TestViewsAreSelfContained(t *testing.T) {
	t.Parallel()
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|<script[^>]+src=|<link[^>]+href=|@import|url\(|fetch\(|XMLHttpRequest|WebSocket|EventSource`)
	for _, v := range views.All() {
		if !strings.HasPrefix(v.URI, "ui://perform/") || v.Name == "" || v.Title == "" || v.Description == "" {
			t.Errorf("view %+v lacks an address, name, title or description", v.URI)
		}
		h := v.HTML
		if !strings.HasPrefix(h, "<!doctype html>") || strings.Count(h, "<script>") != 1 || strings.Count(h, "</script>") != 1 || !strings.Contains(h, "App.start(") {
			t.Errorf("%s is not one document with one inline script that starts the view", v.URI)
		}
		// The SVG namespace is an identifier, not an address.
		if m := external.FindString(strings.ReplaceAll(h, "http://www.w3.org/2000/svg", "")); m != "" {
			t.Errorf("%s reaches outside itself: %q", v.URI, m)
		}
		for _, unsafe := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
			if strings.Contains(h, unsafe) {
				t.Errorf("%s uses %s; a view sets data as text only", v.URI, unsafe)
			}
		}
		if !strings.Contains(h, "Content-Security-Policy") || !strings.Contains(h, "default-src 'none'") {
			t.Errorf("%s has no policy of its own", v.URI)
		}
		if got, ok := views.ByURI(v.URI); !ok || got.HTML != h {
			t.Errorf("ByURI(%s) does not find it", v.URI)
		}
	}
}

// Each view is named by the tools of its route, the coach's and the
// trainee's, and every name a tool carries is a view.
func TestEveryToolViewIsAView(t *testing.T) {
	t.Parallel()
	used := map[string][]string{}
	for _, set := range [][]tools.Tool{tools.All(), tools.Trainee(), tools.Platform()} {
		for _, tl := range set {
			if tl.View == "" {
				continue
			}
			if _, ok := views.ByURI(tl.View); !ok {
				t.Errorf("%s names the view %s, which does not exist", tl.Name, tl.View)
			}
			if !slices.Contains(used[tl.View], tl.Name) {
				used[tl.View] = append(used[tl.View], tl.Name)
			}
		}
	}
	want := map[string][]string{
		views.BodyTrend:     {"get_body_analysis"},
		views.Benchmarks:    {"get_trainee_benchmarks", "get_benchmarks"},
		views.WeekAdherence: {"get_weekly_debrief"},
		views.Triage:        {"needs_attention"},
	}
	for uri, names := range want {
		if !slices.Equal(used[uri], names) {
			t.Errorf("%s is named by %v, want %v", uri, used[uri], names)
		}
	}
	if len(used) != len(views.All()) {
		t.Errorf("%d views are named by tools, of %d", len(used), len(views.All()))
	}
}

package mcpserver_test

import (
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/browsertest"
	"github.com/otherwise/perform/internal/views"
)

// TestViewsSpeakHebrew draws answers made to hold what a Hebrew page got
// wrong, in the Hebrew host: the week's flags and a failed call in
// Hebrew, a change of −0.5% and a weight of 67.82 rounded as the answers
// round them (−0.5%, 67.8), one value said in the singular, a week with
// nothing planned and a triage with nobody in it each said once, and an
// English remark quoted in the Hebrew triage in an isolate of its own.
func TestViewsSpeakHebrew(t *testing.T) {
	t.Parallel()
	host := newViewHostPage(t)
	he := viewHostContexts[1]
	if he["locale"] != "he-IL" {
		t.Fatal("the second host context is not the Hebrew one")
	}
	html := func(uri string) string {
		v, ok := views.ByURI(uri)
		if !ok {
			t.Fatalf("no view %s", uri)
		}
		return v.HTML
	}
	result := func(data map[string]any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}, StructuredContent: data}
	}
	shots := browsertest.ScreenshotDir()
	shot := func(name string) {
		if shots != "" {
			if err := os.MkdirAll(shots, 0o755); err == nil {
				host.b.Screenshot(shots, name)
			}
		}
	}
	frameEval := func(js string) string {
		return browsertest.Eval[string](host.b, `(function(){ var d = document.querySelector("iframe").contentDocument; `+js+` })()`)
	}

	t.Run("week", func(t *testing.T) {
		week := map[string]any{"week": "2026-11-29", "from": "2026-11-29", "to": "2026-12-05",
			"planned": 3, "completed": 1, "missed": 1, "skipped": 0, "remaining": 1,
			"sessions": []any{
				map[string]any{"date": "2026-11-30", "status": "completed", "title": "Upper", "durationMin": 50},
				map[string]any{"date": "2026-12-01", "status": "missed", "title": "Lower"},
				map[string]any{"date": "2026-12-03", "status": "planned", "title": "Full body"},
			},
			"volumeKg": map[string]any{"week": 5200, "previousWeek": 5226, "changePct": -0.5},
			"minutes":  map[string]any{"week": 50, "previousWeek": 60, "changePct": -16.7},
			"prs":      []any{},
			"flags": []any{
				map[string]any{"kind": "missed_sessions", "message": "1 session missed: 2026-12-01 Lower."},
				map[string]any{"kind": "low_readiness", "message": "Readiness 4 or lower 3 days running: 2026-11-30 3, 2026-12-01 4, 2026-12-02 3."},
				map[string]any{"kind": "active_injury", "message": "Active injury: knee (left), severity 3/5, since 2026-11-20."},
			}}
		d := host.show(t, html(views.WeekAdherence), he, nil, result(week))
		shot("view-week-flags-he-IL")
		for _, want := range []string{"אימון אחד הוחמץ", "מוכנות 4 ומטה 3 ימים ברצף", "פציעה פעילה: ברך (שמאל)", "3/5", "Lower"} {
			if !strings.Contains(d.Text, want) {
				t.Errorf("the Hebrew week lacks %q:\n%s", want, d.Text)
			}
		}
		for _, english := range []string{"missed", "Readiness", "Active injury", "severity", "since"} {
			if strings.Contains(d.Text, english) {
				t.Errorf("the Hebrew week says %q:\n%s", english, d.Text)
			}
		}
		pct := frameEval(`return Array.prototype.map.call(d.querySelectorAll(".num"), function (e) { return e.textContent.replace(/[\u200e\u200f]/g, ""); }).join("|");`)
		if !strings.Contains(pct, "-0.5%") || !strings.Contains(pct, "-16.7%") || strings.Contains(pct, "-1 %") || strings.Contains(pct, "-1%") {
			t.Errorf("the week's changes read %q; want -0.5%% and -16.7%% as the answer has them", pct)
		}

		empty := map[string]any{"week": "2026-11-29", "from": "2026-11-29", "to": "2026-12-05", "planned": 0, "completed": 0,
			"missed": 0, "skipped": 0, "remaining": 0, "sessions": []any{}, "prs": []any{}, "flags": []any{}}
		d = host.show(t, html(views.WeekAdherence), he, nil, result(empty))
		if strings.Contains(d.Text, "0 מתוך 0") || strings.Count(d.Text, "אין אימונים השבוע") != 1 {
			t.Errorf("a week with nothing planned reads:\n%s", d.Text)
		}

		failed := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "No trainee trn_x; search_trainees finds one by name."}}}
		d = host.show(t, html(views.WeekAdherence), he, nil, failed)
		if !strings.Contains(d.Text, "הבקשה נכשלה") || frameEval(`var p = d.querySelector(".error p[lang=en][dir=ltr]"); return p ? p.textContent : "";`) == "" {
			t.Errorf("a failed call in the Hebrew week reads:\n%s", d.Text)
		}
	})

	t.Run("body", func(t *testing.T) {
		body := map[string]any{"from": "2026-11-01", "to": "2026-12-05", "metrics": []any{
			map[string]any{"metric": "weightKg", "unit": "kg", "count": 1, "latest": map[string]any{"value": 67.82}, "change": 0, "trendBy": "week",
				"trend": []any{map[string]any{"from": "2026-11-30", "value": 67.82}}},
		}}
		d := host.show(t, html(views.BodyTrend), he, nil, result(body))
		if !strings.Contains(d.Text, "ערך אחד") || strings.Contains(d.Text, "1 ערכים") || strings.Contains(d.Text, "67.82") {
			t.Errorf("one weigh-in of 67.82 reads:\n%s", d.Text)
		}
	})

	t.Run("triage", func(t *testing.T) {
		quote := "Knee hurts, 3 sets only!"
		triage := map[string]any{"total": 2, "activeTrainees": 5, "counts": map[string]any{"feedback": 1, "weight_off_goal": 1}, "items": []any{
			map[string]any{"firstName": "נועה", "lastName": "לוי", "score": 65, "reasons": []any{
				map[string]any{"code": "feedback", "severity": 25, "numbers": map[string]any{"count": 1, "latestOn": "2026-12-04"},
					"message": `1 feedback to the studio in the last 7 days; the latest on 2026-12-04: "` + quote + `".`},
				map[string]any{"code": "missed_sessions", "severity": 55, "numbers": map[string]any{"missed": 2}, "message": "2 sessions missed this week."},
				map[string]any{"code": "weight_off_goal", "severity": 40, "numbers": map[string]any{"goalKg": 62.5, "weeklyAveragesKg": []any{66.91, 67.33, 67.82}},
					"message": "Weight moved away from the goal of 62.5 kg for 3 weeks: weekly averages 66.9, 67.3, 67.8 kg."},
			}},
		}}
		d := host.show(t, html(views.Triage), he, nil, result(triage))
		shot("view-triage-quote-he-IL")
		if !strings.Contains(d.Text, "אימונים הוחמצו השבוע") || strings.Contains(d.Text, "sessions missed") {
			t.Errorf("missed sessions in the Hebrew triage read:\n%s", d.Text)
		}
		if !strings.Contains(d.Text, "67.8") || strings.Contains(d.Text, "67.82") || strings.Contains(d.Text, "66.91") {
			t.Errorf("the weekly averages are not rounded as the answer rounds them:\n%s", d.Text)
		}
		isolated := frameEval(`var b = d.querySelector("q > bdi.quote"); return b ? b.textContent + "|" + getComputedStyle(b).unicodeBidi : "";`)
		// Line order: on each line the remark reads left to right, its
		// "!" after its last word, wherever the Hebrew sentence wraps it.
		order := frameEval(`var t = d.querySelector("q > bdi.quote").firstChild, r = d.createRange(), bad = [];
			var prev = null;
			for (var i = 0; i < t.length; i++) {
				r.setStart(t, i); r.setEnd(t, i + 1);
				var k = r.getBoundingClientRect();
				if (t.data[i] !== " " && prev && Math.abs(prev.top - k.top) < 2 && k.left < prev.left) bad.push(t.data[i]);
				if (t.data[i] !== " ") prev = k;
			}
			return bad.join("");`)
		if order != "" {
			t.Errorf("the quoted remark's characters %q stand out of their order", order)
		}
		if isolated != quote+"|isolate" {
			t.Errorf("the quoted remark is %q; want it in an isolate of its own", isolated)
		}

		nobody := map[string]any{"total": 0, "activeTrainees": 5, "counts": map[string]any{}, "items": []any{}, "summary": "No one of 5 active trainees needs attention now."}
		d = host.show(t, html(views.Triage), he, nil, result(nobody))
		if n := strings.Count(d.Text, "תשומת לב כרגע"); n != 1 {
			t.Errorf("the empty triage says it %d times:\n%s", n, d.Text)
		}
	})
}

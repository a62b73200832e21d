package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/demo/demotest"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/store"
)

// wireLayout is a request body cut where the cache sees it: the raw bytes
// of the tools array and of each system block, and every breakpoint.
type wireLayout struct {
	Tools    json.RawMessage   `json:"tools"`
	System   []json.RawMessage `json:"system"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

func layoutOf(t *testing.T, req fakes.MessagesRequest) wireLayout {
	t.Helper()
	var l wireLayout
	if err := json.Unmarshal(req.Raw, &l); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return l
}

// breakpoints lists where the request's cache_control marks sit, as
// "tools[i]", "system[i]" or "messages[i][j]", with their TTL.
func breakpoints(req fakes.MessagesRequest) []string {
	var out []string
	for i, tl := range req.Tools {
		if tl.CacheControl != nil {
			out = append(out, fmt.Sprintf("tools[%d]:%s", i, tl.CacheControl.TTL))
		}
	}
	for i, b := range req.System {
		if b.CacheControl != nil {
			out = append(out, fmt.Sprintf("system[%d]:%s", i, b.CacheControl.TTL))
		}
	}
	for i, m := range req.Messages {
		for j, b := range m.Content {
			if b.CacheControl != nil {
				out = append(out, fmt.Sprintf("messages[%d][%d]:%s", i, j, b.CacheControl.TTL))
			}
		}
	}
	return out
}

// The prefix up to the first breakpoint (the tools and the rules) is the
// same bytes for coaches of different studios on different days; the
// coach, studio and date come after it; the second breakpoint is on the
// conversation's last block; and the second coach reads the prefix the
// first one wrote.
func TestCachedPrefixIsSharedByEveryCoachStudioAndDay(t *testing.T) {
	h := newHarness(t, storetestSQLite(t))
	studioWithCoach(t, h.st, "Alpha Gym", "Noa", "0501111111", time.Now())
	studioWithCoach(t, h.st, "Beta Fit", "Yoni", "0502222222", time.Now())
	seedHistory(t, h, "+972501111111")
	seedHistory(t, h, "+972502222222")
	h.send("972501111111", "c1", "מי צריך אותי היום?")
	h.waitIdle()
	h.clock.Advance(26 * time.Hour) // the next day
	seedHistory(t, h, "+972502222222")
	h.send("972502222222", "c2", "כמה מתאמנים פעילים יש?")
	h.waitIdle()

	reqs := h.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls; want 2", len(reqs))
	}
	a, b := layoutOf(t, reqs[0]), layoutOf(t, reqs[1])
	if string(a.Tools) != string(b.Tools) || len(a.System) != 2 || len(b.System) != 2 || string(a.System[0]) != string(b.System[0]) {
		t.Fatalf("the cached prefix differs between coaches:\n%s\n%s\nvs\n%s\n%s", a.Tools[:200], a.System[0], b.Tools[:200], b.System[0])
	}
	if string(a.System[1]) == string(b.System[1]) {
		t.Fatal("the coach's context is the same for both coaches")
	}
	for i, r := range reqs {
		sys := r.System
		if strings.Contains(sys[0].Text, []string{"Noa", "Yoni"}[i]) || strings.Contains(sys[0].Text, []string{"Alpha Gym", "Beta Fit"}[i]) || strings.Contains(sys[0].Text, "2026") {
			t.Fatalf("the rules carry the coach, studio or date:\n%s", sys[0].Text)
		}
		if !strings.Contains(sys[1].Text, []string{"Noa", "Yoni"}[i]) || !strings.Contains(sys[1].Text, []string{"Alpha Gym", "Beta Fit"}[i]) {
			t.Fatalf("the context lacks the coach or studio: %s", sys[1].Text)
		}
		if sys[0].Text != promptRules {
			t.Fatalf("the first system block is not the rules:\n%s", sys[0].Text)
		}
		last := len(r.Messages) - 1
		want := []string{"system[0]:1h", fmt.Sprintf("messages[%d][%d]:5m", last, len(r.Messages[last].Content)-1)}
		if got := breakpoints(r); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("breakpoints %v; want %v", got, want)
		}
	}
	// The first request wrote the shared prefix (tools and rules, in a 1 h
	// entry); the second, a day later and another studio, read it.
	prefix := reqs[1].Usage.CacheReadInputTokens
	if reqs[0].Usage.CacheCreation.Ephemeral1h == 0 || prefix != reqs[0].Usage.CacheCreation.Ephemeral1h {
		t.Fatalf("usage %+v then %+v; want the second to read the first's 1 h write", reqs[0].Usage, reqs[1].Usage)
	}
	if prefix < 1024 {
		t.Fatalf("the shared prefix is %d tokens (estimated), below Sonnet's 1,024-token minimum: it would not be cached", prefix)
	}
}

// demoTurn runs the realistic exchange on the demo studio: the coach asks
// about a trainee; the model searches (step 1), reads the overview (step
// 2) and answers (step 3). It returns the turn's recorded steps.
func demoTurn(t *testing.T, h *harness, phone, conv string) []store.AgentStep {
	t.Helper()
	idPattern := regexp.MustCompile(`"id":\s*"(trn_[^"]+)"`)
	h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
		results := req.ToolResults()
		switch {
		case len(results) == 0:
			return fakes.CallTool("search_trainees", map[string]any{"q": "נועה"})
		case strings.Contains(results[0].ResultText(), `"items"`):
			m := idPattern.FindStringSubmatch(results[0].ResultText())
			if m == nil {
				t.Errorf("no trainee in the search result: %s", results[0].ResultText())
				return fakes.Text("לא מצאתי")
			}
			return fakes.CallTool("get_trainee_overview", map[string]any{"traineeId": m[1]})
		default:
			return fakes.Text("נועה כהן מתאמנת 3 פעמים בשבוע, המוכנות שלה השבוע 7/10 ואין פציעה פעילה. היעד שלה: סקוואט 80 ק\"ג עד סוף החודש, והיא ב-72.5. שווה לבדוק איתה את השינה, שירדה ל-6 שעות בממוצע.")
		}
	})
	before := len(h.llm.Requests())
	h.send(phone, conv, "מה המצב של נועה כהן השבוע?")
	h.waitIdle()
	reqs := h.llm.Requests()[before:]
	if len(reqs) != 3 {
		t.Fatalf("%d model calls; want the 3 of the demo turn", len(reqs))
	}
	ctx := context.Background()
	var turnID string
	if err := h.st.DB().QueryRowContext(ctx, `SELECT id FROM agent_turns ORDER BY created_at DESC, id DESC LIMIT 1`).Scan(&turnID); err != nil {
		t.Fatal(err)
	}
	steps, err := h.st.Agent().TurnSteps(ctx, turnID)
	if err != nil {
		t.Fatal(err)
	}
	// The turn's record is what the API billed, step by step.
	if len(steps) != 3 {
		t.Fatalf("%d steps recorded; want 3", len(steps))
	}
	for i, s := range steps {
		u := reqs[i].Usage
		if s.Step != i || s.Model != "claude-sonnet-4-5" || s.Input != u.InputTokens || s.Output != u.OutputTokens ||
			s.CacheWrite != u.CacheCreationInputTokens || s.CacheWrite1h != u.CacheCreation.Ephemeral1h || s.CacheRead != u.CacheReadInputTokens {
			t.Fatalf("step %d recorded %+v; the API billed %+v", i, s, u)
		}
	}
	return steps
}

// A turn's later steps read what its earlier ones wrote, and the turn's
// record carries every step's usage as billed. The figures of the
// realistic exchange are logged (go test -run TestDemoTurnCost -v). It
// runs on SQLite: a turn's cost does not depend on the engine, and the
// steps' usage columns are the store contract's (storetest) on both.
func TestDemoTurnCost(t *testing.T) {
	t.Parallel()
	st, _ := demotest.OpenAt(t, newClock().Now())
	h := newHarness(t, st, func(o *Options) { o.LLM.Model = "claude-sonnet-4-5" })
	var steps []llm.Usage
	var observed llm.Usage
	h.agent.ObserveModelSteps(func(model string, u llm.Usage) { observed = observed.Add(u) })
	record := func(s []store.AgentStep) (sum llm.Usage) {
		steps = steps[:0]
		for _, x := range s {
			u := llm.Usage{Input: x.Input, Output: x.Output, CacheWrite: x.CacheWrite, CacheWrite1h: x.CacheWrite1h, CacheRead: x.CacheRead}
			steps = append(steps, u)
			sum = sum.Add(u)
		}
		return sum
	}
	// Dana's first turn of the day: nothing cached yet.
	seedHistory(t, h, "+972501234567")
	cold := record(demoTurn(t, h, "972501234567", "dana"))
	for i := 1; i < 3; i++ {
		if prev := steps[i-1]; steps[i].CacheRead < prev.AllInput() {
			t.Fatalf("step %d read %d cached tokens; want at least the %d of step %d's prompt", i, steps[i].CacheRead, prev.AllInput(), i-1)
		}
	}
	// Uri, the other coach, later: the shared prefix is warm, the
	// conversation is his own (and five minutes have passed).
	h.llm.Expire("5m")
	seedHistory(t, h, "+972527654321")
	warm := record(demoTurn(t, h, "972527654321", "uri"))
	if steps[0].CacheRead == 0 || steps[0].CacheRead >= steps[0].AllInput() {
		t.Fatalf("Uri's first step %+v; want the shared prefix read and his conversation written", steps[0])
	}
	// Uri again a minute later: his conversation is warm too.
	h.clock.Advance(time.Minute)
	followUp := record(demoTurn(t, h, "972527654321", "uri"))
	if observed != cold.Add(warm).Add(followUp) {
		t.Fatalf("the metrics hook saw %+v; the turns recorded %+v", observed, cold.Add(warm).Add(followUp))
	}

	prices := llm.ListPrices("claude-sonnet-4-5")
	uncached := func(u llm.Usage) float64 { return prices.Cost(llm.Usage{Input: u.AllInput(), Output: u.Output}) }
	for _, c := range []struct {
		name string
		u    llm.Usage
	}{{"cold (first turn of the day)", cold}, {"warm prefix, new conversation", warm}, {"follow-up within 5 min", followUp}} {
		t.Logf("%-30s input %5d  cache write %5d (1h %5d)  cache read %5d  output %4d  | all input %5d | $%.4f cached vs $%.4f uncached",
			c.name, c.u.Input, c.u.CacheWrite, c.u.CacheWrite1h, c.u.CacheRead, c.u.Output, c.u.AllInput(), prices.Cost(c.u), uncached(c.u))
		if prices.Cost(c.u) >= uncached(c.u) && c.name != "cold (first turn of the day)" {
			t.Errorf("%s: caching costs $%.4f, not less than $%.4f without it", c.name, prices.Cost(c.u), uncached(c.u))
		}
	}
	day := prices.Cost(cold) + 99*prices.Cost(warm) + 100*prices.Cost(followUp)
	t.Logf("200 turns a day for one coach (1 cold, 99 new conversations, 100 follow-ups): $%.2f cached vs $%.2f uncached (Sonnet 4.5: $%g/$%g per MTok in/out)",
		day, 200*uncached(warm), prices.Input, prices.Output)
}

// A model that takes strict tools is asked with them; when the API refuses
// them (a 400 naming strict), the step is asked again without, and so is
// every later step: the refusal is remembered.
func TestStrictToolsFallBackWhenRefused(t *testing.T) {
	h := newHarness(t, storetestSQLite(t), func(o *Options) { o.LLM.Model = "claude-sonnet-4-5" })
	studioWithCoach(t, h.st, "Studio", "Gal", "0503333333", time.Now())
	seedHistory(t, h, "+972503333333")
	strictTools := func(r fakes.MessagesRequest) (names []string) {
		for _, tl := range r.Tools {
			if tl.Strict {
				names = append(names, tl.Name)
			}
		}
		return names
	}
	h.setScript(func(n int, req fakes.MessagesRequest) fakes.Reply {
		if len(strictTools(req)) > 0 {
			return fakes.Reply{Status: 400, Message: "tools.13.custom.strict: Extra inputs are not permitted"}
		}
		return fakes.Text("בסדר")
	})
	h.send("972503333333", "c", "תזכיר לי להתקשר לדני מחר")
	h.waitIdle()
	h.send("972503333333", "c", "ועוד משהו")
	h.waitIdle()
	reqs := h.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls; want the refused one, its retry and the next turn's", len(reqs))
	}
	if got := strictTools(reqs[0]); !slices.Contains(got, "create_task") {
		t.Fatalf("strict tools of the first request %v; want create_task (the write) among them", got)
	}
	if len(strictTools(reqs[1])) != 0 || len(strictTools(reqs[2])) != 0 {
		t.Fatalf("strict tools after the refusal: %v, %v", strictTools(reqs[1]), strictTools(reqs[2]))
	}
	if got := h.sms.Texts(); len(got) != 2 || got[0] != "בסדר" || got[1] != "בסדר" {
		t.Fatalf("sent %q; want both turns answered", got)
	}
}

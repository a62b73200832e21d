package weekplan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/llm/anthropic"
	"github.com/otherwise/perform/internal/weekplan"
)

// TestPlanQuality runs every fixture through the whole pipeline three
// times, with the rules alone and with a model (the fake Messages API in
// tests; the live one when PERFORM_PLANS_LIVE=1 and ANTHROPIC_API_KEY are
// set), and ends each run with the quality line:
//
//	plan quality: valid N/M, safety flags N/M, repeatable N/M, fallback N/M
//
// Validity and safety flags must be 100%; a fixture is repeatable when its
// three drafts have the same days, at least 80% of the same exercises and
// identical loads.
func TestPlanQuality(t *testing.T) {
	t.Run("rules", func(t *testing.T) {
		t.Parallel()
		q := runQuality(t, nil, llm.Prices{})
		if q.fallback != q.total {
			t.Errorf("with no model every draft is the fallback: %d of %d", q.fallback, q.total)
		}
	})
	t.Run("fake model", func(t *testing.T) {
		t.Parallel()
		fake := fakes.NewAnthropic(fakeLayout)
		defer fake.Close()
		p, err := anthropic.New(anthropic.Config{APIKey: "test-key", BaseURL: fake.URL, Model: "claude-sonnet-4-5"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		q := runQuality(t, p, llm.ListPrices("claude-sonnet-4-5"))
		if q.fallback != q.program {
			t.Errorf("the fake model's weeks pass after at most one repair, so no draft but a program's week (%d) should fall back; %d did", q.program, q.fallback)
		}
		var repairs, forced int
		for _, r := range fake.Requests() {
			if len(r.Messages) > 1 {
				repairs++
				// The repair round reads the first call's prefix (tools, brief,
				// context) from the prompt cache.
				if r.Usage.CacheReadInputTokens == 0 {
					t.Errorf("a repair round read nothing from the prompt cache: %+v", r.Usage)
				}
			}
			if strings.Contains(string(r.Raw), `"tool_choice":{"name":"lay_out_week","type":"tool"}`) {
				forced++
			}
		}
		if repairs == 0 {
			t.Error("no repair round was asked for, though the fake breaks a rule on every third trainee")
		}
		if forced != len(fake.Requests()) {
			t.Errorf("%d of %d requests forced the layout tool", forced, len(fake.Requests()))
		}
	})
	t.Run("live", func(t *testing.T) {
		key := os.Getenv("ANTHROPIC_API_KEY")
		if os.Getenv("PERFORM_PLANS_LIVE") != "1" || key == "" {
			t.Skip("set PERFORM_PLANS_LIVE=1 and ANTHROPIC_API_KEY to run the fixtures against the live model")
		}
		model := os.Getenv("PERFORM_PLANS_MODEL")
		if model == "" {
			model = "claude-sonnet-4-5"
		}
		p, err := anthropic.New(anthropic.Config{APIKey: key, Model: model}, nil)
		if err != nil {
			t.Fatal(err)
		}
		runQuality(t, p, llm.ListPrices(model))
	})
}

type quality struct{ valid, safe, repeatable, fallback, program, total int }

func runQuality(t *testing.T, model llm.Provider, prices llm.Prices) quality {
	t.Helper()
	var q quality
	var latency time.Duration
	var cost float64
	drafts := 0
	for _, f := range fixtures() {
		var runs []weekplan.Plan
		ok, safe, fell := true, true, false
		for range 3 {
			start := time.Now()
			plan, rep, err := weekplan.Generate(context.Background(), f.in, model, prices)
			latency += time.Since(start)
			cost += rep.CostUSD
			drafts++
			if err != nil {
				t.Errorf("%s: %v", f.name, err)
				ok = false
				continue
			}
			if problems := independentCheck(f, plan); len(problems) > 0 || !rep.Valid {
				t.Errorf("%s: not valid (%v; the validator said %v)", f.name, problems, rep.Problems)
				ok = false
			}
			for _, kind := range f.flags {
				if !hasAdjustment(plan, kind) {
					t.Errorf("%s: the draft does not state its %s adjustment (it states %v)", f.name, kind, plan.Adjustments)
					safe = false
				}
			}
			if f.deload && !plan.Deload {
				t.Errorf("%s: the week should be a deload", f.name)
				safe = false
			}
			fell = fell || rep.Fallback
			runs = append(runs, plan)
		}
		if ok {
			q.valid++
		}
		if safe {
			q.safe++
		}
		if fell {
			q.fallback++
		}
		if len(f.in.Planned) > 0 {
			q.program++
		}
		if len(runs) == 3 && repeatable(runs) {
			q.repeatable++
		} else {
			t.Logf("%s: its three drafts differ", f.name)
		}
		q.total++
	}
	line := fmt.Sprintf("plan quality: valid %d/%d, safety flags %d/%d, repeatable %d/%d, fallback %d/%d",
		q.valid, q.total, q.safe, q.total, q.repeatable, q.total, q.fallback, q.total)
	if model != nil {
		line += fmt.Sprintf("; %.0f ms and $%.4f a draft (%s)", float64(latency.Milliseconds())/float64(drafts), cost/float64(drafts), model.Model())
	}
	t.Log(line)
	if q.valid != q.total || q.safe != q.total {
		t.Errorf("validity and safety flags must be 100%%: %s", line)
	}
	return q
}

// independentCheck is what the test itself holds a plan to, apart from
// the package's validator: her days, her minutes, an intensity on every
// exercise, nothing loading the spared area, loads on the rule's grid.
func independentCheck(f fixture, p weekplan.Plan) []string {
	var out []string
	if len(p.Sessions) == 0 {
		out = append(out, "no session")
	}
	texts := []string{p.Summary}
	for _, a := range p.Adjustments {
		texts = append(texts, a.Reason)
		if f.in.Language != "en" && !strings.ContainsFunc(a.Reason, func(r rune) bool { return r >= 'א' && r <= 'ת' }) {
			out = append(out, "an adjustment not in Hebrew: "+a.Reason)
		}
	}
	for _, s := range p.Sessions {
		texts = append(texts, s.Title, s.Note)
		for _, it := range s.Items {
			texts = append(texts, it.Name, it.Basis, it.Note)
		}
	}
	for _, t := range texts {
		if strings.Contains(t, "%!") {
			out = append(out, "a broken sentence: "+t)
		}
	}
	days := map[int]bool{}
	for _, s := range p.Sessions {
		if !slices.Contains(f.in.Days, s.Weekday) || days[s.Weekday] {
			out = append(out, fmt.Sprintf("day %d", s.Weekday))
		}
		days[s.Weekday] = true
		if s.DurationMin > f.in.Minutes {
			out = append(out, fmt.Sprintf("%s takes %d min", s.Date, s.DurationMin))
		}
		if s.Date < f.in.WeekStart || s.Date < f.in.Today {
			out = append(out, "date "+s.Date)
		}
		for _, it := range s.Items {
			ex, found := exercises.Get(it.ExerciseID)
			if !found {
				out = append(out, "unknown "+it.ExerciseID)
				continue
			}
			if it.RPE == nil && it.RIR == nil && it.Percent1RM == nil {
				out = append(out, it.ExerciseID+" has no intensity")
			}
			if f.spare != "" && slices.Contains(ex.Loads, f.spare) {
				out = append(out, it.ExerciseID+" loads the "+f.spare)
			}
			if it.LoadKg != nil && (*it.LoadKg <= 0 || *it.LoadKg*2 != float64(int(*it.LoadKg*2))) {
				out = append(out, fmt.Sprintf("%s load %v", it.ExerciseID, *it.LoadKg))
			}
		}
	}
	return out
}

func hasAdjustment(p weekplan.Plan, kind string) bool {
	for _, a := range p.Adjustments {
		if a.Kind == kind && len(a.Reason) > 20 {
			return true
		}
	}
	return false
}

// repeatable: the same days, ≥ 80% of the same exercises, identical loads.
func repeatable(runs []weekplan.Plan) bool {
	key := func(p weekplan.Plan) (days []int, ex map[string]string) {
		ex = map[string]string{}
		for _, s := range p.Sessions {
			days = append(days, s.Weekday)
			for _, it := range s.Items {
				load := "-"
				if it.LoadKg != nil {
					load = fmt.Sprint(*it.LoadKg)
				}
				ex[it.ExerciseID] = load
			}
		}
		return days, ex
	}
	d0, e0 := key(runs[0])
	for _, r := range runs[1:] {
		d, e := key(r)
		if !slices.Equal(d0, d) {
			return false
		}
		same := 0
		for id, load := range e {
			if l0, ok := e0[id]; ok {
				if l0 != load {
					return false
				}
				same++
			}
		}
		if same*5 < max(len(e), len(e0))*4 {
			return false
		}
	}
	return true
}

// fakeLayout is the fake model: it reads the context's baseline and the
// tool's enums from the request, as the API would hand them to a model,
// and answers a layout in the request's own terms. It moves the
// accessories around and writes Hebrew notes; on every third trainee its
// first answer crowds a session (one exercise too many), so the validator
// and the repair round are exercised over the wire.
func fakeLayout(_ int, req fakes.MessagesRequest) fakes.Reply {
	var ctx struct {
		Baseline    weekplan.Layout `json:"baseline"`
		Adjustments []weekplan.Adjustment
		Allowed     []struct {
			ID string `json:"id"`
		} `json:"allowedExercises"`
	}
	text := req.SystemText()
	if i := strings.Index(text, "{"); i >= 0 {
		_ = json.Unmarshal([]byte(text[i:]), &ctx)
	}
	l := ctx.Baseline
	for i := range l.Sessions {
		s := &l.Sessions[i]
		if len(s.Exercises) > 3 { // swap two accessories
			n := len(s.Exercises)
			s.Exercises[n-1], s.Exercises[n-2] = s.Exercises[n-2], s.Exercises[n-1]
		}
		s.Note = "שמרי על טכניקה נקייה."
	}
	var kinds []string
	for _, a := range ctx.Adjustments {
		kinds = append(kinds, a.Kind)
	}
	l.Summary = "שבוע לפי הכללים. התאמות: " + strings.Join(kinds, ", ")
	crowd := len(text)%3 == 0 && len(req.Messages) == 1 && len(l.Sessions) > 0
	if crowd {
		for _, a := range ctx.Allowed {
			if !slices.Contains(l.Sessions[0].Exercises, a.ID) {
				for range 6 {
					l.Sessions[0].Exercises = append(l.Sessions[0].Exercises, a.ID)
				}
				break
			}
		}
	}
	return fakes.CallTool("lay_out_week", l)
}

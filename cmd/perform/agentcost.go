package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/llm"
	"github.com/otherwise/perform/internal/store"
)

// cmdAgentCost reports what every model call of the last hours cost (the
// WhatsApp agent's and the weekly plans' refinements), per studio and whose
// turns they were (coaches', trainees', weekly plans: "turns" are drafts there): turns, model calls, tokens by kind and an
// estimate in US dollars, then how the turns were spaced (which the cache
// lifetimes are chosen from).
func cmdAgentCost(ctx context.Context, e env, args []string) error {
	fs := newFlags("agent cost")
	hours := fs.Int("hours", 24, "how many hours back to report (1 to 48; turns are kept 48 hours)")
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := noArgs("agent cost", rest); err != nil {
		return err
	}
	if *hours < 1 || *hours > 48 {
		return usagef("--hours must be from 1 to 48; got %d", *hours)
	}
	cfg, err := config.FromEnv(e.getenv)
	if err != nil {
		return err
	}
	since := time.Now().Add(-time.Duration(*hours) * time.Hour)
	rows, err := st.Agent().UsageByStudio(ctx, since)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		fmt.Fprintf(e.stderr, "The agent made no model calls in the last %d hours.\n", *hours)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "studio\twho\tmodel\tturns\tcalls\tinput\tcache write\tcache read\toutput\tcost USD\tper turn\t")
	var total float64
	var turns int64
	unpriced := map[string]bool{}
	for _, r := range rows {
		u := llm.Usage{Input: r.Input, Output: r.Output, CacheWrite: r.CacheWrite, CacheWrite1h: r.CacheWrite1h, CacheRead: r.CacheRead}
		studio := r.StudioName
		if r.StudioID == "" {
			studio = "(no studio)"
		}
		cost, perTurn := "-", "-"
		if p := agentPrices(cfg, r.Model); !p.Zero() {
			c := p.Cost(u)
			total += c
			cost, perTurn = fmt.Sprintf("%.4f", c), fmt.Sprintf("%.4f", c/float64(max(r.Turns, 1)))
		} else {
			unpriced[r.Model] = true
		}
		turns += r.Turns
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", printable(studio), whose[r.Role], printable(r.Model), r.Turns, r.Steps,
			r.Input, r.CacheWrite, r.CacheRead, r.Output, cost, perTurn)
	}
	fmt.Fprintf(tw, "all\t\t\t%d\t\t\t\t\t\t%.4f\t\t\n", turns, total)
	if err := tw.Flush(); err != nil {
		return err
	}
	p := agentPrices(cfg, cfg.AgentModel)
	if !p.Zero() {
		fmt.Fprintf(e.stderr, "Prices for %s, US dollars per million tokens: input %s, output %s, cache write %s (1 h: %s), cache read %s (AGENT_PRICE_INPUT, AGENT_PRICE_OUTPUT).\n",
			cfg.AgentModel, usd(p.Input), usd(p.Output), usd(p.CacheWrite), usd(p.CacheWrite1h), usd(p.CacheRead))
	}
	for m := range unpriced {
		fmt.Fprintf(e.stderr, "No list price for %s: its cost is left out; set AGENT_PRICE_INPUT and AGENT_PRICE_OUTPUT when it is AGENT_MODEL.\n", printable(m))
	}
	times, err := st.Agent().TurnTimes(ctx, since)
	if err != nil {
		return err
	}
	if phone, overall := turnSpacing(times); overall > 0 {
		fmt.Fprintf(e.stderr, "Turn spacing: median %s between a phone's consecutive turns, %s between any two turns.\n", spacing(phone), spacing(overall))
	}
	return nil
}

// whose names a role's turns in the report.
var whose = map[string]string{"coach": "coaches", "trainee": "trainees", "weekly_plan": "weekly plans"}

// agentPrices are the prices of model: AGENT_MODEL's list price with the
// configured overrides, any other model's list price.
func agentPrices(cfg config.Config, model string) llm.Prices {
	p := llm.ListPrices(model)
	if model != cfg.AgentModel || (cfg.AgentPriceInput == 0 && cfg.AgentPriceOutput == 0) {
		return p
	}
	in, out := p.Input, p.Output
	if cfg.AgentPriceInput > 0 {
		in = cfg.AgentPriceInput
	}
	if cfg.AgentPriceOutput > 0 {
		out = cfg.AgentPriceOutput
	}
	if in == 0 || out == 0 {
		return llm.Prices{}
	}
	return llm.WithInput(in, out)
}

// turnSpacing is the median gap between a phone's consecutive turns and
// between any two consecutive turns; 0 when there are too few.
func turnSpacing(times []store.AgentTurnTime) (perPhone, overall time.Duration) {
	last := map[string]time.Time{}
	var phoneGaps, allGaps []time.Duration
	for i, t := range times {
		if prev, ok := last[t.Phone]; ok {
			phoneGaps = append(phoneGaps, t.At.Sub(prev))
		}
		last[t.Phone] = t.At
		if i > 0 {
			allGaps = append(allGaps, t.At.Sub(times[i-1].At))
		}
	}
	return median(phoneGaps), median(allGaps)
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

func spacing(d time.Duration) string {
	if d == 0 {
		return "- (one turn each)"
	}
	return d.Round(time.Second).String()
}

// usd writes an amount of US dollars in fixed decimals: at least 2 (cents),
// at most 4 (list prices per million tokens go to tenths of a cent), so a
// derived price such as 3×0.1 reads 0.30, never 0.30000000000000004.
func usd(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	for strings.HasSuffix(s, "0") && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return s
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// agentTurn stores a turn of phone in studio with its model calls.
func agentTurn(t *testing.T, st store.Store, id, phone, studioID string, at time.Time, steps ...store.AgentStep) {
	t.Helper()
	ctx := context.Background()
	ag := st.Agent()
	if _, err := ag.InsertMessages(ctx, []store.AgentMessage{{Phone: phone, ConversationID: "c", Text: "q", ReceivedAt: at}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ag.ClaimPending(ctx, phone, 1<<40, id, at, time.Hour, store.ClaimBounds{}); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	for i, s := range steps {
		s.TurnID, s.Step, s.At = id, i, at
		if err := ag.RecordStep(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := ag.StartSending(ctx, id, "replied", studioID); err != nil {
		t.Fatal(err)
	}
}

// perform agent cost sums each studio's model calls of the last day and
// prices them at the configured model's prices (list prices unless
// AGENT_PRICE_* say otherwise); turns older than --hours are left out.
func TestAgentCost(t *testing.T) {
	t.Parallel()
	for name, dbURL := range databases(t) {
		t.Run(name, func(t *testing.T) {
			db := dbURL(t)
			perform(t, db, "migrate")
			st, err := store.Open(context.Background(), db, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var studios []domain.Studio
			for _, n := range []string{"Alpha", "Beta"} {
				s := domain.Studio{Name: n, Slug: strings.ToLower(n)}
				if err := st.CreateStudio(ctx, &s); err != nil {
					t.Fatal(err)
				}
				studios = append(studios, s)
			}
			now := time.Now()
			step := store.AgentStep{Model: "claude-sonnet-4-5", Input: 1000, Output: 200, CacheWrite: 5000, CacheWrite1h: 4000, CacheRead: 10000}
			agentTurn(t, st, "tur_a1", "+972500000001", studios[0].ID, now.Add(-3*time.Minute), step, step)
			agentTurn(t, st, "tur_a2", "+972500000001", studios[0].ID, now.Add(-time.Minute), step)
			agentTurn(t, st, "tur_b1", "+972500000002", studios[1].ID, now.Add(-2*time.Minute), step)
			agentTurn(t, st, "tur_old", "+972500000002", studios[1].ID, now.Add(-30*time.Hour), step)
			// A trainee's turn is reported apart from the coaches'.
			agentTurn(t, st, "tur_a3", "+972500000003", studios[0].ID, now.Add(-30*time.Second), step)
			if err := st.Agent().MarkTraineeTurn(ctx, "tur_a3"); err != nil {
				t.Fatal(err)
			}
			// A weekly plan's refinement, two model calls, is counted too.
			if err := st.Budget().RecordModelCall(ctx, store.ModelCall{StudioID: studios[1].ID, Purpose: "weekly_plan", Ref: "pld_1",
				Model: "claude-sonnet-4-5", Calls: 2, Input: 1000, Output: 200, At: now.Add(-2 * time.Hour)}); err != nil {
				t.Fatal(err)
			}
			st.Close()

			r := perform(t, db, "agent", "cost")
			if r.code != 0 {
				t.Fatalf("agent cost: %+v", r)
			}
			// One step at Sonnet 4.5's list prices: 1000×3 + 200×15 +
			// 1000×3.75 + 4000×6 + 10000×0.3 = 36,750 µ$.
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if len(lines) != 6 {
				t.Fatalf("stdout:\n%s", r.stdout)
			}
			for i, want := range [][]string{
				{"Alpha", "coaches", "claude-sonnet-4-5", " 2 ", " 3 ", "3000", "15000", "30000", "600", "0.1103", "0.0551"},
				{"Alpha", "trainees", "claude-sonnet-4-5", " 1 ", "1000", "5000", "10000", "200", "0.0367"},
				{"Beta", "coaches", "claude-sonnet-4-5", " 1 ", "1000", "5000", "10000", "200", "0.0367"},
				{"Beta", "weekly plans", "claude-sonnet-4-5", " 1 ", " 2 ", "1000", "200", "0.0060"},
				{"all", " 5 ", "0.1898"},
			} {
				for _, w := range want {
					if !strings.Contains(lines[i+1], w) {
						t.Errorf("line %q lacks %q", lines[i+1], w)
					}
				}
			}
			if !strings.Contains(r.stderr, "input 3.00, output 15.00, cache write 3.75 (1 h: 6.00), cache read 0.30 (") ||
				!strings.Contains(r.stderr, "Turn spacing: median 2m0s between a phone's consecutive turns, 1m0s between any two turns.") {
				t.Errorf("stderr:\n%s", r.stderr)
			}

			// Prices of a deal, set by the operator.
			var out, errOut bytes.Buffer
			env := map[string]string{"PERFORM_DATABASE_URL": db, "AGENT_PRICE_INPUT": "1.5", "AGENT_PRICE_OUTPUT": "7.5"}
			if code := run(ctx, []string{"agent", "cost", "--hours", "1"}, &out, &errOut, func(k string) string { return env[k] }); code != 0 {
				t.Fatalf("agent cost with prices: %d %s", code, errOut.String())
			}
			if !strings.Contains(out.String(), "0.0919") || !strings.Contains(errOut.String(), "input 1.50, output 7.50, cache write 1.875 (1 h: 3.00), cache read 0.15 (") {
				t.Errorf("with half the prices:\n%s%s", out.String(), errOut.String())
			}
			if r := perform(t, db, "agent", "cost", "--hours", "0"); r.code != 2 || !strings.Contains(r.stderr, "--hours must be from 1 to 48") {
				t.Errorf("--hours 0: %+v", r)
			}
		})
	}
}

// TestUSDIsFixedDecimals: money is printed with 2 to 4 decimals, never
// with a float's binary noise (3 × 0.1 is 0.30000000000000004).
func TestUSDIsFixedDecimals(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{3 * 0.1, "0.30"}, {0.1 + 0.2, "0.30"}, {3, "3.00"}, {15, "15.00"}, {3.75, "3.75"}, {1.875, "1.875"},
		{0.08, "0.08"}, {0.0125, "0.0125"}, {0.00004, "0.00"}, {1234.56789, "1234.5679"}, {0, "0.00"},
	} {
		if got := usd(c.v); got != c.want {
			t.Errorf("usd(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

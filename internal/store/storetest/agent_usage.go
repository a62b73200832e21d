package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// A turn's model calls are kept with it, in order, summed per studio and
// model, and go when the turn is swept; a call of an unknown turn is
// refused as not found.
func testAgentUsage(t *testing.T, st store.Store) {
	ag := st.Agent()
	s := newStudio(t, st)
	phone := agentPhone()
	insertMessages(t, ag, phone, agentClock, "q")
	turn := claimTurn(t, ag, phone, "tur_usage"+phone[4:], agentClock)
	for i, u := range []store.AgentStep{
		{Model: "claude-sonnet-4-5", Input: 10, Output: 100, CacheWrite: 5000, CacheWrite1h: 4600, CacheRead: 0},
		{Model: "claude-sonnet-4-5", Input: 3, Output: 50, CacheWrite: 400, CacheRead: 5010},
	} {
		u.TurnID, u.Step, u.At = turn.ID, i, agentClock.Add(time.Duration(i)*time.Second)
		if err := ag.RecordStep(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := ag.RecordStep(ctx, store.AgentStep{TurnID: "tur_nosuchturn", Model: "m", At: agentClock}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a step of no turn: %v; want not found", err)
	}
	steps, err := ag.TurnSteps(ctx, turn.ID)
	if err != nil || len(steps) != 2 || steps[0].CacheWrite1h != 4600 || steps[1].CacheRead != 5010 || steps[1].Step != 1 || !steps[1].At.Equal(agentClock.Add(time.Second)) {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	if err := ag.StartSending(ctx, turn.ID, "replied", s.ID); err != nil {
		t.Fatal(err)
	}
	sum := func() *store.AgentStudioUsage {
		rows, err := ag.UsageByStudio(ctx, agentClock.Add(-time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.StudioID == s.ID {
				return &r
			}
		}
		return nil
	}
	if u := sum(); u == nil || u.StudioName != s.Name || u.Turns != 1 || u.Steps != 2 || u.Input != 13 || u.Output != 150 || u.CacheWrite != 5400 || u.CacheWrite1h != 4600 || u.CacheRead != 5010 {
		t.Fatalf("usage %+v", u)
	}
	times, err := ag.TurnTimes(ctx, agentClock.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tt := range times {
		found = found || (tt.Phone == phone && tt.At.Equal(agentClock))
	}
	if !found {
		t.Fatalf("turn times %+v lack %s", times, phone)
	}
	if err := ag.FinishTurn(ctx, turn.ID, agentClock); err != nil {
		t.Fatal(err)
	}
	if err := ag.Sweep(ctx, agentClock.Add(time.Hour), "2026-03-01"); err != nil {
		t.Fatal(err)
	}
	if steps, err := ag.TurnSteps(ctx, turn.ID); err != nil || len(steps) != 0 || sum() != nil {
		t.Fatalf("after the sweep: %+v, %v", steps, err)
	}
}

package storetest

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/store"
)

// testAgentProposals: numbering per phone and studio, the ten-minute
// dedupe, expiry, decisions bound to the phone, a finish that loses to
// the kill switch.
func testAgentProposals(t *testing.T, st store.Store) {
	ps := st.Proposals()
	s, other := newStudio(t, st), newStudio(t, st)
	phone, stranger := agentPhone(), agentPhone()
	at := agentClock
	mk := func(id, studioID, ph, fp string, created time.Time) store.AgentProposal {
		return store.AgentProposal{ID: id, StudioID: studioID, Phone: ph, TurnID: "turn-" + id, Tool: "log_weight", Args: []byte(`{"weightKg":72.4}`),
			Fingerprint: fp, Summary: "line " + id, CreatedAt: created, ExpiresAt: created.Add(30 * time.Minute)}
	}
	propose := func(p store.AgentProposal) (store.AgentProposal, bool) {
		t.Helper()
		got, created, err := ps.Propose(ctx, p, p.CreatedAt.Add(-10*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		return got, created
	}
	a, ok := propose(mk("p-a-"+randomHex(4), s.ID, phone, "fa", at))
	b, ok2 := propose(mk("p-b-"+randomHex(4), s.ID, phone, "fb", at.Add(time.Minute)))
	if !ok || !ok2 || a.Num != 1 || b.Num != 2 || a.State != store.ProposalPending {
		t.Fatalf("numbers %d %d, created %v %v", a.Num, b.Num, ok, ok2)
	}
	if again, created := propose(mk("p-again-"+randomHex(4), s.ID, phone, "fa", at.Add(5*time.Minute))); created || again.ID != a.ID {
		t.Fatalf("the same change within 10 minutes made a second proposal %+v", again)
	}
	if x, created := propose(mk("p-x-"+randomHex(4), other.ID, phone, "fa", at)); !created || x.Num != 1 {
		t.Fatalf("another studio's proposals share the numbering: %+v", x)
	}
	if x, created := propose(mk("p-s-"+randomHex(4), s.ID, stranger, "fa", at)); !created || x.Num != 1 {
		t.Fatalf("another phone's proposals share the numbering: %+v", x)
	}

	// A stranger's decision touches nothing.
	if err := ps.Decide(ctx, stranger, s.ID, "turn-stranger", []string{a.ID}, nil, at); err != nil {
		t.Fatal(err)
	}
	if pending, _ := ps.Pending(ctx, phone, s.ID); len(pending) != 2 {
		t.Fatalf("pending after a stranger's yes: %d", len(pending))
	}
	if err := ps.Decide(ctx, phone, s.ID, "turn-yes", []string{a.ID}, []string{b.ID}, at.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	decided, err := ps.DecidedBy(ctx, "turn-yes")
	if err != nil || len(decided) != 2 || decided[0].State != store.ProposalConfirmed || decided[1].State != store.ProposalDeclined {
		t.Fatalf("decided %+v %v", decided, err)
	}
	if done, err := ps.Finish(ctx, a.ID, store.ProposalExecuted, "done", at); err != nil || !done {
		t.Fatalf("finish %v %v", done, err)
	}
	if done, _ := ps.Finish(ctx, a.ID, store.ProposalFailed, "again", at); done {
		t.Fatal("a finished proposal finished twice")
	}

	// Expiry, and the kill switch.
	c, _ := propose(mk("p-c-"+randomHex(4), s.ID, phone, "fc", at.Add(3*time.Minute)))
	if c.Num != 1 {
		t.Fatalf("numbering restarts with nothing pending: %d", c.Num)
	}
	if exp, err := ps.Expire(ctx, phone, s.ID, at.Add(32*time.Minute)); err != nil || len(exp) != 0 {
		t.Fatalf("expired early: %v %v", exp, err)
	}
	if exp, err := ps.Expire(ctx, phone, s.ID, at.Add(33*time.Minute)); err != nil || len(exp) != 1 || exp[0].ID != c.ID {
		t.Fatalf("expired %v %v", exp, err)
	}
	if when, err := ps.LastExpiredAt(ctx, phone, s.ID); err != nil || !when.Equal(c.ExpiresAt) {
		t.Fatalf("last expired %v %v", when, err)
	}
	d, _ := propose(mk("p-d-"+randomHex(4), s.ID, phone, "fd", at.Add(40*time.Minute)))
	if when, _ := ps.LastExpiredAt(ctx, phone, s.ID); !when.IsZero() {
		t.Fatal("a newer pending proposal still reads as expired")
	}
	e, _ := propose(mk("p-e-"+randomHex(4), s.ID, phone, "fe", at.Add(41*time.Minute)))
	if err := ps.Decide(ctx, phone, s.ID, "turn-e", []string{e.ID}, nil, at.Add(42*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, err := ps.CancelStudio(ctx, s.ID, at.Add(43*time.Minute)); err != nil || n != 3 { // d, e and the stranger's
		t.Fatalf("cancelled %d %v", n, err)
	}
	if done, _ := ps.Finish(ctx, e.ID, store.ProposalExecuted, "late", at); done {
		t.Fatal("a cancelled proposal was finished")
	}
	if pending, _ := ps.Pending(ctx, phone, s.ID); len(pending) != 0 {
		t.Fatalf("pending after the kill switch: %+v", pending)
	}
	if pending, _ := ps.Pending(ctx, phone, other.ID); len(pending) != 1 || pending[0].ID == d.ID {
		t.Fatalf("the kill switch of one studio reached another: %+v", pending)
	}
}

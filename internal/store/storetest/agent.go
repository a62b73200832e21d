package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The WhatsApp assistant's state (store.AgentStore). Its tables are keyed
// by phone, not studio, so each test uses phones of its own.

func testAgent(t *testing.T, st store.Store) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"ClaimPending", testAgentClaim},
		{"ClaimBounds", testAgentClaimBounds},
		{"TurnLifecycle", testAgentTurnLifecycle},
		{"CapsPerStudio", testAgentCaps},
		{"HistoryPerStudio", testAgentHistory},
		{"Leases", testAgentLeases},
		{"Recovery", testAgentRecovery},
		{"PhoneLinks", testAgentPhoneLinks},
		{"InTransaction", testAgentInTransaction},
		{"TraineeConsentPerPhone", testAgentTraineeConsent},
		{"TraineeEchoes", testAgentTraineeEchoes},
		{"Usage", testAgentUsage}, // last: its sweep reaches every phone
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

func agentPhone() string { return fmt.Sprintf("+97250%07d", rand.IntN(10_000_000)) }

// agentClock is a fixed instant the agent tests move by hand.
var agentClock = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

func insertMessages(t *testing.T, ag store.AgentStore, phone string, at time.Time, texts ...string) []int64 {
	t.Helper()
	var msgs []store.AgentMessage
	for i, text := range texts {
		msgs = append(msgs, store.AgentMessage{Phone: phone, ConversationID: fmt.Sprintf("conv-%d", i), Text: text, ReceivedAt: at})
	}
	refs, err := ag.InsertMessages(ctx, msgs)
	must(t, "InsertMessages", err)
	var seqs []int64
	for _, r := range refs {
		if r.Phone != phone {
			t.Fatalf("InsertMessages returned phone %q; want %q", r.Phone, phone)
		}
		seqs = append(seqs, r.Seq)
	}
	slices.Sort(seqs)
	return seqs
}

func testAgentClaim(t *testing.T, st store.Store) {
	ag := st.Agent()
	a, b := agentPhone(), agentPhone()
	seqs := insertMessages(t, ag, a, agentClock, "one", "two", "three")
	insertMessages(t, ag, b, agentClock, "other phone")
	if got, err := ag.PendingSeqs(ctx, a); err != nil || !slices.Equal(got, seqs) {
		t.Fatalf("PendingSeqs = %v, %v; want %v", got, err, seqs)
	}
	// A job of an earlier message of the burst claims nothing.
	if _, ok, err := ag.ClaimPending(ctx, a, seqs[0], "amg_early", agentClock, time.Hour, store.ClaimBounds{}); ok || err != nil {
		t.Fatalf("ClaimPending with newer messages pending: %v, %v; want nothing claimed", ok, err)
	}
	turn, ok, err := ag.ClaimPending(ctx, a, seqs[2], "amg_claim1", agentClock, time.Hour, store.ClaimBounds{})
	if err != nil || !ok || turn.Text != "one\ntwo\nthree" || turn.ConversationID != "conv-2" || turn.State != "open" || turn.Phone != a {
		t.Fatalf("ClaimPending = %+v, %v, %v", turn, ok, err)
	}
	if got, _ := ag.PendingSeqs(ctx, a); len(got) != 0 {
		t.Fatalf("still pending after the claim: %v", got)
	}
	if got, _ := ag.PendingSeqs(ctx, b); len(got) != 1 {
		t.Fatalf("another phone's message was claimed: %v", got)
	}
	if _, ok, err := ag.ClaimPending(ctx, a, seqs[2], "amg_claim2", agentClock, time.Hour, store.ClaimBounds{}); ok || err != nil {
		t.Fatalf("a second claim: %v, %v; want nothing", ok, err)
	}
	// Messages older than maxAge are dropped, never claimed.
	old := insertMessages(t, ag, a, agentClock.Add(-2*time.Hour), "stale")
	if _, ok, err := ag.ClaimPending(ctx, a, old[0], "amg_claim3", agentClock, time.Hour, store.ClaimBounds{}); ok || err != nil {
		t.Fatalf("claiming a stale message: %v, %v; want it dropped", ok, err)
	}
	if got, _ := ag.PendingSeqs(ctx, a); len(got) != 0 {
		t.Fatalf("a stale message stayed pending: %v", got)
	}
	// A turn id is used once.
	again := insertMessages(t, ag, a, agentClock, "again")
	_, _, err = ag.ClaimPending(ctx, a, again[0], "amg_claim1", agentClock, time.Hour, store.ClaimBounds{})
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("ClaimPending with a used turn id: %v; want a ConflictError", err)
	}
	if got, _ := ag.PendingSeqs(ctx, a); len(got) != 1 {
		t.Fatalf("a failed claim changed the messages: pending %v", got)
	}
}

func claimTurn(t *testing.T, ag store.AgentStore, phone, id string, at time.Time) store.AgentTurn {
	t.Helper()
	seqs := insertMessages(t, ag, phone, at, "q "+id)
	turn, ok, err := ag.ClaimPending(ctx, phone, seqs[0], id, at, time.Hour, store.ClaimBounds{})
	if err != nil || !ok {
		t.Fatalf("ClaimPending %s: %v, %v", id, ok, err)
	}
	return turn
}

func testAgentTurnLifecycle(t *testing.T, st store.Store) {
	ag := st.Agent()
	studio := newStudio(t, st)
	p := agentPhone()
	if _, err := ag.OpenTurn(ctx, p); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("OpenTurn without a turn: %v", err)
	}
	turn := claimTurn(t, ag, p, "amg_life_"+randomHex(4), agentClock)
	open, err := ag.OpenTurn(ctx, p)
	if err != nil || open != turn {
		t.Fatalf("OpenTurn = %+v, %v; want %+v", open, err, turn)
	}
	must(t, "StartSending", ag.StartSending(ctx, turn.ID, "replied", studio.ID))
	if err := ag.StartSending(ctx, turn.ID, "replied", studio.ID); err == nil {
		t.Fatal("a turn was decided twice")
	}
	must(t, "AddChunks", ag.AddChunks(ctx, turn.ID, "conv", []string{"a", "b", "c"}))
	var conflict *store.ConflictError
	if err := ag.AddChunks(ctx, turn.ID, "conv", []string{"x"}); !errors.As(err, &conflict) {
		t.Fatalf("AddChunks twice: %v; want a ConflictError", err)
	}
	mustNotFound(t, "AddChunks to a missing turn", ag.AddChunks(ctx, "amg_missing", "conv", []string{"x"}))
	must(t, "MarkChunkSent", ag.MarkChunkSent(ctx, turn.ID, 0, agentClock))
	chunks, err := ag.UnsentChunks(ctx, turn.ID)
	if err != nil || len(chunks) != 2 || chunks[0] != (store.AgentChunk{Idx: 1, ConversationID: "conv", Text: "b"}) || chunks[1].Idx != 2 {
		t.Fatalf("UnsentChunks = %+v, %v", chunks, err)
	}
	mustNotFound(t, "MarkChunkSent of a missing chunk", ag.MarkChunkSent(ctx, turn.ID, 9, agentClock))
	if open, err := ag.OpenTurn(ctx, p); err != nil || open.State != "sending" {
		t.Fatalf("OpenTurn while sending = %+v, %v", open, err)
	}
	must(t, "FinishTurn", ag.FinishTurn(ctx, turn.ID, agentClock))
	if _, err := ag.OpenTurn(ctx, p); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("OpenTurn after FinishTurn: %v", err)
	}
}

func testAgentCaps(t *testing.T, st store.Store) {
	ag := st.Agent()
	s1, s2 := newStudio(t, st), newStudio(t, st)
	p := agentPhone()
	const day = "2026-03-10"
	t1 := claimTurn(t, ag, p, "amg_cap1_"+randomHex(4), agentClock)
	for range 2 { // a resumed turn is not counted again
		if n, err := ag.CountTurn(ctx, t1.ID, p, s1.ID, day); err != nil || n != 1 {
			t.Fatalf("CountTurn = %d, %v; want 1", n, err)
		}
	}
	must(t, "FinishTurn", ag.FinishTurn(ctx, t1.ID, agentClock))
	t2 := claimTurn(t, ag, p, "amg_cap2_"+randomHex(4), agentClock)
	if n, err := ag.CountTurn(ctx, t2.ID, p, s2.ID, day); err != nil || n != 1 {
		t.Fatalf("CountTurn in another studio = %d, %v; want its own count, 1", n, err)
	}
	for studio, want := range map[string]int{s1.ID: 1, s2.ID: 1} {
		if n, err := ag.CapCount(ctx, p, studio, day); err != nil || n != want {
			t.Fatalf("CapCount(%s) = %d, %v; want %d", studio, n, err, want)
		}
	}
	if n, err := ag.CapCount(ctx, p, s1.ID, "2026-03-11"); err != nil || n != 0 {
		t.Fatalf("CapCount of another day = %d, %v", n, err)
	}
}

func testAgentHistory(t *testing.T, st store.Store) {
	ag := st.Agent()
	s1, s2 := newStudio(t, st), newStudio(t, st)
	p := agentPhone()
	entries := func(prefix string, n int) []store.AgentHistoryEntry {
		var out []store.AgentHistoryEntry
		for i := range n {
			out = append(out, store.AgentHistoryEntry{Role: []string{"user", "assistant"}[i%2], Text: fmt.Sprintf("%s%d", prefix, i)})
		}
		return out
	}
	must(t, "AppendHistory", ag.AppendHistory(ctx, p, s1.ID, entries("one-", 4), agentClock, 3))
	must(t, "AppendHistory other studio", ag.AppendHistory(ctx, p, s2.ID, entries("two-", 2), agentClock, 3))
	got, err := ag.History(ctx, p, s1.ID, time.Time{}, 10)
	if err != nil || !slices.Equal(got, entries("one-", 4)[1:]) {
		t.Fatalf("History of studio 1 = %+v, %v; want its newest 3, oldest first", got, err)
	}
	got, err = ag.History(ctx, p, s2.ID, time.Time{}, 10)
	if err != nil || !slices.Equal(got, entries("two-", 2)) {
		t.Fatalf("History of studio 2 = %+v, %v; want only its own", got, err)
	}
	if got, _ := ag.History(ctx, p, s1.ID, time.Time{}, 2); len(got) != 2 || got[1].Text != "one-3" {
		t.Fatalf("History with a limit = %+v; want the newest 2", got)
	}
	if got, _ := ag.History(ctx, p, s1.ID, agentClock.Add(time.Second), 10); len(got) != 0 {
		t.Fatalf("History since later = %+v; want none", got)
	}
	if err := ag.AppendHistory(ctx, p, "", entries("x", 1), agentClock, 3); err == nil {
		t.Fatal("history without a studio was stored")
	}
	// Sweep forgets what is older than its cut-off.
	must(t, "Sweep", ag.Sweep(ctx, agentClock.Add(time.Minute), "2026-03-09"))
	if got, _ := ag.History(ctx, p, s1.ID, time.Time{}, 10); len(got) != 0 {
		t.Fatalf("History after Sweep = %+v", got)
	}
}

func testAgentLeases(t *testing.T, st store.Store) {
	ag := st.Agent()
	name := "phone:" + agentPhone()
	const ttl = 10 * time.Second
	now := agentClock
	if ok, err := ag.AcquireLease(ctx, name, "one", now, ttl); !ok || err != nil {
		t.Fatalf("AcquireLease free: %v, %v", ok, err)
	}
	if ok, err := ag.AcquireLease(ctx, name, "one", now, ttl); !ok || err != nil {
		t.Fatalf("AcquireLease by its owner again: %v, %v", ok, err)
	}
	if ok, _ := ag.AcquireLease(ctx, name, "two", now.Add(ttl-time.Millisecond), ttl); ok {
		t.Fatal("another owner took a live lease")
	}
	if held, err := ag.RenewLease(ctx, name, "one", now.Add(5*time.Second), ttl); !held || err != nil {
		t.Fatalf("RenewLease: %v, %v", held, err)
	}
	if owner, exp, err := ag.LeaseExpiry(ctx, name); err != nil || owner != "one" || !exp.Equal(now.Add(15*time.Second)) {
		t.Fatalf("LeaseExpiry = %q %v %v", owner, exp, err)
	}
	if held, _ := ag.RenewLease(ctx, name, "two", now, ttl); held {
		t.Fatal("a non-owner renewed the lease")
	}
	// Expired: taken over; the old owner can neither renew nor release it.
	if ok, err := ag.AcquireLease(ctx, name, "two", now.Add(16*time.Second), ttl); !ok || err != nil {
		t.Fatalf("AcquireLease of an expired lease: %v, %v", ok, err)
	}
	if held, _ := ag.RenewLease(ctx, name, "one", now, ttl); held {
		t.Fatal("the old owner renewed a lease taken over")
	}
	must(t, "ReleaseLease by the old owner", ag.ReleaseLease(ctx, name, "one"))
	if owner, _, err := ag.LeaseExpiry(ctx, name); err != nil || owner != "two" {
		t.Fatalf("the old owner's release freed the new owner's lease: %q, %v", owner, err)
	}
	must(t, "ReleaseLease", ag.ReleaseLease(ctx, name, "two"))
	if _, _, err := ag.LeaseExpiry(ctx, name); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("LeaseExpiry after release: %v", err)
	}
}

func testAgentRecovery(t *testing.T, st store.Store) {
	ag := st.Agent()
	leased, orphaned, old := agentPhone(), agentPhone(), agentPhone()
	claimTurn(t, ag, leased, "amg_rec1_"+randomHex(4), agentClock)
	claimTurn(t, ag, orphaned, "amg_rec2_"+randomHex(4), agentClock)
	oldTurn := claimTurn(t, ag, old, "amg_rec3_"+randomHex(4), agentClock.Add(-2*time.Hour))
	if ok, err := ag.AcquireLease(ctx, "phone:"+leased, "worker", agentClock, 10*time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := ag.AbandonTurns(ctx, agentClock.Add(-time.Hour), agentClock); err != nil {
		t.Fatal(err)
	}
	if _, err := ag.OpenTurn(ctx, old); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("turn %s older than the cut-off is still open: %v", oldTurn.ID, err)
	}
	phones, err := ag.OrphanedTurnPhones(ctx, agentClock)
	must(t, "OrphanedTurnPhones", err)
	if !slices.Contains(phones, orphaned) || slices.Contains(phones, leased) || slices.Contains(phones, old) {
		t.Fatalf("OrphanedTurnPhones = %v; want %s and not %s or %s", phones, orphaned, leased, old)
	}
	// Once the lease expires, its phone is an orphan too.
	phones, _ = ag.OrphanedTurnPhones(ctx, agentClock.Add(11*time.Second))
	if !slices.Contains(phones, leased) {
		t.Fatalf("OrphanedTurnPhones after the lease expired = %v; want %s", phones, leased)
	}
}

func testAgentPhoneLinks(t *testing.T, st store.Store) {
	ag := st.Agent()
	s1, s2 := newStudio(t, st), newStudio(t, st)
	p := agentPhone()
	c1 := domain.Coach{Name: "Dana", Phone: ptr(p), Active: true}
	must(t, "CreateCoach", st.Studio(s1.ID).CreateCoach(ctx, &c1))
	c2 := domain.Coach{Name: "Dana", Phone: ptr(p), Active: true}
	must(t, "CreateCoach", st.Studio(s2.ID).CreateCoach(ctx, &c2))

	if _, err := ag.PhoneLink(ctx, p); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PhoneLink before any: %v", err)
	}
	must(t, "AskStudioChoice", ag.AskStudioChoice(ctx, p, []string{c1.ID, c2.ID}, agentClock))
	if got, err := ag.StudioChoice(ctx, p); err != nil || !slices.Equal(got, []string{c1.ID, c2.ID}) {
		t.Fatalf("StudioChoice = %v, %v", got, err)
	}
	must(t, "LinkPhone", ag.LinkPhone(ctx, store.PhoneLink{Phone: p, StudioID: s1.ID, CoachID: c1.ID, ChosenAt: agentClock}))
	if l, err := ag.PhoneLink(ctx, p); err != nil || l.StudioID != s1.ID || l.CoachID != c1.ID || !l.ChosenAt.Equal(agentClock) {
		t.Fatalf("PhoneLink = %+v, %v", l, err)
	}
	if _, err := ag.StudioChoice(ctx, p); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a link left the question pending: %v", err)
	}
	must(t, "LinkPhone again", ag.LinkPhone(ctx, store.PhoneLink{Phone: p, StudioID: s2.ID, CoachID: c2.ID, ChosenAt: agentClock.Add(time.Hour)}))
	if l, _ := ag.PhoneLink(ctx, p); l.StudioID != s2.ID || l.CoachID != c2.ID {
		t.Fatalf("PhoneLink after a switch = %+v", l)
	}
	mustNotFound(t, "LinkPhone to a missing coach", ag.LinkPhone(ctx, store.PhoneLink{Phone: agentPhone(), StudioID: s1.ID, CoachID: "coa_missing", ChosenAt: agentClock}))
	must(t, "UnlinkPhone", ag.UnlinkPhone(ctx, p))
	if _, err := ag.PhoneLink(ctx, p); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PhoneLink after UnlinkPhone: %v", err)
	}
	must(t, "AskStudioChoice", ag.AskStudioChoice(ctx, p, []string{c2.ID}, agentClock))
	must(t, "ClearStudioChoice", ag.ClearStudioChoice(ctx, p))
	if _, err := ag.StudioChoice(ctx, p); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("StudioChoice after ClearStudioChoice: %v", err)
	}
	if err := ag.AskStudioChoice(ctx, p, nil, agentClock); err == nil {
		t.Fatal("an empty choice was recorded")
	}
	// lastActiveAt: written by TouchCoach, at most once a minute.
	must(t, "TouchCoach", ag.TouchCoach(ctx, c1.ID, agentClock))
	must(t, "TouchCoach soon after", ag.TouchCoach(ctx, c1.ID, agentClock.Add(30*time.Second)))
	if got, _ := st.Studio(s1.ID).GetCoach(ctx, c1.ID); got.LastActiveAt == nil || !got.LastActiveAt.Equal(agentClock) {
		t.Fatalf("lastActiveAt = %v; want %v", got.LastActiveAt, agentClock)
	}
	must(t, "TouchCoach later", ag.TouchCoach(ctx, c1.ID, agentClock.Add(2*time.Minute)))
	if got, _ := st.Studio(s1.ID).GetCoach(ctx, c1.ID); got.LastActiveAt == nil || !got.LastActiveAt.Equal(agentClock.Add(2*time.Minute)) {
		t.Fatalf("lastActiveAt = %v; want two minutes later", got.LastActiveAt)
	}
}

// The agent's writes join a transaction and roll back with it.
func testAgentInTransaction(t *testing.T, st store.Store) {
	p := agentPhone()
	boom := errors.New("boom")
	err := st.InTx(ctx, func(tx store.Store) error {
		if _, err := tx.Agent().InsertMessages(ctx, []store.AgentMessage{{Phone: p, ConversationID: "c", Text: "x", ReceivedAt: agentClock}}); err != nil {
			return err
		}
		if got, err := tx.Agent().PendingSeqs(ctx, p); err != nil || len(got) != 1 {
			return fmt.Errorf("inside the transaction: %v, %v", got, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx: %v", err)
	}
	if got, _ := st.Agent().PendingSeqs(ctx, p); len(got) != 0 {
		t.Fatalf("a rolled-back insert left %v pending", got)
	}
}

// A trainee's yes is kept with the phone it came from and holds for that
// phone only; a stop from any phone ends it; a yes from another phone
// moves it there.
func testAgentTraineeConsent(t *testing.T, st store.Store) {
	ag := st.Agent()
	studio := newStudio(t, st)
	tr := newTrainee(t, st.Studio(studio.ID), "Dana", "Consent")
	first, second := agentPhone(), agentPhone()
	if _, err := ag.TraineeConsent(ctx, studio.ID, tr.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("TraineeConsent before any answer: %v; want ErrNotFound", err)
	}
	check := func(step string, at time.Time, wantFirst, wantSecond bool) {
		t.Helper()
		c, err := ag.TraineeConsent(ctx, studio.ID, tr.ID)
		must(t, step, err)
		if c.AgreedFrom(first) != wantFirst || c.AgreedFrom(second) != wantSecond {
			t.Fatalf("%s: %+v agreed from the first phone %v, the second %v; want %v, %v", step, c, c.AgreedFrom(first), c.AgreedFrom(second), wantFirst, wantSecond)
		}
	}
	must(t, "yes", ag.SetTraineeConsent(ctx, studio.ID, tr.ID, first, true, agentClock))
	check("after her yes", agentClock, true, false)
	must(t, "stop", ag.SetTraineeConsent(ctx, studio.ID, tr.ID, second, false, agentClock.Add(time.Minute)))
	check("after a stop", agentClock, false, false)
	must(t, "yes again", ag.SetTraineeConsent(ctx, studio.ID, tr.ID, second, true, agentClock.Add(2*time.Minute)))
	check("after a yes from the second phone", agentClock, false, true)
	if err := ag.SetTraineeConsent(ctx, studio.ID, tr.ID, "", true, agentClock.Add(3*time.Minute)); err == nil {
		t.Fatal("a yes without its phone was recorded")
	}
}

// A turn claims the oldest pending messages that fit its bounds and leaves
// the rest; a message longer than a turn reads is claimed alone and cut in
// the turn, kept whole in the store; a requeued message is claimed alone.
func testAgentClaimBounds(t *testing.T, st store.Store) {
	ag := st.Agent()
	p := agentPhone()
	long := strings.Repeat("é", 20) // 40 bytes
	insertMessages(t, ag, p, agentClock, "aaaa", "bbbb", "cccccccc", "dd", long)
	bounds := store.ClaimBounds{Messages: 3, Bytes: 11}
	claim := func(id string, b store.ClaimBounds) store.AgentTurn {
		t.Helper()
		turn, ok, err := ag.ClaimPending(ctx, p, 1<<40, id+randomHex(4), agentClock, time.Hour, b)
		if err != nil || !ok {
			t.Fatalf("claim %s: %v, %v", id, ok, err)
		}
		return turn
	}
	for _, want := range []struct {
		text     string
		messages int
		cut      bool
		more     bool
	}{
		{"aaaa\nbbbb", 2, false, true},           // "cccccccc" would pass 11 bytes
		{"cccccccc\ndd", 2, false, true},         // 10 of 11
		{strings.Repeat("é", 5), 1, true, false}, // alone, cut at a character boundary (10 of 11 bytes)
	} {
		got := claim("amg_bound_", bounds)
		if got.Text != want.text || got.Messages != want.messages || got.Cut != want.cut || got.More != want.more {
			t.Fatalf("claimed %+v; want text %q, %d messages, cut %v, more %v", got, want.text, want.messages, want.cut, want.more)
		}
		if open, err := ag.OpenTurn(ctx, p); err != nil || open.Cut != want.cut || open.Messages != want.messages {
			t.Fatalf("OpenTurn = %+v, %v; want cut %v, %d messages", open, err, want.cut, want.messages)
		}
		if want.cut {
			// Back to pending from the cut turn, the message is whole.
			if n, err := ag.RequeueTurn(ctx, got.ID); err != nil || n != 1 {
				t.Fatalf("RequeueTurn = %d, %v; want 1", n, err)
			}
		}
		must(t, "FinishTurn", ag.FinishTurn(ctx, got.ID, agentClock))
	}
	if whole := claim("amg_bound_again_", store.ClaimBounds{}); whole.Text != long || whole.Cut {
		t.Fatalf("the cut message claimed again: %+v; want it whole", whole)
	} else {
		must(t, "FinishTurn", ag.FinishTurn(ctx, whole.ID, agentClock))
	}
	insertMessages(t, ag, p, agentClock, "x", "y", "z", "w")
	counted := claim("amg_bound_count_", store.ClaimBounds{Messages: 3})
	if counted.Text != "x\ny\nz" || !counted.More {
		t.Fatalf("a count bound of 3 claimed %+v", counted)
	}
	if n, err := ag.RequeueTurn(ctx, counted.ID); err != nil || n != 3 {
		t.Fatalf("RequeueTurn = %d, %v; want 3", n, err)
	}
	for _, want := range []string{"x", "y", "z", "w"} {
		got := claim("amg_bound_solo_", store.ClaimBounds{Messages: 20})
		if got.Text != want {
			t.Fatalf("after a requeue the claim took %q; want %q alone", got.Text, want)
		}
		must(t, "FinishTurn", ag.FinishTurn(ctx, got.ID, agentClock))
	}
	if got, _ := ag.PendingSeqs(ctx, p); len(got) != 0 {
		t.Fatalf("still pending: %v", got)
	}
}

// An echo is recorded per trainee and key, once.
func testAgentTraineeEchoes(t *testing.T, st store.Store) {
	ag := st.Agent()
	studio := newStudio(t, st)
	dana := newTrainee(t, st.Studio(studio.ID), "Dana", "Echo")
	noa := newTrainee(t, st.Studio(studio.ID), "Noa", "Echo")
	if echoed, err := ag.TraineeEchoed(ctx, studio.ID, dana.ID, "log_weight:1"); echoed || err != nil {
		t.Fatalf("TraineeEchoed before any echo = %v, %v", echoed, err)
	}
	must(t, "AddTraineeEcho", ag.AddTraineeEcho(ctx, studio.ID, dana.ID, "log_weight:1", agentClock))
	must(t, "AddTraineeEcho again", ag.AddTraineeEcho(ctx, studio.ID, dana.ID, "log_weight:1", agentClock.Add(time.Second)))
	for _, c := range []struct {
		trainee, key string
		want         bool
	}{{dana.ID, "log_weight:1", true}, {dana.ID, "log_weight:2", false}, {noa.ID, "log_weight:1", false}} {
		if echoed, err := ag.TraineeEchoed(ctx, studio.ID, c.trainee, c.key); echoed != c.want || err != nil {
			t.Fatalf("TraineeEchoed(%s, %s) = %v, %v; want %v", c.trainee, c.key, echoed, err, c.want)
		}
	}
}

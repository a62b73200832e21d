package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/agent/fakes"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// proposalEnv is a studio with a coach on WhatsApp, a trainee and a plan.
type proposalEnv struct {
	*harness
	studio  domain.Studio
	trainee domain.Trainee
	product domain.Product
	phone   string // the coach's, as SmartSend sends it
}

const coachPhone = "972501112222"

func newProposalEnv(t *testing.T, st store.Store, opts ...harnessOption) *proposalEnv {
	t.Helper()
	h := newHarness(t, st, opts...)
	s, _ := studioWithCoach(t, st, "Studio", "Omer", "050-111-2222", time.Now())
	ctx := context.Background()
	ss := st.Studio(s.ID)
	tr := domain.Trainee{FirstName: "דנה", LastName: "לוי", Phone: "+972501234567", Status: "active"}
	if err := ss.CreateTrainee(ctx, &tr); err != nil {
		t.Fatal(err)
	}
	price, days := money.Money{Minor: 30000, Currency: "ILS"}, 30
	p := domain.Product{Name: "חודשי", Price: &price, DurationDays: &days, Currency: "ILS", Active: true}
	if err := ss.CreateProduct(ctx, &p); err != nil {
		t.Fatal(err)
	}
	seedHistory(t, h, "+"+coachPhone)
	return &proposalEnv{harness: h, studio: s, trainee: tr, product: p, phone: coachPhone}
}

// say sends one message from phone and waits for the reply.
func (e *proposalEnv) say(phone, text string) {
	e.t.Helper()
	e.send(phone, "conv-"+phone, text)
	e.waitIdle()
}

// scriptTools answers each coach message the model sees with the tool
// calls listed for it, then with the text "הצעתי"; any other message
// gets "תשובה".
func (e *proposalEnv) scriptTools(calls map[string][]fakes.ToolUse) {
	e.setScript(func(_ int, req fakes.MessagesRequest) fakes.Reply {
		if len(req.ToolResults()) > 0 {
			return fakes.Text("הצעתי")
		}
		if uses, ok := calls[req.LastUserText()]; ok {
			return fakes.Reply{ToolUses: uses}
		}
		return fakes.Text("תשובה")
	})
}

func (e *proposalEnv) logWeight(kg float64) fakes.ToolUse {
	return fakes.ToolUse{Name: "log_weight", Input: map[string]any{"traineeId": e.trainee.ID, "weightKg": kg}}
}

func (e *proposalEnv) assignPlan() fakes.ToolUse {
	return fakes.ToolUse{Name: "assign_plan", Input: map[string]any{"traineeId": e.trainee.ID, "productId": e.product.ID}}
}

func (e *proposalEnv) weights() int {
	e.t.Helper()
	l, err := e.st.Studio(e.studio.ID).ListWeights(context.Background(), e.trainee.ID, store.Page{Limit: 50})
	if err != nil {
		e.t.Fatal(err)
	}
	return l.Total
}

func (e *proposalEnv) subscriptions() int {
	e.t.Helper()
	l, err := e.st.Studio(e.studio.ID).ListSubscriptions(context.Background(), e.trainee.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(l)
}

// proposals are every proposal of the studio, by state.
func (e *proposalEnv) proposals() map[string]int {
	e.t.Helper()
	rows, err := e.st.DB().Query(`SELECT state, count(*) FROM agent_proposals WHERE studio_id = `+placeholder(e.st)+` GROUP BY state`, e.studio.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			e.t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

func placeholder(st store.Store) string {
	if st.Engine() == "postgres" {
		return "$1"
	}
	return "?"
}

// lastSent is the last message SmartSend took.
func (e *proposalEnv) lastSent() string {
	texts := e.sms.Texts()
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

// noTraineeMessaged: the outbox, which every notification that would
// reach a trainee goes through, is empty.
func (e *proposalEnv) noTraineeMessaged() {
	e.t.Helper()
	l, err := e.st.Studio(e.studio.ID).ListNotifications(context.Background(), store.Page{Limit: 50})
	if err != nil || l.Total != 0 {
		e.t.Fatalf("the outbox has %d notifications (%v): a trainee was messaged", l.Total, err)
	}
}

// audited counts the studio's audit events on route.
func (e *proposalEnv) audited(route string) int {
	e.t.Helper()
	e.audit.Flush()
	l, err := e.st.ListAudit(context.Background(), e.studio.ID, store.Page{Limit: 200})
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, ev := range l.Items {
		if ev.Route == route {
			n++
		}
	}
	return n
}

func TestProposalConfirmedAndExecuted(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4 for Dana": {e.logWeight(72.4)}})
		e.say(e.phone, "log 72.4 for Dana")
		if e.weights() != 0 {
			t.Fatal("a proposed weight was written before the coach confirmed")
		}
		reqs := e.llm.Requests()
		res := reqs[len(reqs)-1].ToolResults()
		if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].ResultText(), "Not done yet") {
			t.Fatalf("the model read %+v", res)
		}
		list := e.lastSent()
		for _, want := range []string{"ממתין לאישור שלך", "לרשום לדנה לוי משקל 72.4 ק\"ג", "\"כן\"", "\"לא\"", "30 דקות"} {
			if !strings.Contains(list, want) {
				t.Fatalf("the proposal message lacks %q:\n%s", want, list)
			}
		}
		if got := e.proposals(); got[store.ProposalPending] != 1 {
			t.Fatalf("proposals %v", got)
		}
		// A message that is not an answer is a normal turn that sees the proposal.
		e.say(e.phone, "מה השעה?")
		if sys := e.llm.Requests()[len(e.llm.Requests())-1].SystemText(); !strings.Contains(sys, "ממתינים לאישור המאמן") || !strings.Contains(sys, "72.4") {
			t.Fatalf("the model was not told of the pending proposal:\n%s", sys)
		}

		calls := len(e.llm.Requests())
		e.say(e.phone, "כן")
		if len(e.llm.Requests()) != calls {
			t.Fatal("the confirmation went to the model")
		}
		if e.weights() != 1 {
			t.Fatalf("%d weights after the confirmation; want 1", e.weights())
		}
		if got := e.lastSent(); !strings.HasPrefix(got, "✅ לרשום לדנה לוי משקל 72.4") {
			t.Fatalf("outcome %q", got)
		}
		if got := e.proposals(); got[store.ProposalExecuted] != 1 || len(got) != 1 {
			t.Fatalf("proposals %v", got)
		}
		// Answering again does nothing more.
		e.say(e.phone, "כן")
		if e.weights() != 1 {
			t.Fatal("a second yes wrote again")
		}
		for route, want := range map[string]int{auditProposed: 1, auditConfirmed: 1, auditExecuted: 1,
			"POST /v1/automation/trainees/{id}/weights (dry run)": 1, "POST /v1/automation/trainees/{id}/weights": 1} {
			if got := e.audited(route); got != want {
				t.Errorf("audit %q: %d events; want %d", route, got, want)
			}
		}
		e.noTraineeMessaged()
	})
}

func TestProposalsPartlyConfirmed(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4 and start the monthly plan": {e.logWeight(72.4), e.assignPlan()}})
		e.say(e.phone, "log 72.4 and start the monthly plan")
		list := e.lastSent()
		if !strings.Contains(list, "1. לרשום לדנה לוי משקל 72.4") || !strings.Contains(list, "2. להתחיל לדנה לוי את המנוי \"חודשי\" ב-") || !strings.Contains(list, "את המספרים") {
			t.Fatalf("the list:\n%s", list)
		}
		e.say(e.phone, "3")
		if !strings.Contains(e.lastSent(), "אין הצעה מספר 3") || e.weights()+e.subscriptions() != 0 {
			t.Fatalf("an unknown number: %q", e.lastSent())
		}
		e.say(e.phone, "רק 2")
		if e.weights() != 0 || e.subscriptions() != 1 {
			t.Fatalf("weights %d subscriptions %d; want only the plan", e.weights(), e.subscriptions())
		}
		if got := e.lastSent(); !strings.HasPrefix(got, "2. ✅ להתחיל לדנה לוי את המנוי") {
			t.Fatalf("outcome %q", got)
		}
		if got := e.proposals(); got[store.ProposalExecuted] != 1 || got[store.ProposalDeclined] != 1 {
			t.Fatalf("proposals %v", got)
		}
		e.noTraineeMessaged()
	})
}

func TestProposalRefusedAtDryRun(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		e.scriptTools(map[string][]fakes.ToolUse{"start plan X": {{Name: "assign_plan", Input: map[string]any{"traineeId": e.trainee.ID, "productId": "prd_00000000000000000000000000"}}}})
		e.say(e.phone, "start plan X")
		reqs := e.llm.Requests()
		res := reqs[len(reqs)-1].ToolResults()
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].ResultText(), "list_plans") {
			t.Fatalf("the model read %+v; want the lane's sentence as an error", res)
		}
		if len(e.proposals()) != 0 || strings.Contains(e.lastSent(), "ממתין") {
			t.Fatalf("a refused dry run became a proposal: %v %q", e.proposals(), e.lastSent())
		}
		e.noTraineeMessaged()
	})
}

func TestProposalRefusedAtExecution(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4": {e.logWeight(72.4)}})
		e.say(e.phone, "log 72.4")
		// The studio changes before the coach answers.
		if err := st.Studio(e.studio.ID).DeleteTrainee(context.Background(), e.trainee.ID); err != nil {
			t.Fatal(err)
		}
		e.say(e.phone, "yes")
		got := e.lastSent()
		if !strings.HasPrefix(got, "❌ לרשום לדנה לוי משקל 72.4") || !strings.Contains(got, "לא בוצע") || !strings.Contains(got, "No trainee") {
			t.Fatalf("outcome %q; want the lane's refusal reported", got)
		}
		if p := e.proposals(); p[store.ProposalFailed] != 1 || e.audited(auditFailed) != 1 {
			t.Fatalf("proposals %v", p)
		}
	})
}

func TestProposalExpires(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st, func(o *Options) { o.ProposalTTL = 20 * time.Minute })
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4": {e.logWeight(72.4)}})
		e.say(e.phone, "log 72.4")
		if !strings.Contains(e.lastSent(), "20 דקות") {
			t.Fatalf("the message does not say the configured 20 minutes: %q", e.lastSent())
		}
		e.clock.Advance(21 * time.Minute)
		calls := len(e.llm.Requests())
		e.say(e.phone, "כן")
		if got := e.lastSent(); !strings.Contains(got, "כבר לא בתוקף") {
			t.Fatalf("reply %q; want the expiry told", got)
		}
		if e.weights() != 0 || len(e.llm.Requests()) != calls {
			t.Fatal("an expired proposal ran, or its answer went to the model")
		}
		if p := e.proposals(); p[store.ProposalExpired] != 1 || e.audited(auditExpired) != 1 {
			t.Fatalf("proposals %v", p)
		}
	})
}

func TestSameProposalTwiceIsOne(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4": {e.logWeight(72.4)}, "log 72.4 again": {e.logWeight(72.4)}})
		e.say(e.phone, "log 72.4")
		e.clock.Advance(5 * time.Minute)
		e.say(e.phone, "log 72.4 again")
		reqs := e.llm.Requests()
		if res := reqs[len(reqs)-1].ToolResults(); len(res) != 1 || !strings.Contains(res[0].ResultText(), "already proposed") {
			t.Fatalf("the model read %+v", res)
		}
		if p := e.proposals(); p[store.ProposalPending] != 1 {
			t.Fatalf("proposals %v; want one", p)
		}
		if list := e.lastSent(); strings.Count(list, "לרשום") != 1 {
			t.Fatalf("the list shows the change twice:\n%s", list)
		}
		e.say(e.phone, "כן")
		if e.weights() != 1 {
			t.Fatalf("%d weights; want 1", e.weights())
		}
	})
}

func TestConfirmationFromAStrangerDoesNothing(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		addCoach(t, st, e.studio.ID, "Other", "050-333-4444", true, time.Now())
		seedHistory(t, e.harness, "+972503334444")
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4": {e.logWeight(72.4)}})
		e.say(e.phone, "log 72.4")
		calls := len(e.llm.Requests())
		e.say("972503334444", "כן")
		if len(e.llm.Requests()) != calls+1 {
			t.Fatal("the stranger's yes was not an ordinary message to the model")
		}
		if e.weights() != 0 || e.proposals()[store.ProposalPending] != 1 {
			t.Fatalf("a stranger's yes ran the proposal: weights %d, proposals %v", e.weights(), e.proposals())
		}
		e.say(e.phone, "כן")
		if e.weights() != 1 {
			t.Fatal("the coach's own yes did not run it")
		}
	})
}

func TestKillSwitchCancelsPendingProposals(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		e := newProposalEnv(t, st)
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4 and the plan": {e.logWeight(72.4), e.assignPlan()}})
		e.say(e.phone, "log 72.4 and the plan")
		// The coach revokes the assistant's key in the studio's settings.
		if err := st.RevokeAPIKey(context.Background(), agentSettingsOf(t, st, e.studio.ID).KeyID, time.Now()); err != nil {
			t.Fatal(err)
		}
		e.say(e.phone, "כן")
		if e.weights()+e.subscriptions() != 0 {
			t.Fatal("a proposal ran after the key was revoked")
		}
		if got := e.lastSent(); !strings.Contains(got, msgRevoked) || !strings.Contains(got, msgProposalsRevoked) {
			t.Fatalf("reply %q", got)
		}
		if p := e.proposals(); p[store.ProposalCancelled] != 2 || len(p) != 1 || e.audited(auditCancelled) != 1 {
			t.Fatalf("proposals %v", p)
		}
		if agentSettingsOf(t, st, e.studio.ID).RevokedAt == nil {
			t.Fatal("the studio is not disconnected")
		}
		e.noTraineeMessaged()
	})
}

// A process that dies after recording the coach's yes, or after the lane
// ran the write but before its outcome was recorded, leaves the turn open;
// the resumed turn runs each confirmed change exactly once.
func TestCrashAfterConfirmationExecutesOnce(t *testing.T) {
	for _, at := range []string{"decided", "executed"} {
		t.Run(at, func(t *testing.T) {
			forEngine(t, func(t *testing.T, st store.Store) {
				var crashed atomic.Bool
				e := newProposalEnv(t, st, func(o *Options) {
					o.proposalStep = func(step string) error {
						if step == at && crashed.CompareAndSwap(false, true) {
							return errors.New("killed")
						}
						return nil
					}
				})
				e.scriptTools(map[string][]fakes.ToolUse{"log 72.4 and the plan": {e.logWeight(72.4), e.assignPlan()}})
				e.say(e.phone, "log 72.4 and the plan")
				e.say(e.phone, "כן")
				if !crashed.Load() {
					t.Fatal("the turn never reached the crash")
				}
				if e.weights() != 1 || e.subscriptions() != 1 {
					t.Fatalf("weights %d subscriptions %d after recovery; want 1 and 1", e.weights(), e.subscriptions())
				}
				outcomes := 0
				for _, s := range e.sms.Texts() {
					if strings.Contains(s, "✅") {
						outcomes++
						if !strings.Contains(s, "1. ✅") || !strings.Contains(s, "2. ✅") {
							t.Errorf("outcome message %q", s)
						}
					}
				}
				if outcomes != 1 {
					t.Fatalf("%d outcome messages; want 1", outcomes)
				}
				if p := e.proposals(); p[store.ProposalExecuted] != 2 {
					t.Fatalf("proposals %v", p)
				}
				e.noTraineeMessaged()
			})
		})
	}
}

// A confirmed change whose Idempotency-Key an earlier attempt still holds
// (a process killed inside the lane call) is not reported as failed: the
// lane's in-progress code (laneclient.ErrInProgress) makes the turn end in
// an error, and its retry, once the key is free, runs the change once.
func TestAKeyStillInProgressIsRetriedNotFailed(t *testing.T) {
	forEngine(t, func(t *testing.T, st store.Store) {
		var e *proposalEnv
		var held []store.IdempotentRecord
		var decided atomic.Int32
		e = newProposalEnv(t, st, func(o *Options) {
			o.proposalStep = func(step string) error {
				if step != "decided" {
					return nil
				}
				ctx := context.Background()
				ss := st.Studio(e.studio.ID)
				switch decided.Add(1) {
				case 1: // the first attempt finds its keys held
					rows, err := st.DB().Query(`SELECT id FROM agent_proposals WHERE studio_id = `+placeholder(st), e.studio.ID)
					if err != nil {
						return err
					}
					defer rows.Close()
					for rows.Next() {
						var id string
						if err := rows.Scan(&id); err != nil {
							return err
						}
						// Kept under the coach the proposal's call speaks for.
						var coachID string
						if err := st.DB().QueryRow(`SELECT id FROM coaches WHERE studio_id = `+placeholder(st), e.studio.ID).Scan(&coachID); err != nil {
							return err
						}
						rec, started, err := ss.BeginIdempotent(ctx, lane.SpeakersKey(coachID, "proposal:"+id), "earlier", time.Now(), time.Minute, store.IdempotencyTTL)
						if err != nil || !started {
							return fmt.Errorf("claiming proposal:%s: %v %v", id, started, err)
						}
						held = append(held, rec)
					}
					return rows.Err()
				case 2: // the earlier attempt has let go
					for _, rec := range held {
						if err := ss.ReleaseIdempotent(ctx, rec); err != nil {
							return err
						}
					}
				}
				return nil
			}
		})
		e.scriptTools(map[string][]fakes.ToolUse{"log 72.4 for Dana": {e.logWeight(72.4)}})
		e.say(e.phone, "log 72.4 for Dana")
		e.say(e.phone, "כן")
		if len(held) != 1 || decided.Load() < 2 {
			t.Fatalf("held %d keys, decided %d times; want 1 key and a retry", len(held), decided.Load())
		}
		if e.weights() != 1 {
			t.Fatalf("%d weights; want 1", e.weights())
		}
		if got := e.proposals(); got[store.ProposalExecuted] != 1 || len(got) != 1 {
			t.Fatalf("proposals %v; want 1 executed", got)
		}
		for _, s := range e.sms.Texts() {
			if strings.Contains(s, "❌") {
				t.Fatalf("the coach was told it failed: %q", s)
			}
		}
	})
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
)

// The coach writes the model may only propose (tools.AgentProposals) go
// through a confirmation step:
//
//  1. the model calls one; Perform runs it as a dry run through the lane
//     (everything validated, nothing kept). A refusal goes back to the
//     model as the lane's sentence; a pass becomes a pending proposal
//     (agent_proposals), bound to the studio, the coach's phone and the
//     turn, and the turn's reply ends with one message listing the
//     phone's pending proposals in plain Hebrew, numbered, and how to answer;
//  2. the coach answers כן / yes (all), the numbers to keep, or לא / no.
//     The answer is recorded first (pending -> confirmed or declined), in
//     its own transaction;
//  3. each confirmed proposal then runs through the lane for real, in
//     order, with the proposal's id as its Idempotency-Key, and its outcome
//     is recorded; the coach gets one message with every outcome.
//
// A process killed after step 2 resumes the turn (resumeOpenTurn): the
// turn's recorded answer is found again and the proposals not yet finished
// run, with the same keys, so the lane does each exactly once. Proposals
// expire after ProposalTTL; the kill switch (a revoked studio key)
// cancels every pending and confirmed one of the studio. Every step is
// audited with the turn's id as the request id.

// proposalDedupe is how long the same change proposed again is the same proposal.
const proposalDedupe = 10 * time.Minute

// expiredNotice is how long after its proposals expired an answer is told
// so; later, a "yes" is an ordinary message again.
const expiredNotice = time.Hour

// Audit routes of the proposal steps (method AGENT, resource the proposal).
const (
	auditProposed  = "assistant proposal"
	auditConfirmed = "assistant proposal confirmed"
	auditDeclined  = "assistant proposal declined"
	auditExpired   = "assistant proposal expired"
	auditExecuted  = "assistant proposal executed"
	auditFailed    = "assistant proposal failed"
	auditCancelled = "assistant proposals cancelled"
)

const (
	msgProposalsExpired = "ההצעה כבר לא בתוקף (עברו יותר מ-%d דקות), ולכן לא ביצעתי אותה. כתבו לי שוב מה לעשות ואציע מחדש."
	msgNothingConfirmed = "בסדר, לא ביצעתי כלום."
	msgProposalsRevoked = "ההצעות שחיכו לאישור בוטלו, ולא בוצע דבר."
)

// proposer turns the model's calls of proposal tools into pending
// proposals during one turn, and passes every other call on.
type proposer struct {
	a        *Agent
	t        *turn
	studioID string
	apiKey   string
	ex       *executor.Executor
	next     toolCaller
	made     int // proposals this turn made or met again
}

func (a *Agent) newProposer(t *turn, studioID, apiKey string, next toolCaller) *proposer {
	return &proposer{a: a, t: t, studioID: studioID, apiKey: apiKey, ex: executor.New(a.lane, a.model.set), next: next}
}

// call is the turn's tool caller.
func (p *proposer) call(ctx context.Context, name string, input json.RawMessage) (string, bool, error) {
	if !tools.NeedsConfirmation(name) {
		return p.next(ctx, name, input)
	}
	r := p.ex.Run(ctx, executor.Call{Tool: name, Args: input, APIKey: p.apiKey, DryRun: true})
	switch {
	case r.Outcome == executor.Unauthorized:
		return "", false, errKeyRevoked
	case r.Outcome == executor.Unavailable && ctx.Err() != nil:
		return "", false, ctx.Err()
	case r.Failed():
		return r.Text(), true, nil
	}
	var dry dryRunAnswer
	if err := json.Unmarshal(r.Data, &dry); err != nil || !dry.DryRun {
		return "", false, fmt.Errorf("the lane answered the dry run of %s without a dry-run answer: %s", name, r.Data)
	}
	now := p.a.now()
	args := executor.Canonical(input)
	summary, err := summarize(name, args, dry)
	if err != nil {
		p.a.log.ErrorContext(ctx, "agent: the lane's dry run does not read as its route's answer; the coach is shown the tool without its details", "err", err)
		summary = unreadProposal(name)
	}
	prop, created, err := p.a.st.Proposals().Propose(ctx, store.AgentProposal{
		ID: ids.New(ids.AgentProposal), StudioID: p.studioID, Phone: p.t.Phone, TurnID: p.t.ID,
		Tool: name, Args: args, Fingerprint: executor.Key("proposal", name, args),
		Summary: summary, CreatedAt: now, ExpiresAt: now.Add(p.a.proposalTTL),
	}, now.Add(-proposalDedupe))
	if err != nil {
		return "", false, err
	}
	p.made++
	if !created {
		return fmt.Sprintf("Not done: this exact change is already proposed to the coach as change %d (%s) and waits for their answer. "+
			"Perform lists it for the coach again; do not ask for confirmation yourself and do not say it was done.", prop.Num, prop.Summary), false, nil
	}
	p.a.auditProposal(ctx, prop, auditProposed, http.StatusAccepted)
	return fmt.Sprintf("Not done yet: proposed to the coach as change %d: %s. It runs only when the coach answers yes; "+
		"Perform sends the coach the list of proposed changes and how to answer, so do not ask for confirmation yourself "+
		"and do not say it was done. Say briefly what you proposed.", prop.Num, prop.Summary), false, nil
}

// proposalsMessage is the message that lists the phone's pending
// proposals and how to answer; "" without any.
func (a *Agent) proposalsMessage(pending []store.AgentProposal) string {
	minutes := int(a.proposalTTL / time.Minute)
	switch len(pending) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("ממתין לאישור שלך:\n%s\n\nלאישור שלחו \"כן\", לביטול שלחו \"לא\". ההצעה בתוקף %d דקות.", pending[0].Summary, minutes)
	}
	var b strings.Builder
	b.WriteString("ממתינים לאישור שלך:\n")
	for _, p := range pending {
		fmt.Fprintf(&b, "%d. %s\n", p.Num, p.Summary)
	}
	fmt.Fprintf(&b, "\nלאישור הכל שלחו \"כן\". לביצוע רק חלק שלחו את המספרים (למשל: %d). לביטול הכל שלחו \"לא\". ההצעות בתוקף %d דקות.", pending[0].Num, minutes)
	return b.String()
}

// pendingContext tells the model about the proposals waiting for the
// coach, so a message about them (not an answer) is understood.
func pendingContext(pending []store.AgentProposal) string {
	if len(pending) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nשינויים שהצעת וממתינים לאישור המאמן (לא בוצעו). המאמן מאשר בהודעה \"כן\", במספרים או \"לא\"; אל תאמר שבוצעו:\n")
	for _, p := range pending {
		fmt.Fprintf(&b, "%d. %s\n", p.Num, p.Summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// pendingProposals expires the phone's overdue proposals in the studio and
// returns the rest, and the ones that just expired.
func (a *Agent) pendingProposals(ctx context.Context, t *turn, studioID string) (pending, expired []store.AgentProposal, err error) {
	ps := a.st.Proposals()
	expired, err = ps.Expire(ctx, t.Phone, studioID, a.now())
	if err != nil {
		return nil, nil, err
	}
	for _, p := range expired {
		p.DecidedTurnID = t.ID
		a.auditProposal(ctx, p, auditExpired, http.StatusGone)
	}
	pending, err = ps.Pending(ctx, t.Phone, studioID)
	return pending, expired, err
}

// answerProposals handles a message that answers the phone's pending
// proposals. handled is false for any other message, which is then a
// normal turn (pending are the proposals the model is told about). A turn
// resumed after a crash finds the answer it recorded and finishes it.
func (a *Agent) answerProposals(ctx context.Context, t *turn, studioID, apiKey string) (d decision, handled bool, pending []store.AgentProposal, err error) {
	ps := a.st.Proposals()
	decided, err := ps.DecidedBy(ctx, t.ID)
	if err != nil {
		return decision{}, false, nil, err
	}
	if len(decided) == 0 {
		var expired []store.AgentProposal
		pending, expired, err = a.pendingProposals(ctx, t, studioID)
		if err != nil {
			return decision{}, false, nil, err
		}
		ans, ok := parseAnswer(t.Text)
		if !ok {
			return decision{}, false, pending, nil
		}
		if len(pending) == 0 {
			last, err := ps.LastExpiredAt(ctx, t.Phone, studioID)
			if err != nil {
				return decision{}, false, nil, err
			}
			if len(expired) > 0 || (!last.IsZero() && a.now().Sub(last) < expiredNotice) {
				return decision{messages: []string{fmt.Sprintf(msgProposalsExpired, int(a.proposalTTL/time.Minute))}, outcome: "proposal_expired"}, true, nil, nil
			}
			return decision{}, false, nil, nil // a "yes" to nothing: the model's to answer
		}
		confirm, decline, unknown := ans.split(pending)
		if len(unknown) > 0 {
			msg := fmt.Sprintf("אין הצעה מספר %s.\n\n%s", joinNums(unknown), a.proposalsMessage(pending))
			return decision{messages: []string{msg}, outcome: "proposal_unclear"}, true, pending, nil
		}
		if err := ps.Decide(ctx, t.Phone, studioID, t.ID, proposalIDs(confirm), proposalIDs(decline), a.now()); err != nil {
			return decision{}, false, nil, err
		}
		for _, p := range confirm {
			p.DecidedTurnID = t.ID
			a.auditProposal(ctx, p, auditConfirmed, http.StatusOK)
		}
		for _, p := range decline {
			p.DecidedTurnID = t.ID
			a.auditProposal(ctx, p, auditDeclined, http.StatusOK)
		}
		if decided, err = ps.DecidedBy(ctx, t.ID); err != nil {
			return decision{}, false, nil, err
		}
	}
	d, err = a.executeProposals(ctx, t, studioID, apiKey, decided)
	return d, true, nil, err
}

// split sorts the pending proposals by the answer: those to run, those to
// drop, and the numbers named that no pending proposal has.
func (ans proposalAnswer) split(pending []store.AgentProposal) (confirm, decline []store.AgentProposal, unknown []int) {
	keep := map[int]bool{}
	for _, n := range ans.nums {
		keep[n] = true
	}
	for _, p := range pending {
		switch {
		case ans.kind == answerAll || keep[p.Num]:
			confirm = append(confirm, p)
			delete(keep, p.Num)
		default:
			decline = append(decline, p)
		}
	}
	for _, n := range ans.nums {
		if keep[n] {
			unknown = append(unknown, n)
		}
	}
	return confirm, decline, unknown
}

func proposalIDs(ps []store.AgentProposal) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func joinNums(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// executeProposals runs the turn's confirmed proposals through the lane in
// order and answers every outcome. One already finished (before a crash)
// is reported as recorded, not run again.
func (a *Agent) executeProposals(ctx context.Context, t *turn, studioID, apiKey string, decided []store.AgentProposal) (decision, error) {
	if err := a.step("decided"); err != nil {
		return decision{}, err
	}
	ps := a.st.Proposals()
	ex := executor.New(a.lane, a.model.set)
	var lines []string
	ran := 0
	for _, p := range decided {
		switch p.State {
		case store.ProposalDeclined, store.ProposalCancelled:
			continue
		case store.ProposalExecuted, store.ProposalFailed:
			lines = append(lines, p.Outcome)
			ran++
			continue
		}
		r := ex.Run(ctx, executor.Call{Tool: p.Tool, Args: p.Args, APIKey: apiKey, IdempotencyKey: "proposal:" + p.ID})
		switch {
		case r.Outcome == executor.Unauthorized:
			// The kill switch: nothing more runs, and nothing waits.
			if err := a.revoke(ctx, studioID, t.ID); err != nil {
				return decision{}, err
			}
			a.log.WarnContext(ctx, "agent: the studio key was revoked; the studio is disconnected", "studio", studioID)
			msg := msgRevoked + "\n" + msgProposalsRevoked
			if ran > 0 {
				msg = strings.Join(lines, "\n") + "\n\n" + msg
			}
			return decision{messages: []string{msg}, outcome: "revoked"}, nil
		case r.Outcome == executor.Unavailable && ctx.Err() != nil:
			return decision{}, ctx.Err() // the retry runs it, under the same key
		case errors.Is(r.Err, laneclient.ErrInProgress):
			// A process killed inside the lane call left its key claimed; the
			// lane frees the claim after a minute, and the job's retry runs it.
			return decision{}, fmt.Errorf("proposal %s: an earlier attempt still holds its Idempotency-Key: %s", p.ID, r.Sentence)
		}
		if err := a.step("executed"); err != nil {
			return decision{}, err
		}
		state, route, status := store.ProposalExecuted, auditExecuted, r.Status
		line := fmt.Sprintf("✅ %s", p.Summary)
		if r.Failed() {
			// Reported, not retried: the studio changed since the proposal.
			state, route = store.ProposalFailed, auditFailed
			line = fmt.Sprintf("❌ %s: לא בוצע. %s", p.Summary, r.Sentence)
		}
		if len(decided) > 1 {
			line = fmt.Sprintf("%d. %s", p.Num, line)
		}
		finished, err := ps.Finish(context.WithoutCancel(ctx), p.ID, state, line, a.now())
		if err != nil {
			return decision{}, err
		}
		if finished {
			p.DecidedTurnID = t.ID
			a.auditProposal(ctx, p, route, status)
		}
		lines = append(lines, line)
		ran++
	}
	if ran == 0 {
		return decision{messages: []string{msgNothingConfirmed}, outcome: "proposals_declined"}, nil
	}
	return decision{messages: []string{strings.Join(lines, "\n")}, outcome: "proposals_executed"}, nil
}

// cancelProposals is the kill switch's part: every waiting proposal of the
// studio is cancelled.
func (a *Agent) cancelProposals(ctx context.Context, studioID, turnID string) error {
	n, err := a.st.Proposals().CancelStudio(ctx, studioID, a.now())
	if err != nil || n == 0 {
		return err
	}
	a.auditProposal(ctx, store.AgentProposal{StudioID: studioID, DecidedTurnID: turnID}, auditCancelled, http.StatusGone)
	return nil
}

// step is the test hook between the steps of a confirmation.
func (a *Agent) step(name string) error {
	if a.proposalStep == nil {
		return nil
	}
	return a.proposalStep(name)
}

// auditProposal records one step of a proposal in the studio's audit, with
// the turn that took it as the request id.
func (a *Agent) auditProposal(ctx context.Context, p store.AgentProposal, route string, status int) {
	turnID := p.DecidedTurnID
	if turnID == "" {
		turnID = p.TurnID
	}
	ev := domain.AuditEvent{
		ID: ids.New(ids.Audit), StudioID: p.StudioID, CredentialID: "", Method: "AGENT", Route: route,
		ResourceID: p.ID, Status: status, RequestID: turnID, Source: domain.SourceAgent, At: a.now().UTC(),
	}
	if err := a.st.InsertAudit(context.WithoutCancel(ctx), []domain.AuditEvent{ev}); err != nil {
		a.log.WarnContext(ctx, "agent: auditing a proposal step failed", "proposal", p.ID, "step", route, "err", err)
	}
}

// proposalTurn is answerProposals with the exchange kept in the history,
// so the model later knows what the coach confirmed.
func (a *Agent) proposalTurn(ctx context.Context, t *turn, studioID, apiKey string) (decision, bool, []store.AgentProposal, error) {
	d, handled, pending, err := a.answerProposals(ctx, t, studioID, apiKey)
	if handled && err == nil {
		d.history = []historyEntry{{"user", t.Text}, {"assistant", strings.Join(d.messages, "\n")}}
	}
	return d, handled, pending, err
}

// proposalsAfter is the message that ends a turn whose model proposed
// writes: the phone's pending proposals and how to answer.
func (a *Agent) proposalsAfter(ctx context.Context, t *turn, studioID string, p *proposer) (string, error) {
	if p.made == 0 {
		return "", nil
	}
	pending, err := a.st.Proposals().Pending(ctx, t.Phone, studioID)
	return a.proposalsMessage(pending), err
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/store"
)

// replyArgs is the reply job: the phone and the message that scheduled
// it, and when the reply is due (Unix ms, real clock; 0: at once).
type replyArgs struct {
	Phone string `json:"phone"`
	Seq   int64  `json:"seq"`
	Due   int64  `json:"due,omitempty"`
}

func (replyArgs) Kind() string { return "agent_reply" }

type replyWorker struct {
	river.WorkerDefaults[replyArgs]
	a *Agent
}

// turnTimeout leaves room for eight model steps and their tools. River
// rescues a crashed job only after it, but the recovery job resumes a
// crashed turn as soon as its lease expires.
const turnTimeout = 90 * time.Second

func (w *replyWorker) Timeout(*river.Job[replyArgs]) time.Duration { return turnTimeout }

// maxHold is the longest a worker holds a reply job for its debounce; a
// job due later is snoozed until closer to its time.
const maxHold = 15 * time.Second

func (w *replyWorker) Work(ctx context.Context, job *river.Job[replyArgs]) error {
	if wait := time.Until(time.UnixMilli(job.Args.Due)); job.Args.Due > 0 && wait > 0 {
		if wait > maxHold {
			return river.JobSnooze(wait - maxHold/2)
		}
		// A newer message of the phone has its own job, which answers the
		// whole burst: nothing to hold this one for.
		seqs, err := w.a.st.Agent().PendingSeqs(ctx, job.Args.Phone)
		if err != nil {
			return err
		}
		if len(seqs) == 0 || seqs[len(seqs)-1] > job.Args.Seq {
			return nil
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The attempt is part of the owner: a rescued job must not take over a
	// lease its crashed earlier attempt still holds until it expires.
	owner := fmt.Sprintf("job:%d:%d", job.ID, job.Attempt)
	return w.a.reply(ctx, job.Args.Phone, job.Args.Seq, owner)
}

// errBusy means another turn holds the phone; the job comes back shortly.
var errBusy = errors.New("another turn is running for this phone")

// busyRetry is how soon a job blocked by a running turn tries again.
const busyRetry = 500 * time.Millisecond

// reply is one reply job: under the phone's lease it first finishes a turn a
// crash left open, then, unless a newer message of the burst will answer,
// claims the oldest pending messages that fit a turn (bounds.go) and runs
// it, and the next, while pending messages remain and the job has time for
// another turn. When it stops with messages pending, the reply job the
// claim scheduled (or the requeue) takes over.
func (a *Agent) reply(ctx context.Context, phoneKey string, seq int64, owner string) error {
	err := a.withLease(ctx, "phone:"+phoneKey, owner, func(ctx context.Context) error {
		if err := a.resumeOpenTurn(ctx, phoneKey); err != nil {
			return err
		}
		for {
			t, err := a.claim(ctx, phoneKey, seq)
			if err != nil || t == nil {
				return err
			}
			if err := a.runTurn(ctx, t); err != nil {
				return err
			}
			if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < turnTimeout/2 {
				return nil
			}
		}
	})
	if errors.Is(err, errBusy) {
		if a.onBusy != nil {
			a.onBusy(phoneKey)
		}
		return river.JobSnooze(busyRetry)
	}
	return err
}

// turn is one reply: the burst's joined text and where the reply goes.
type turn = store.AgentTurn

func (a *Agent) resumeOpenTurn(ctx context.Context, phoneKey string) error {
	t, err := a.st.Agent().OpenTurn(ctx, phoneKey)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "agent: resuming an interrupted turn", "turn", t.ID, "state", t.State)
	return a.runTurn(ctx, &t)
}

// runTurn decides the reply of an open turn (once), then sends whatever of
// it is not yet sent and closes the turn.
func (a *Agent) runTurn(ctx context.Context, t *turn) error {
	if t.State == "open" {
		out, err := a.decide(a.meterSteps(ctx, t), t)
		if err != nil {
			return err
		}
		if t.Cut && len(out.messages) > 0 {
			out.messages = append(out.messages, cutNotice(t.Text))
		}
		if err := a.commitDecision(ctx, t, out); err != nil {
			return err
		}
		if a.turnObserver != nil {
			a.turnObserver(out.outcome)
		}
	}
	if err := a.sendChunks(ctx, t); err != nil {
		return err
	}
	return a.st.Agent().FinishTurn(ctx, t.ID, a.now())
}

// decision is what a turn answers: the messages to send, what to remember
// and a word for logs and metrics.
type decision struct {
	messages []string
	history  []historyEntry
	outcome  string
	studioID string           // the studio the turn ran in; "" before one is chosen
	link     *store.PhoneLink // the phone's new studio link, if the turn made one
	ask      []string         // the coach (or trainee) ids of a studio question the turn asks

	role        string             // roleTrainee for a trainee's turn, "" for a coach's
	traineeLink *store.TraineeLink // the phone's new trainee link, if the turn made one
	// also are the turn's other records (a trainee's consent, her logs),
	// written with its reply.
	also []func(ctx context.Context, tx store.Store) error
}

// commitDecision writes the reply's chunks and the history in one
// transaction, so from here on a crash only ever resumes the sending.
func (a *Agent) commitDecision(ctx context.Context, t *turn, d decision) error {
	now := a.now()
	err := a.st.InTx(ctx, func(tx store.Store) error {
		ag := tx.Agent()
		if err := a.fenceLease(ctx, ag, "phone:"+t.Phone); err != nil {
			return err
		}
		if err := ag.StartSending(ctx, t.ID, d.outcome, d.studioID); err != nil {
			return err
		}
		if d.link != nil {
			if err := ag.LinkPhone(ctx, *d.link); err != nil {
				return err
			}
		}
		if d.traineeLink != nil {
			if err := ag.LinkTrainee(ctx, *d.traineeLink); err != nil {
				return err
			}
		}
		if d.role == roleTrainee {
			if err := ag.MarkTraineeTurn(ctx, t.ID); err != nil {
				return err
			}
		}
		for _, write := range d.also {
			if err := write(ctx, tx); err != nil {
				return err
			}
		}
		if d.ask != nil {
			if err := ag.AskStudioChoice(ctx, t.Phone, d.ask, now); err != nil {
				return err
			}
		}
		var chunks []string
		for _, m := range d.messages {
			chunks = append(chunks, Chunks(m)...)
		}
		if err := ag.AddChunks(ctx, t.ID, t.ConversationID, chunks); err != nil {
			return err
		}
		if len(d.history) > 0 {
			entries := make([]store.AgentHistoryEntry, len(d.history))
			for i, h := range d.history {
				entries[i] = store.AgentHistoryEntry(h)
			}
			conversation := t.Phone
			if d.role == roleTrainee {
				conversation = traineeConversation(t.Phone)
			}
			if err := ag.AppendHistory(ctx, conversation, d.studioID, entries, now, historyEntries); err != nil {
				return err
			}
		}
		return ag.Sweep(ctx, now.Add(-historyMaxAge), now.UTC().AddDate(0, 0, -1).Format(time.DateOnly))
	})
	if err == nil {
		t.State = "sending"
	}
	return err
}

// sendChunks sends the turn's unsent chunks in order, recording each right
// after the gateway accepts it. A gateway failure fails the job; its retry
// resumes here.
func (a *Agent) sendChunks(ctx context.Context, t *turn) error {
	ag := a.st.Agent()
	chunks, err := ag.UnsentChunks(ctx, t.ID)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if err := a.fenceLease(ctx, ag, "phone:"+t.Phone); err != nil {
			return err
		}
		if err := a.gateway.Send(ctx, c.ConversationID, c.Text); err != nil {
			var refused *SendError
			if !errors.As(err, &refused) || !refused.Permanent() {
				return fmt.Errorf("sending chunk %d of turn %s: %w", c.Idx, t.ID, err)
			}
			// Retrying cannot help, and a stuck turn would block the phone:
			// the chunk is given up (recorded like a sent one) and logged.
			a.log.ErrorContext(ctx, "agent: SmartSend refused a reply chunk; giving it up", "turn", t.ID, "chunk", c.Idx, "err", err)
		}
		// Recorded even if the job's context is ending: the gateway accepted it.
		if err := ag.MarkChunkSent(context.WithoutCancel(ctx), t.ID, c.Idx, a.now()); err != nil {
			return err
		}
	}
	return nil
}

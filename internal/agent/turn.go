package agent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/ids"
)

// replyArgs is the reply job: the phone and the message that scheduled it.
type replyArgs struct {
	Phone string `json:"phone"`
	Seq   int64  `json:"seq"`
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

func (w *replyWorker) Work(ctx context.Context, job *river.Job[replyArgs]) error {
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
// claims every pending message into a new turn and runs it.
func (a *Agent) reply(ctx context.Context, phoneKey string, seq int64, owner string) error {
	err := a.withLease(ctx, "phone:"+phoneKey, owner, func(ctx context.Context) error {
		if err := a.resumeOpenTurn(ctx, phoneKey); err != nil {
			return err
		}
		t, err := a.claim(ctx, phoneKey, seq)
		if err != nil || t == nil {
			return err
		}
		return a.runTurn(ctx, t)
	})
	if errors.Is(err, errBusy) {
		return river.JobSnooze(busyRetry)
	}
	return err
}

// turn is one reply: the burst's joined text and where the reply goes.
type turn struct {
	ID             string
	Phone          string
	ConversationID string
	Text           string
	State          string // open, sending, done
}

func (a *Agent) resumeOpenTurn(ctx context.Context, phoneKey string) error {
	t := &turn{Phone: phoneKey}
	err := a.db.QueryRowContext(ctx, a.q.openTurn, phoneKey).Scan(&t.ID, &t.ConversationID, &t.Text, &t.State)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	a.log.InfoContext(ctx, "agent: resuming an interrupted turn", "turn", t.ID, "state", t.State)
	return a.runTurn(ctx, t)
}

// claim takes the phone's pending messages into a new turn, in one
// transaction. It returns nil when a newer message is pending (its own job
// answers the whole burst) or nothing fresh is pending. Messages older than
// an hour are dropped, never answered late.
func (a *Agent) claim(ctx context.Context, phoneKey string, seq int64) (*turn, error) {
	now := a.now()
	var t *turn
	err := a.inTx(ctx, func(tx *sql.Tx) error {
		var newer int
		if err := tx.QueryRowContext(ctx, a.q.newerPending, phoneKey, seq).Scan(&newer); err != nil {
			return err
		}
		if newer > 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, a.q.dropStale, phoneKey, now.Add(-pendingMaxAge).UnixMilli()); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, a.q.pendingMessages, phoneKey)
		if err != nil {
			return err
		}
		var texts []string
		var lastSeq int64
		var conversation string
		for rows.Next() {
			var text string
			var received int64
			if err := rows.Scan(&lastSeq, &conversation, &text, &received); err != nil {
				rows.Close()
				return err
			}
			texts = append(texts, text)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(texts) == 0 {
			return nil
		}
		t = &turn{ID: ids.New(ids.AgentMessage), Phone: phoneKey, ConversationID: conversation, Text: strings.Join(texts, "\n"), State: "open"}
		if _, err := tx.ExecContext(ctx, a.q.insertTurn, t.ID, phoneKey, conversation, t.Text, now.UnixMilli()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, a.q.claimMessages, t.ID, phoneKey, lastSeq)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != int64(len(texts)) {
			return fmt.Errorf("claimed %d of %d pending messages: another turn raced this one", n, len(texts))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// runTurn decides the reply of an open turn (once), then sends whatever of
// it is not yet sent and closes the turn.
func (a *Agent) runTurn(ctx context.Context, t *turn) error {
	if t.State == "open" {
		out, err := a.decide(ctx, t)
		if err != nil {
			return err
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
	_, err := a.db.ExecContext(ctx, a.q.finishTurn, a.now().UnixMilli(), t.ID)
	return err
}

// decision is what a turn answers: the messages to send, what to remember
// and a word for logs and metrics.
type decision struct {
	messages []string
	history  []historyEntry
	outcome  string
	studioID string // the studio the turn ran in; "" before one is chosen
}

// commitDecision writes the reply's chunks and the history in one
// transaction, so from here on a crash only ever resumes the sending.
func (a *Agent) commitDecision(ctx context.Context, t *turn, d decision) error {
	now := a.now()
	return a.inTx(ctx, func(tx *sql.Tx) error {
		if err := a.fenceLease(ctx, tx, "phone:"+t.Phone); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, a.q.startSending, d.outcome, nullIfEmpty(d.studioID), t.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("turn %s was decided by another worker", t.ID)
		}
		idx := 0
		for _, m := range d.messages {
			for _, c := range Chunks(m) {
				if _, err := tx.ExecContext(ctx, a.q.insertChunk, t.ID, idx, t.ConversationID, c); err != nil {
					return err
				}
				idx++
			}
		}
		if len(d.history) > 0 {
			if d.studioID == "" {
				return fmt.Errorf("turn %s has history to keep but no studio", t.ID)
			}
			for i, h := range d.history {
				// Entries of one turn share a time; seq keeps their order.
				if _, err := tx.ExecContext(ctx, a.q.insertHistory, t.Phone, d.studioID, h.Role, h.Text, now.UnixMilli()+int64(i)); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, a.q.trimHistory, t.Phone, d.studioID, t.Phone, d.studioID, historyEntries); err != nil {
				return err
			}
		}
		t.State = "sending"
		return a.sweep(ctx, tx, now)
	})
}

// sendChunks sends the turn's unsent chunks in order, recording each right
// after the gateway accepts it. A gateway failure fails the job; its retry
// resumes here.
func (a *Agent) sendChunks(ctx context.Context, t *turn) error {
	rows, err := a.db.QueryContext(ctx, a.q.unsentChunks, t.ID)
	if err != nil {
		return err
	}
	type chunk struct {
		idx          int
		conversation string
		text         string
	}
	var chunks []chunk
	for rows.Next() {
		var c chunk
		if err := rows.Scan(&c.idx, &c.conversation, &c.text); err != nil {
			rows.Close()
			return err
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range chunks {
		if err := a.fenceLease(ctx, a.db, "phone:"+t.Phone); err != nil {
			return err
		}
		if err := a.gateway.Send(ctx, c.conversation, c.text); err != nil {
			var refused *SendError
			if !errors.As(err, &refused) || !refused.Permanent() {
				return fmt.Errorf("sending chunk %d of turn %s: %w", c.idx, t.ID, err)
			}
			// Retrying cannot help, and a stuck turn would block the phone:
			// the chunk is given up (recorded like a sent one) and logged.
			a.log.ErrorContext(ctx, "agent: SmartSend refused a reply chunk; giving it up", "turn", t.ID, "chunk", c.idx, "err", err)
		}
		// Recorded even if the job's context is ending: the gateway accepted it.
		if _, err := a.db.ExecContext(context.WithoutCancel(ctx), a.q.markChunkSent, a.now().UnixMilli(), t.ID, c.idx); err != nil {
			return err
		}
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
)

// pendingMessage is an accepted inbound message on its way to the database.
type pendingMessage struct {
	phone          string
	conversationID string
	text           string
	receivedAt     int64
	done           chan error
}

// intake writes accepted messages and their reply jobs in batches: the
// webhook calls that arrive while a batch commits go together in the next
// transaction (group commit). Each call returns only after its message and
// job are committed, so a 200 never loses a message; one transaction per
// batch keeps SQLite's single writer busy with work, not with lock waits.
type intake struct {
	a       *Agent
	queue   chan *pendingMessage
	writers int
	start   sync.Once

	// mu guards closed and, held for reading, a send on queue, so close
	// never closes queue under a sender. loops counts the writers running.
	mu      sync.RWMutex
	closed  bool
	loops   sync.WaitGroup
	running atomic.Int32 // writers running, for tests
}

// errIntakeClosed answers a message that arrives while the agent shuts
// down; the webhook answers an error, so the sender delivers it again (to
// this instance restarted, or another).
var errIntakeClosed = errors.New("the agent is shutting down and takes no new messages; the sender retries")

const maxIntakeBatch = 256

func newIntake(a *Agent, engine string) *intake {
	writers := 1 // SQLite has one writer anyway
	if engine == store.EnginePostgres {
		writers = 4
	}
	return &intake{a: a, queue: make(chan *pendingMessage, maxIntakeBatch), writers: writers}
}

// add queues m and waits until its transaction commits or fails.
func (in *intake) add(ctx context.Context, m pendingMessage) error {
	if in.a.jobs.Load() == nil {
		return errors.New("the agent's job client is not set yet")
	}
	m.done = make(chan error, 1)
	if err := in.enqueue(ctx, &m); err != nil {
		return err
	}
	// Once queued the message is written whatever happens to the request.
	return <-m.done
}

func (in *intake) enqueue(ctx context.Context, m *pendingMessage) error {
	in.mu.RLock()
	defer in.mu.RUnlock()
	if in.closed {
		return errIntakeClosed
	}
	in.start.Do(func() {
		in.loops.Add(in.writers)
		for range in.writers {
			in.running.Add(1)
			go func() {
				defer in.loops.Done()
				defer in.running.Add(-1)
				in.loop()
			}()
		}
	})
	select {
	case in.queue <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close refuses new messages, lets the writers write what is queued, and
// waits for them to return.
func (in *intake) close() {
	in.mu.Lock()
	if !in.closed {
		in.closed = true
		close(in.queue)
	}
	in.mu.Unlock()
	in.loops.Wait()
}

func (in *intake) loop() {
	for first := range in.queue {
		in.writeBatch(in.batchFrom(first))
	}
}

// batchFrom is first and the messages queued behind it, up to a batch. A
// closed queue ends the batch: a receive from it is no message (before, a
// close with messages queued filled the batch with nils).
func (in *intake) batchFrom(first *pendingMessage) []*pendingMessage {
	batch := []*pendingMessage{first}
	for len(batch) < maxIntakeBatch {
		select {
		case m, ok := <-in.queue:
			if !ok {
				return batch
			}
			batch = append(batch, m)
		default:
			return batch
		}
	}
	return batch
}

// writeBatch writes a batch and tells each message how it went. When the
// batch fails it is written again one message at a time, so a message the
// database refuses fails alone, not with the innocent ones batched with it.
func (in *intake) writeBatch(batch []*pendingMessage) {
	err := in.write(batch)
	if err == nil || len(batch) == 1 {
		for _, m := range batch {
			m.done <- err
		}
		return
	}
	in.a.log.Warn("agent intake: a batch failed; writing its messages one at a time", "messages", len(batch), "err", err)
	for _, m := range batch {
		m.done <- in.write([]*pendingMessage{m})
	}
}

// write stores a batch of messages and schedules one reply job each, in one
// transaction. Which returned seq belongs to which of a phone's messages
// does not matter: a phone's jobs only compare seqs, and the set of seqs
// per phone is what it is.
func (in *intake) write(batch []*pendingMessage) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := in.a
	client := a.jobs.Load()
	msgs := make([]store.AgentMessage, len(batch))
	for i, m := range batch {
		msgs[i] = store.AgentMessage{Phone: m.phone, ConversationID: m.conversationID, Text: m.text, ReceivedAt: time.UnixMilli(m.receivedAt)}
	}
	// The reply is due when the debounce ends, on the real clock; its job
	// is available at once and held by its worker until then (turn.go).
	var due int64
	if a.debounce > 0 {
		due = time.Now().Add(a.debounce).UnixMilli()
	}
	return a.st.InTx(ctx, func(tx store.Store) error {
		refs, err := tx.Agent().InsertMessages(ctx, msgs)
		if err != nil {
			return err
		}
		params := make([]river.InsertManyParams, len(refs))
		for i, r := range refs {
			params[i] = river.InsertManyParams{
				Args:       replyArgs{Phone: r.Phone, Seq: r.Seq, Due: due},
				InsertOpts: &river.InsertOpts{MaxAttempts: jobMaxAttempts, Queue: jobs.QueueHolding},
			}
		}
		if _, err := client.InsertManyFastTx(ctx, tx.SQLTx(), params); err != nil {
			return fmt.Errorf("scheduling the replies: %w", err)
		}
		return nil
	})
}

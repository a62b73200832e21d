package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"

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
}

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
	in.start.Do(func() {
		for range in.writers {
			go in.loop()
		}
	})
	m.done = make(chan error, 1)
	select {
	case in.queue <- &m:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued the message is written whatever happens to the request.
	return <-m.done
}

func (in *intake) loop() {
	for first := range in.queue {
		batch := []*pendingMessage{first}
	fill:
		for len(batch) < maxIntakeBatch {
			select {
			case m := <-in.queue:
				batch = append(batch, m)
			default:
				break fill
			}
		}
		in.writeBatch(batch)
	}
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
	jobs := a.jobs.Load()
	msgs := make([]store.AgentMessage, len(batch))
	for i, m := range batch {
		msgs[i] = store.AgentMessage{Phone: m.phone, ConversationID: m.conversationID, Text: m.text, ReceivedAt: time.UnixMilli(m.receivedAt)}
	}
	var scheduled time.Time
	if a.debounce > 0 {
		scheduled = time.Now().Add(a.debounce) // River schedules on the real clock
	}
	return a.st.InTx(ctx, func(tx store.Store) error {
		refs, err := tx.Agent().InsertMessages(ctx, msgs)
		if err != nil {
			return err
		}
		params := make([]river.InsertManyParams, len(refs))
		for i, r := range refs {
			params[i] = river.InsertManyParams{
				Args:       replyArgs{Phone: r.Phone, Seq: r.Seq},
				InsertOpts: &river.InsertOpts{MaxAttempts: jobMaxAttempts, ScheduledAt: scheduled},
			}
		}
		if _, err := jobs.InsertManyFastTx(ctx, tx.SQLTx(), params); err != nil {
			return fmt.Errorf("scheduling the replies: %w", err)
		}
		return nil
	})
}

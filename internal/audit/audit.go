// Package audit records one event per lane request. Writer batches events
// to the store off the request path: a request hands its event to a buffered
// channel and one goroutine inserts batches every FlushInterval (250 ms) or
// every BatchSize (200) events, whichever comes first.
//
// What a crash can lose: the events still buffered, that is at most one flush
// interval's worth (the last 250 ms of requests). Close flushes everything
// buffered, so a graceful shutdown loses nothing.
//
// When the buffer is full (the database is slower than the traffic), Record
// blocks up to BlockTimeout for room and then drops the event, counting it in
// Dropped and logging: audit must not stall the lane indefinitely.
package audit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"log/slog"

	"github.com/otherwise/perform/internal/domain"
)

// Sink receives audit events.
type Sink interface {
	Record(domain.AuditEvent)
}

// Inserter is what Writer needs of the store (store.Store satisfies it).
type Inserter interface {
	InsertAudit(ctx context.Context, events []domain.AuditEvent) error
}

// Defaults of Options.
const (
	FlushInterval = 250 * time.Millisecond
	BatchSize     = 200
	BufferSize    = 4096
	BlockTimeout  = 100 * time.Millisecond
)

// Options tune a Writer; zero values take the defaults above.
type Options struct {
	FlushInterval time.Duration
	BatchSize     int
	BufferSize    int
	BlockTimeout  time.Duration
	Logger        *slog.Logger
}

// Writer is a batching Sink backed by the store.
type Writer struct {
	store   Inserter
	opts    Options
	logger  *slog.Logger
	events  chan domain.AuditEvent
	flushRq chan chan struct{}
	done    chan struct{}

	// mu guards closing events: Record sends under the read lock, Close
	// closes under the write lock, so no send hits a closed channel.
	mu      sync.RWMutex
	closed  bool
	dropped atomic.Int64
	written atomic.Int64
}

// NewWriter starts a Writer; call Close to flush and stop it.
func NewWriter(store Inserter, opts Options) *Writer {
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = FlushInterval
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = BatchSize
	}
	if opts.BufferSize <= 0 {
		opts.BufferSize = BufferSize
	}
	if opts.BlockTimeout <= 0 {
		opts.BlockTimeout = BlockTimeout
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w := &Writer{
		store:   store,
		opts:    opts,
		logger:  logger,
		events:  make(chan domain.AuditEvent, opts.BufferSize),
		flushRq: make(chan chan struct{}),
		done:    make(chan struct{}),
	}
	go w.run()
	return w
}

// Record queues e. It never blocks longer than BlockTimeout; after Close it
// drops the event (and counts it).
func (w *Writer) Record(e domain.AuditEvent) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.drop(e, "the audit writer is closed")
		return
	}
	select {
	case w.events <- e:
		return
	default:
	}
	t := time.NewTimer(w.opts.BlockTimeout)
	defer t.Stop()
	select {
	case w.events <- e:
	case <-t.C:
		w.drop(e, "the audit buffer stayed full")
	}
}

func (w *Writer) drop(e domain.AuditEvent, why string) {
	w.dropped.Add(1)
	w.logger.Warn("audit event dropped", "reason", why, "requestId", e.RequestID, "route", e.Route)
}

// Flush writes everything recorded before the call and returns when done.
func (w *Writer) Flush() {
	ack := make(chan struct{})
	select {
	case w.flushRq <- ack:
		<-ack
	case <-w.done:
	}
}

// Close flushes what is buffered and stops the writer. Events recorded
// after Close are dropped.
func (w *Writer) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.events)
	}
	w.mu.Unlock()
	<-w.done
	return nil
}

// Dropped is the number of events lost to a full buffer, a failed insert or
// a closed writer.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Written is the number of events inserted.
func (w *Writer) Written() int64 { return w.written.Load() }

func (w *Writer) run() {
	defer close(w.done)
	tick := time.NewTicker(w.opts.FlushInterval)
	defer tick.Stop()
	batch := make([]domain.AuditEvent, 0, w.opts.BatchSize)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		w.insert(batch)
		batch = batch[:0]
	}
	for {
		select {
		case e, ok := <-w.events:
			if !ok {
				flush()
				return
			}
			batch = append(batch, e)
			if len(batch) >= w.opts.BatchSize {
				flush()
			}
		case <-tick.C:
			flush()
		case ack := <-w.flushRq:
			// Take what is already queued, then write it.
			for drained := false; !drained; {
				select {
				case e, ok := <-w.events:
					if !ok {
						drained = true
						break
					}
					batch = append(batch, e)
					if len(batch) >= w.opts.BatchSize {
						flush()
					}
				default:
					drained = true
				}
			}
			flush()
			close(ack)
		}
	}
}

func (w *Writer) insert(batch []domain.AuditEvent) {
	// A detached context with a deadline: shutdown must not cancel the last flush.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.store.InsertAudit(ctx, batch); err != nil {
		w.dropped.Add(int64(len(batch)))
		w.logger.Error("audit insert failed; events lost", "events", len(batch), "err", err)
		return
	}
	w.written.Add(int64(len(batch)))
}

// Package audit records one event per lane request. Writer batches events
// to the store off the request path: a request hands its event to a buffered
// channel and one goroutine inserts batches every FlushInterval (250 ms) or
// every BatchSize (200) events, whichever comes first.
//
// What a crash can lose: the events still buffered, that is at most one flush
// interval's worth (the last 250 ms of requests) of the events handed to
// Record. Close flushes everything buffered, so a graceful shutdown loses
// nothing. The lane hands the events of writes to RecordDurable instead,
// which inserts before the write is answered: a crash loses no audit row
// of an acknowledged write, only of reads (which changed nothing).
//
// An event keeps what was asked in a form every database accepts: its
// strings pass text.Printable (a NUL or a stray byte in a path id is stored
// as \x00, \xff), and a route or resource id is cut at maxField bytes. A
// batch the store refuses is written again one row at a time, so one bad
// row never costs the others; a row that still fails is counted (Dropped,
// and perform_audit_events_lost_total) and logged.
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
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/text"
)

// Sink receives audit events.
type Sink interface {
	Record(domain.AuditEvent)
}

// DurableSink is a Sink that can also write an event before returning, for
// the events that must survive a crash the moment their answer is sent:
// those of writes (the lane holds a write's answer until its row is in).
type DurableSink interface {
	Sink
	RecordDurable(domain.AuditEvent)
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
	e = storable(e)
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.drop(e, "closed", "the audit writer is closed")
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
		w.drop(e, "buffer_full", "the audit buffer stayed full")
	}
}

// RecordDurable inserts e before it returns, in its own statement, so the
// row is in the database before the write it records is acknowledged. If
// the insert fails (the database refused or timed out), e is queued as
// Record does, where the batch is retried row by row, and the failure is
// logged: the write itself has already committed and is answered as done.
func (w *Writer) RecordDurable(e domain.AuditEvent) {
	e = storable(e)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.store.InsertAudit(ctx, []domain.AuditEvent{e}); err != nil {
		w.logger.Warn("writing a write's audit event at once failed; it is queued instead", "requestId", e.RequestID, "studioId", e.StudioID, "err", err)
		w.Record(e)
		return
	}
	w.written.Add(1)
}

// storable is e with every string the caller could choose escaped
// (text.Printable), so the row is one the database takes and a terminal
// shows as it is.
func storable(e domain.AuditEvent) domain.AuditEvent {
	for _, s := range []*string{&e.ID, &e.StudioID, &e.CredentialID, &e.Method, &e.Route, &e.ResourceID, &e.RequestID, &e.Source} {
		*s = text.Truncate(text.Printable(*s), maxField)
	}
	return e
}

// maxField bounds each string of an audit row: an unmatched route is the
// raw path, as long as the caller made it.
const maxField = 500

func (w *Writer) drop(e domain.AuditEvent, reason, why string) {
	w.dropped.Add(1)
	metrics.AuditLost(reason)
	w.logger.Warn("audit event dropped", "reason", why, "requestId", e.RequestID, "studioId", e.StudioID, "route", e.Route)
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
	err := w.store.InsertAudit(ctx, batch)
	if err == nil {
		w.written.Add(int64(len(batch)))
		return
	}
	if len(batch) == 1 {
		w.lose(batch[0], err)
		return
	}
	// One row may be what the store refuses: write each on its own so the
	// others are kept.
	w.logger.Warn("audit batch insert failed; writing its events one by one", "events", len(batch), "err", err)
	for _, e := range batch {
		one, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := w.store.InsertAudit(one, []domain.AuditEvent{e})
		cancel()
		if err != nil {
			w.lose(e, err)
			continue
		}
		w.written.Add(1)
	}
}

// lose counts and logs one event the store would not take.
func (w *Writer) lose(e domain.AuditEvent, err error) {
	w.dropped.Add(1)
	metrics.AuditLost("insert_failed")
	w.logger.Error("audit event lost: the store refused it", "requestId", e.RequestID, "studioId", e.StudioID, "route", e.Route, "err", err)
}

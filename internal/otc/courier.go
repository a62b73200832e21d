package otc

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/secret"
)

// A Courier sends every door's codes as River jobs (decision 18): each job
// is inserted in the transaction that writes its code (Codes.WithTx), so a
// code goes out only if its row committed, and a rolled-back request sends
// nothing; the job outlives the request and its process. The job carries
// the code sealed (AES-256-GCM, internal/secret), never in plain text at
// rest: under PERFORM_SECRET_KEY, which every instance shares, so any of
// them sends it; or, when that is unset, under a key of this process's own,
// in a queue only this process works (Queue). A code whose process ended
// before sending it is then never sent: its job cannot be opened, is
// dropped, and the person asks for another code. A code that expired on
// its way is dropped too.

// CodeJobKind is the River kind of a code on its way.
const CodeJobKind = "one_time_code"

// codeJob is one code on its way: the door, and the message sealed.
type codeJob struct {
	Purpose string `json:"purpose"`
	Sealed  string `json:"sealed"` // sealedCode as JSON, sealed with codeAAD(Purpose)
}

func (codeJob) Kind() string { return CodeJobKind }

// sealedCode is what a code job carries, sealed.
type sealedCode struct {
	Subject string        `json:"subject"`
	To      string        `json:"to"`
	Code    string        `json:"code"`
	TTL     time.Duration `json:"ttl"`
	Note    string        `json:"note,omitempty"`
}

func codeAAD(purpose string) string { return "perform one-time code\x00" + purpose }

// Courier sends the codes of the doors that deliver through it.
type Courier struct {
	box    *secret.Box
	queue  string // this process's own queue (a key of its own), or "" (any instance)
	jobs   atomic.Pointer[river.Client[*sql.Tx]]
	logger *slog.Logger

	mu      sync.RWMutex
	senders map[string]Sender // by purpose
}

// NewCourier seals under key (PERFORM_SECRET_KEY, 32 bytes), or, with no
// key, under a fresh key of this process's own whose jobs go to Queue.
func NewCourier(key []byte, logger *slog.Logger) (*Courier, error) {
	q := &Courier{logger: logger, senders: map[string]Sender{}}
	if q.logger == nil {
		q.logger = slog.New(slog.DiscardHandler)
	}
	if len(key) == 0 {
		key = secret.NewKey()
		q.queue = "otc_" + strings.ToLower(ids.New(ids.Request)[4:])
	}
	box, err := secret.New(key)
	if err != nil {
		return nil, err
	}
	q.box = box
	return q, nil
}

// Queue is the River queue only this process works, when its codes are
// sealed under a key of its own; "" when every instance opens them. The
// River client must work it (jobs.Config.Queues).
func (q *Courier) Queue() string { return q.queue }

// Register adds the code jobs' worker.
func (q *Courier) Register(workers *river.Workers) { river.AddWorker(workers, &codeWorker{q: q}) }

// SetJobs gives the courier the River client its jobs are inserted with.
func (q *Courier) SetJobs(c *river.Client[*sql.Tx]) { q.jobs.Store(c) }

// Deliver makes s the sender of purpose's codes: the door's text, its
// gateway. A door built with this Courier (Options.Courier) calls it.
func (q *Courier) Deliver(purpose string, s Sender) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.senders[purpose] = s
}

func (q *Courier) sender(purpose string) Sender {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.senders[purpose]
}

// enqueue inserts m's job in tx, sealed.
func (q *Courier) enqueue(ctx context.Context, tx *sql.Tx, m Message) error {
	client := q.jobs.Load()
	if client == nil {
		return errors.New("otc: the job queue is not running yet, so no code can be sent; try again in a moment")
	}
	plain, err := json.Marshal(sealedCode{Subject: m.Subject, To: m.To, Code: m.Code, TTL: m.TTL, Note: m.Note})
	if err != nil {
		return err
	}
	opts := &river.InsertOpts{MaxAttempts: 3, Queue: q.queue}
	if _, err := client.InsertTx(ctx, tx, codeJob{Purpose: m.Purpose, Sealed: q.box.Seal(string(plain), codeAAD(m.Purpose))}, opts); err != nil {
		return fmt.Errorf("queueing the one-time code: %w", err)
	}
	return nil
}

// codeWorker sends the sealed codes.
type codeWorker struct {
	river.WorkerDefaults[codeJob]
	q *Courier
}

// Timeout bounds one send.
func (w *codeWorker) Timeout(*river.Job[codeJob]) time.Duration { return SendTimeout }

// NextRetry tries a failed send again soon: a code works for minutes.
func (w *codeWorker) NextRetry(job *river.Job[codeJob]) time.Time {
	return time.Now().Add(time.Duration(job.Attempt) * 2 * time.Second)
}

func (w *codeWorker) Work(ctx context.Context, job *river.Job[codeJob]) error {
	q := w.q
	plain, err := q.box.Open(job.Args.Sealed, codeAAD(job.Args.Purpose))
	if err != nil {
		q.logger.WarnContext(ctx, "a one-time code on its way cannot be opened (sealed by a process that has ended, or under another PERFORM_SECRET_KEY), so it is dropped: its person asks for another",
			"purpose", job.Args.Purpose)
		return river.JobCancel(err)
	}
	var m sealedCode
	if err := json.Unmarshal([]byte(plain), &m); err != nil {
		return river.JobCancel(err)
	}
	if m.To == "" { // a code to nobody, queued so a miss looks like a match
		return nil
	}
	// Expired on its way, by the queue's own clock (the door's may be a
	// test's): a code works for TTL from when its job was queued.
	if time.Since(job.CreatedAt) >= m.TTL {
		q.logger.WarnContext(ctx, "a one-time code expired before it could be sent, so it is dropped", "purpose", job.Args.Purpose, "phone", phone.Masked(m.To))
		return nil
	}
	s := q.sender(job.Args.Purpose)
	if s == nil {
		return river.JobCancel(fmt.Errorf("no door sends %q codes in this process", job.Args.Purpose))
	}
	if err := s.Send(ctx, Message{Purpose: job.Args.Purpose, Subject: m.Subject, To: m.To, Code: m.Code, TTL: m.TTL, Note: m.Note}); err != nil {
		q.logger.WarnContext(ctx, "the one-time code could not be sent", "purpose", job.Args.Purpose, "phone", phone.Masked(m.To), "err", err, "attempt", job.Attempt)
		return err
	}
	return nil
}

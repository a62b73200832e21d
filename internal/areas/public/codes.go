package public

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/otc"
	"github.com/otherwise/perform/internal/phone"
)

// A verification code goes out as a River job when PERFORM_SECRET_KEY is
// set: the job carries the message sealed under the key (AES-256-GCM,
// internal/secret), never the code in clear, so a code on its way
// survives a crash and any instance sends it. The code could instead stay
// in the one_time_codes row and be sent by reference, but internal/otc
// keeps only the code's hash there, on purpose: a database dump then
// holds no working code, and a sealed job holds none without the key
// either. Without a key the code is sent from this process, as before.

// codeKind is the code job's kind.
const codeKind = "platform_code"

// codeArgs is one verification code on its way, sealed.
type codeArgs struct {
	Sealed string `json:"sealed"` // codeMessage as JSON, sealed with codeAAD
}

func (codeArgs) Kind() string { return codeKind }

const codeAAD = "perform platform verification code"

// codeMessage is what a code job carries, sealed.
type codeMessage struct {
	To   string        `json:"to"`
	Code string        `json:"code"`
	Note string        `json:"note"`
	TTL  time.Duration `json:"ttl"`
}

// queueCode is the codes' otc.Sender: a job when a key seals it, else the
// send itself (otc runs it in the background).
func (a *Area) queueCode(ctx context.Context, m otc.Message) error {
	client := a.jobs.Load()
	if client == nil || a.box == nil {
		return a.sendCode(ctx, codeMessage{To: m.To, Code: m.Code, Note: m.Note, TTL: m.TTL})
	}
	plain, err := json.Marshal(codeMessage{To: m.To, Code: m.Code, Note: m.Note, TTL: m.TTL})
	if err != nil {
		return err
	}
	_, err = client.Insert(ctx, codeArgs{Sealed: a.box.Seal(string(plain), codeAAD)}, &river.InsertOpts{MaxAttempts: 3})
	if err != nil {
		return fmt.Errorf("queueing the verification code: %w", err)
	}
	return nil
}

// sendCode sends one code over WhatsApp, or writes it to the log without
// a gateway.
func (a *Area) sendCode(ctx context.Context, m codeMessage) error {
	if a.gateway == nil {
		a.logger.InfoContext(ctx, "agent platform verification code (no WhatsApp gateway is configured, so it is written here)", "phone", phone.Masked(m.To), "code", m.Code)
		return nil
	}
	text := fmt.Sprintf("%s verification code: %s\nIt works for %d minutes. Give it only to the %s assistant you are talking to.", m.Note, m.Code, int(m.TTL/time.Minute), m.Note)
	return a.gateway.Send(ctx, strings.TrimPrefix(m.To, "+"), text)
}

// codeWorker sends the sealed codes.
type codeWorker struct {
	river.WorkerDefaults[codeArgs]
	a *Area
}

// Timeout is otc's for one send.
func (w *codeWorker) Timeout(*river.Job[codeArgs]) time.Duration { return otc.SendTimeout }

// NextRetry tries a failed send again soon: a code works for minutes.
func (w *codeWorker) NextRetry(job *river.Job[codeArgs]) time.Time {
	return time.Now().Add(time.Duration(job.Attempt) * 2 * time.Second)
}

func (w *codeWorker) Work(ctx context.Context, job *river.Job[codeArgs]) error {
	a := w.a
	if a.box == nil {
		return river.JobCancel(fmt.Errorf("a verification code sealed with PERFORM_SECRET_KEY, and this server has none"))
	}
	plain, err := a.box.Open(job.Args.Sealed, codeAAD)
	if err != nil {
		return river.JobCancel(fmt.Errorf("a verification code that cannot be opened: %w", err))
	}
	var m codeMessage
	if err := json.Unmarshal([]byte(plain), &m); err != nil {
		return river.JobCancel(err)
	}
	// A code that expired on its way is not sent: it would not work.
	if time.Since(job.CreatedAt) >= m.TTL {
		a.logger.WarnContext(ctx, "agent platform: a verification code expired before it could be sent", "phone", phone.Masked(m.To))
		return nil
	}
	if err := a.sendCode(ctx, m); err != nil {
		a.logger.WarnContext(ctx, "the verification code could not be sent over WhatsApp", "phone", phone.Masked(m.To), "err", err, "attempt", job.Attempt)
		return err
	}
	return nil
}

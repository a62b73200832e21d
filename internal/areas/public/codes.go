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

// A verification code goes out as every door's does: a River job of
// otc.Courier's, inserted in the transaction that writes the code, sealed
// (see internal/otc). This door's part is the text (deliverCode). The
// jobs of the kind below were queued before that, sealed under
// PERFORM_SECRET_KEY; codeWorker still sends the ones left.

// codeKind is the code job's kind before otc.Courier sent the codes.
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

// deliverCode is the codes' otc.Sender: the code's text over WhatsApp.
func (a *Area) deliverCode(ctx context.Context, m otc.Message) error {
	return a.sendCode(ctx, codeMessage{To: m.To, Code: m.Code, Note: m.Note, TTL: m.TTL})
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

package payhook

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/phone"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
)

// Path is where the server serves the webhook: outside the automation
// lane, since a processor holds no studio key; the token names the
// studio, and the signature proves the sender.
const Path = "/v1/hooks/payments/{token}"

// Route is Path with its method, as the server mounts it.
const Route = "POST " + Path

// maxBody bounds a delivery's body (Stripe's events are a few KB).
const maxBody = 1 << 20

// Source is the source of the payments the webhook records and of its
// audit rows.
const Source = "processor"

// HookOptions configure the webhook's handler.
type HookOptions struct {
	Store store.Store
	// SecretKey is PERFORM_SECRET_KEY: without it no hook can be opened,
	// and every delivery is answered 503.
	SecretKey []byte
	// Recorder records the payments (nil: the studio's books, Books).
	Recorder PaymentRecorder
	Now      func() time.Time
	Logger   *slog.Logger
}

// Hook serves Path.
type Hook struct {
	o          HookOptions
	box        *secret.Box
	processors map[string]Processor
}

// NewHook is the webhook's handler; an error only for a SecretKey that is
// not a key.
func NewHook(o HookOptions) (*Hook, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Recorder == nil {
		o.Recorder = Books{}
	}
	h := &Hook{o: o, processors: map[string]Processor{"stripe": stripe{}}}
	if len(o.SecretKey) > 0 {
		box, err := secret.New(o.SecretKey)
		if err != nil {
			return nil, err
		}
		h.box = box
	}
	return h, nil
}

// Outcome is the webhook's answer to a delivery it took.
type Outcome struct {
	EventID   string `json:"eventId"`
	Outcome   string `json:"outcome"`
	PaymentID string `json:"paymentId,omitempty"`
	// Duplicate: the event was taken before; nothing was recorded now.
	Duplicate bool `json:"duplicate,omitempty"`
}

type refusal struct {
	status int
	code   string
	msg    string
	err    error // logged, never answered
}

func (h *Hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	out, studioID, ref := h.serve(r)
	if ref != nil {
		if ref.status >= 500 {
			h.o.Logger.Error("payments webhook", "status", ref.status, "error", ref.err)
		}
		_ = httpx.WriteError(w, ref.status, httpx.ErrorBody{Code: ref.code, Message: ref.msg}, 0, "")
		return
	}
	h.o.Logger.Info("payments webhook", "studio", studioID, "event", out.EventID, "outcome", out.Outcome, "duplicate", out.Duplicate)
	_ = httpx.WriteData(w, http.StatusOK, out, "")
}

func (h *Hook) serve(r *http.Request) (Outcome, string, *refusal) {
	token := r.PathValue("token")
	if !validToken(token) {
		return Outcome{}, "", noHook
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return Outcome{}, "", &refusal{status: http.StatusRequestEntityTooLarge, code: lane.CodeBadRequest, msg: "The body is over 1 MiB; a processor's event is a few KB."}
		}
		return Outcome{}, "", &refusal{status: http.StatusBadRequest, code: lane.CodeBadRequest, msg: "The body could not be read."}
	}
	ctx := r.Context()
	hook, err := h.o.Store.PaymentHooks().PaymentHookByToken(ctx, tokenHash(token))
	if errors.Is(err, store.ErrNotFound) {
		return Outcome{}, "", noHook
	} else if err != nil {
		return Outcome{}, "", internal(err)
	}
	if h.box == nil {
		return Outcome{}, "", &refusal{status: http.StatusServiceUnavailable, code: "UNAVAILABLE", msg: "This server runs without PERFORM_SECRET_KEY, so it cannot read the studio's signing secret; the operator sets the key the secret was sealed with.", err: errors.New("no PERFORM_SECRET_KEY")}
	}
	signing, err := h.box.Open(hook.Secret, sealedFor(hook.StudioID))
	if err != nil {
		return Outcome{}, "", &refusal{status: http.StatusServiceUnavailable, code: "UNAVAILABLE", msg: "The studio's signing secret was sealed under another PERFORM_SECRET_KEY; the studio rotates the webhook to make a new one.", err: err}
	}
	proc, ok := h.processors[hook.Processor]
	if !ok {
		return Outcome{}, "", internal(fmt.Errorf("the hook's processor %q is not one Perform maps", hook.Processor))
	}
	now := h.o.Now()
	if err := proc.Verify(r.Header, body, signing, now); err != nil {
		return Outcome{}, "", &refusal{status: http.StatusBadRequest, code: lane.CodeBadRequest, msg: "Refused: " + err.Error() + "."}
	}
	ev, err := proc.Parse(body)
	if err != nil {
		return Outcome{}, "", &refusal{status: http.StatusBadRequest, code: lane.CodeValidation, msg: "Refused: " + err.Error() + "."}
	}
	out, err := h.take(ctx, hook.StudioID, ev, now)
	if err != nil {
		return Outcome{}, "", internal(err)
	}
	return out, hook.StudioID, nil
}

var noHook = &refusal{status: http.StatusNotFound, code: lane.CodeNotFound, msg: "No payments webhook is on at this URL: the studio turned it off or rotated it to a new URL (GET /v1/automation/payments-webhook)."}

func internal(err error) *refusal {
	return &refusal{http.StatusInternalServerError, lane.CodeInternal, "The event could not be recorded now; the processor retries it.", err}
}

// take records ev in one transaction: the event once (a delivery of an
// event already taken records nothing), the trainee it names, the payment
// or refund, its audit row.
func (h *Hook) take(ctx context.Context, studioID string, ev Event, now time.Time) (Outcome, error) {
	var out Outcome
	err := h.o.Store.InTx(ctx, func(tx store.Store) error {
		studio, err := tx.StudioByID(ctx, studioID)
		if err != nil {
			return err
		}
		occurred := ev.Occurred
		if occurred.IsZero() {
			occurred = now
		}
		pe := store.PaymentEvent{StudioID: studioID, Processor: ev.Processor, EventID: ev.ID, Type: ev.Type, ObjectID: ev.ObjectID,
			ExternalID: ev.ExternalID, AmountMinor: ev.Amount, Currency: ev.Currency, Payer: payer(ev), Outcome: store.PaymentEventIgnored,
			Detail: ev.Detail, Livemode: ev.Livemode, OccurredAt: occurred, ReceivedAt: now}
		if ev.Kind == Refunded {
			pe.AmountMinor = 0 // what this refund adds, below
		}
		ph := tx.PaymentHooks()
		kept, err := ph.AddPaymentEvent(ctx, &pe)
		if err != nil {
			return err
		}
		if !kept {
			out = Outcome{EventID: ev.ID, Outcome: "duplicate", Duplicate: true}
			return nil
		}
		if err := h.settle(ctx, tx, studio, ev, &pe); err != nil {
			return err
		}
		if err := ph.SettlePaymentEvent(ctx, pe); err != nil {
			return err
		}
		out = Outcome{EventID: ev.ID, Outcome: pe.Outcome, PaymentID: pe.PaymentID}
		return tx.InsertAudit(ctx, []domain.AuditEvent{{ID: ids.New(ids.Audit), StudioID: studioID, CredentialID: "payments-webhook",
			Method: http.MethodPost, Route: Route, ResourceID: pe.ID, Status: http.StatusOK, Source: Source, At: now}})
	})
	return out, err
}

// settle decides what ev records and records it, writing the outcome
// into pe.
func (h *Hook) settle(ctx context.Context, tx store.Store, studio domain.Studio, ev Event, pe *store.PaymentEvent) error {
	switch ev.Kind {
	case Ignored:
		if pe.Detail == "" {
			pe.Detail = "Perform maps no " + ev.Type + " event"
		}
		return nil
	case Failed:
		trainee, how, err := match(ctx, tx, studio, ev)
		if err != nil {
			return err
		}
		pe.TraineeID, pe.Outcome = trainee, store.PaymentEventFailed
		pe.Detail = "the processor could not collect the payment; nothing was recorded"
		if trainee != "" {
			pe.Detail += " (trainee " + how + ")"
		}
		return nil
	}

	p := Payment{Currency: ev.Currency, PaidOn: lane.LocalDay(pe.OccurredAt, studio.TimeZone()), ExternalID: ev.ExternalID}
	trainee, how := "", ""
	if ev.Kind == Refunded {
		rec, err := tx.PaymentHooks().RecordedFor(ctx, studio.ID, ev.Reverses, ev.ObjectID)
		if err != nil {
			return err
		}
		add := ev.Amount - rec.Refunded
		if add <= 0 {
			pe.Outcome, pe.Detail = store.PaymentEventAlreadyRecorded, "the refunds of this charge are recorded already"
			return nil
		}
		p.Amount, p.ReversesID = -add, rec.PaymentID
		pe.AmountMinor, pe.Reverses = -add, rec.PaymentID
		if rec.TraineeID != "" {
			trainee, how = rec.TraineeID, "by the payment it refunds"
		}
		p.Note = fmt.Sprintf("Refund on %s (%s)", ev.Processor, ev.ObjectID)
	} else {
		p.Amount = ev.Amount
		p.Note = fmt.Sprintf("Paid on %s (%s)", ev.Processor, ev.ExternalID)
	}
	if trainee == "" {
		var err error
		if trainee, how, err = match(ctx, tx, studio, ev); err != nil {
			return err
		}
	}
	if trainee == "" {
		pe.Outcome = store.PaymentEventUnmatched
		pe.Detail = "no trainee of the studio matches the payment's metadata (" + MetadataTraineeKey + "), phone or email; match it with POST /v1/automation/payment-events/{id}/match"
		return nil
	}
	pe.TraineeID = trainee
	return record(ctx, h.o.Recorder, tx, studio.ID, p, trainee, how, pe)
}

// record records p for trainee and writes the outcome into pe.
func record(ctx context.Context, books PaymentRecorder, tx store.Store, studioID string, p Payment, trainee, how string, pe *store.PaymentEvent) error {
	if books == nil {
		return errors.New("the webhook has no books to record payments in")
	}
	p.TraineeID = trainee
	id, created, err := books.RecordPayment(ctx, tx, studioID, p)
	if errors.Is(err, store.ErrPayment) {
		// The books refuse it as it stands (a refund of a payment they do
		// not hold): it waits for a coach, saying why.
		pe.Outcome, pe.Detail = store.PaymentEventUnmatched, "the books refused it: "+err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	pe.PaymentID, pe.Outcome = id, store.PaymentEventRecorded
	pe.Detail = "trainee " + how
	if !created {
		pe.Outcome, pe.Detail = store.PaymentEventAlreadyRecorded, "another event recorded this payment (external id "+p.ExternalID+")"
	}
	return nil
}

// match finds the studio's trainee the event names: by the id its
// metadata carries, else her phone, else her email (one trainee with it).
// "" when none does; how says which matched.
func match(ctx context.Context, tx store.Store, studio domain.Studio, ev Event) (trainee, how string, err error) {
	ss := tx.Studio(studio.ID)
	if ids.Valid(ev.TraineeID, ids.Trainee) {
		t, err := ss.GetTrainee(ctx, ev.TraineeID)
		switch {
		case err == nil:
			return t.ID, "by the payment's " + MetadataTraineeKey, nil
		case !errors.Is(err, store.ErrNotFound):
			return "", "", err
		}
	}
	if ev.Phone != "" {
		if e164, perr := phone.Normalize(ev.Phone, studio.Region); perr == nil {
			t, err := ss.TraineeByPhone(ctx, e164)
			switch {
			case err == nil:
				return t.ID, "by phone", nil
			case !errors.Is(err, store.ErrNotFound):
				return "", "", err
			}
		}
	}
	if ev.Email != "" {
		found, err := tx.PaymentHooks().TraineesByEmail(ctx, studio.ID, ev.Email)
		if err != nil {
			return "", "", err
		}
		if len(found) == 1 {
			return found[0], "by email", nil
		}
	}
	return "", "", nil
}

// payer is what the processor said of who paid, for the coach to match by.
func payer(ev Event) string {
	s := ""
	for _, v := range []string{ev.Name, ev.Email, ev.Phone} {
		if v == "" {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += v
	}
	return clip(s, 400)
}

// tokenHash is what a hook's URL token is stored as.
func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// sealedFor binds a sealed signing secret to its studio.
func sealedFor(studioID string) string { return "payments-webhook:" + studioID }

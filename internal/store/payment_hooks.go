package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/ids"
)

// PaymentHookStore is the payment processors' webhook of each studio
// (internal/areas/payhook; tables payment_hooks and payment_events): the
// hook, found by the hash of its URL's token, and every event it took,
// once.
type PaymentHookStore interface {
	// PaymentHook is the studio's hook; ErrNotFound when it is off.
	PaymentHook(ctx context.Context, studioID string) (PaymentHook, error)
	// PaymentHookByToken is the hook whose URL token hashes to hash, in
	// one indexed query; ErrNotFound for none.
	PaymentHookByToken(ctx context.Context, hash []byte) (PaymentHook, error)
	// PutPaymentHook writes the studio's hook, replacing the one it had.
	PutPaymentHook(ctx context.Context, h PaymentHook) error
	// DeletePaymentHook turns the studio's hook off; false when it was off.
	// The events it took are kept.
	DeletePaymentHook(ctx context.Context, studioID string) (bool, error)

	// AddPaymentEvent keeps an event once: false (and nothing written)
	// when the studio's hook already took an event of that id from that
	// processor. Inside a transaction a second writer of the same event
	// waits for the first and then answers false.
	AddPaymentEvent(ctx context.Context, e *PaymentEvent) (bool, error)
	// SettlePaymentEvent writes an event's outcome: its trainee, payment,
	// amount recorded, the payment it reverses, outcome and detail.
	SettlePaymentEvent(ctx context.Context, e PaymentEvent) error
	// PaymentEvent is one event of the studio; ErrNotFound for none.
	PaymentEvent(ctx context.Context, studioID, id string) (PaymentEvent, error)
	// ListPaymentEvents is the studio's events, newest first, of one
	// outcome when outcome is not "".
	ListPaymentEvents(ctx context.Context, studioID, outcome string, page Page) (List[PaymentEvent], error)
	// RecordedFor is what events of the studio recorded already: the
	// payment recorded by an event whose external id is one of externalIDs
	// (its id and trainee, "" for none), and the refunds recorded against
	// objectID (a charge), in minor units, so a refund event records only
	// what it adds.
	RecordedFor(ctx context.Context, studioID string, externalIDs []string, objectID string) (Recorded, error)
	// FailedPayments are the latest payment_failed event since since of
	// each trainee named who has had no payment recorded by an event after
	// it (of a later time, or of the same second and received later), by
	// trainee.
	FailedPayments(ctx context.Context, studioID string, traineeIDs []string, since time.Time) (map[string]PaymentEvent, error)
	// PaymentLinks are the payment links of the studio's plans named, by
	// plan id (a plan without one is not in the map).
	PaymentLinks(ctx context.Context, studioID string, productIDs []string) (map[string]string, error)
	// PutPaymentLink sets the plan's payment link; ErrNotFound when the
	// plan is not the studio's.
	PutPaymentLink(ctx context.Context, studioID, productID, url string, at time.Time) error
	// DeletePaymentLink removes the plan's payment link; false when it had none.
	DeletePaymentLink(ctx context.Context, studioID, productID string) (bool, error)
	// TraineesByEmail are the ids of the studio's trainees whose email is
	// email, case aside (at most two: more than one is no match).
	TraineesByEmail(ctx context.Context, studioID, email string) ([]string, error)
}

// PaymentHook is a studio's webhook: TokenHash is the SHA-256 of the
// token in its URL, TokenHint the token's first characters (to tell URLs
// apart), Secret the signing secret sealed under PERFORM_SECRET_KEY.
type PaymentHook struct {
	StudioID  string
	TokenHash []byte
	TokenHint string
	Secret    string
	Processor string
	CreatedAt time.Time
	RotatedAt time.Time
}

// PaymentEvent is one event a studio's webhook took.
type PaymentEvent struct {
	ID        string `json:"id"`
	StudioID  string `json:"-"`
	Processor string `json:"processor"`
	EventID   string `json:"eventId"`
	Type      string `json:"type"`
	ObjectID  string `json:"objectId,omitempty"`
	// ExternalID is the id the payment is recorded by (the invoice, the
	// payment intent, the refund), so two events about one payment record
	// it once.
	ExternalID string `json:"externalId,omitempty"`
	// Reverses is the payment a refund reverses ("" when not known).
	Reverses string `json:"reverses,omitempty"`
	// AmountMinor is what the event records, in minor units of Currency:
	// a refund's is below zero.
	AmountMinor int64     `json:"-"`
	Currency    string    `json:"currency,omitempty"`
	Payer       string    `json:"payer,omitempty"`
	TraineeID   string    `json:"traineeId,omitempty"`
	PaymentID   string    `json:"paymentId,omitempty"`
	Outcome     string    `json:"outcome"`
	Detail      string    `json:"detail,omitempty"`
	Livemode    bool      `json:"livemode"`
	OccurredAt  time.Time `json:"occurredAt"`
	ReceivedAt  time.Time `json:"receivedAt"`
}

// Recorded is what a studio's payment events recorded already (RecordedFor).
type Recorded struct {
	PaymentID string
	TraineeID string
	Refunded  int64
}

// The outcomes of a payment event.
const (
	PaymentEventRecorded        = "recorded"
	PaymentEventAlreadyRecorded = "already_recorded"
	PaymentEventUnmatched       = "unmatched"
	PaymentEventFailed          = "payment_failed"
	PaymentEventIgnored         = "ignored"
)

type paymentHookStore struct{ *sqlStore }

func (s *sqlStore) PaymentHooks() PaymentHookStore { return paymentHookStore{s} }

const paymentHookColumns = `studio_id, token_hash, token_hint, secret_sealed, processor, created_at, rotated_at`

func scanPaymentHook(row *sql.Row) (PaymentHook, error) {
	var h PaymentHook
	var created, rotated int64
	err := row.Scan(&h.StudioID, &h.TokenHash, &h.TokenHint, &h.Secret, &h.Processor, &created, &rotated)
	h.CreatedAt, h.RotatedAt = fromMS(created), fromMS(rotated)
	return h, notFound(err)
}

func (s paymentHookStore) PaymentHook(ctx context.Context, studioID string) (PaymentHook, error) {
	return scanPaymentHook(s.queryRow(ctx, `SELECT `+paymentHookColumns+` FROM payment_hooks WHERE studio_id = ?`, studioID))
}

func (s paymentHookStore) PaymentHookByToken(ctx context.Context, hash []byte) (PaymentHook, error) {
	return scanPaymentHook(s.queryRow(ctx, `SELECT `+paymentHookColumns+` FROM payment_hooks WHERE token_hash = ?`, hash))
}

func (s paymentHookStore) PutPaymentHook(ctx context.Context, h PaymentHook) error {
	_, err := s.exec(ctx, `INSERT INTO payment_hooks (`+paymentHookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (studio_id) DO UPDATE SET token_hash = excluded.token_hash, token_hint = excluded.token_hint,
			secret_sealed = excluded.secret_sealed, processor = excluded.processor, rotated_at = excluded.rotated_at`,
		h.StudioID, h.TokenHash, h.TokenHint, h.Secret, h.Processor, ms(h.CreatedAt), ms(h.RotatedAt))
	return err
}

func (s paymentHookStore) DeletePaymentHook(ctx context.Context, studioID string) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM payment_hooks WHERE studio_id = ?`, studioID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s paymentHookStore) AddPaymentEvent(ctx context.Context, e *PaymentEvent) (bool, error) {
	s.fillNew(&e.ID, ids.PaymentEvent, &e.ReceivedAt)
	res, err := s.exec(ctx, `INSERT INTO payment_events (id, studio_id, processor, event_id, type, object_id, external_id, reverses,
			amount_minor, currency, payer, trainee_id, payment_id, outcome, detail, livemode, occurred_at, received_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (studio_id, processor, event_id) DO NOTHING`,
		e.ID, e.StudioID, e.Processor, e.EventID, e.Type, e.ObjectID, e.ExternalID, e.Reverses,
		e.AmountMinor, e.Currency, e.Payer, nullString(e.TraineeID), e.PaymentID, e.Outcome, e.Detail, e.Livemode, ms(e.OccurredAt), ms(e.ReceivedAt))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s paymentHookStore) SettlePaymentEvent(ctx context.Context, e PaymentEvent) error {
	res, err := s.exec(ctx, `UPDATE payment_events SET trainee_id = ?, payment_id = ?, amount_minor = ?, reverses = ?, outcome = ?, detail = ?
		WHERE studio_id = ? AND id = ?`, nullString(e.TraineeID), e.PaymentID, e.AmountMinor, e.Reverses, e.Outcome, e.Detail, e.StudioID, e.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return missing("payment event", e.ID)
	}
	return nil
}

const paymentEventColumns = `id, studio_id, processor, event_id, type, object_id, external_id, reverses, amount_minor, currency, payer,
	trainee_id, payment_id, outcome, detail, livemode, occurred_at, received_at`

func scanPaymentEvent(row scanner) (PaymentEvent, error) {
	var e PaymentEvent
	var trainee sql.NullString
	var occurred, received int64
	err := row.Scan(&e.ID, &e.StudioID, &e.Processor, &e.EventID, &e.Type, &e.ObjectID, &e.ExternalID, &e.Reverses, &e.AmountMinor,
		&e.Currency, &e.Payer, &trainee, &e.PaymentID, &e.Outcome, &e.Detail, &e.Livemode, &occurred, &received)
	e.TraineeID, e.OccurredAt, e.ReceivedAt = trainee.String, fromMS(occurred), fromMS(received)
	return e, err
}

func (s paymentHookStore) PaymentEvent(ctx context.Context, studioID, id string) (PaymentEvent, error) {
	e, err := scanPaymentEvent(s.queryRow(ctx, `SELECT `+paymentEventColumns+` FROM payment_events WHERE studio_id = ? AND id = ?`, studioID, id))
	if notFound(err) == ErrNotFound {
		return e, missing("payment event", id)
	}
	return e, err
}

func (s paymentHookStore) ListPaymentEvents(ctx context.Context, studioID, outcome string, page Page) (List[PaymentEvent], error) {
	var out List[PaymentEvent]
	where, args := `studio_id = ?`, []any{studioID}
	if outcome != "" {
		where, args = where+` AND outcome = ?`, append(args, outcome)
	}
	if err := s.queryRow(ctx, `SELECT count(*) FROM payment_events WHERE `+where, args...).Scan(&out.Total); err != nil {
		return out, err
	}
	rows, err := s.query(ctx, `SELECT `+paymentEventColumns+` FROM payment_events WHERE `+where+`
		ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, page.Limit, page.Offset)...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	out.Items = []PaymentEvent{}
	for rows.Next() {
		e, err := scanPaymentEvent(rows)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, e)
	}
	return out, rows.Err()
}

func (s paymentHookStore) RecordedFor(ctx context.Context, studioID string, externalIDs []string, objectID string) (Recorded, error) {
	var out Recorded
	if len(externalIDs) > 0 {
		args := []any{studioID, PaymentEventRecorded, PaymentEventAlreadyRecorded}
		for _, id := range externalIDs {
			args = append(args, id)
		}
		var trainee sql.NullString
		err := s.queryRow(ctx, `SELECT payment_id, trainee_id FROM payment_events
			WHERE studio_id = ? AND outcome IN (?, ?) AND payment_id <> '' AND amount_minor > 0 AND external_id IN (`+placeholders(len(externalIDs))+`)
			ORDER BY received_at, id LIMIT 1`, args...).Scan(&out.PaymentID, &trainee)
		if err != nil && notFound(err) != ErrNotFound {
			return out, err
		}
		out.TraineeID = trainee.String
	}
	if objectID != "" {
		err := s.queryRow(ctx, `SELECT coalesce(-sum(amount_minor), 0) FROM payment_events
			WHERE studio_id = ? AND object_id = ? AND amount_minor < 0 AND outcome = ?`, studioID, objectID, PaymentEventRecorded).Scan(&out.Refunded)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s paymentHookStore) TraineesByEmail(ctx context.Context, studioID, email string) ([]string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return nil, nil
	}
	rows, err := s.query(ctx, `SELECT id FROM trainees WHERE studio_id = ? AND lower(email) = ? ORDER BY id LIMIT 2`, studioID, email)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (s paymentHookStore) PaymentLinks(ctx context.Context, studioID string, productIDs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(productIDs) == 0 {
		return out, nil
	}
	args := []any{studioID}
	for _, id := range productIDs {
		args = append(args, id)
	}
	rows, err := s.query(ctx, `SELECT product_id, url FROM plan_payment_links WHERE studio_id = ? AND product_id IN (`+placeholders(len(productIDs))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, url string
		if err := rows.Scan(&id, &url); err != nil {
			return nil, err
		}
		out[id] = url
	}
	return out, rows.Err()
}

func (s paymentHookStore) PutPaymentLink(ctx context.Context, studioID, productID, url string, at time.Time) error {
	return s.atomic(ctx, func(q querier) error {
		var n int
		if err := q.QueryRowContext(ctx, s.q(`SELECT count(*) FROM products WHERE studio_id = ? AND id = ?`), studioID, productID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return missing("plan", productID)
		}
		_, err := q.ExecContext(ctx, s.q(`INSERT INTO plan_payment_links (product_id, studio_id, url, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (product_id) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`), productID, studioID, url, ms(at))
		return err
	})
}

func (s paymentHookStore) DeletePaymentLink(ctx context.Context, studioID, productID string) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM plan_payment_links WHERE studio_id = ? AND product_id = ?`, studioID, productID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s paymentHookStore) FailedPayments(ctx context.Context, studioID string, traineeIDs []string, since time.Time) (map[string]PaymentEvent, error) {
	out := map[string]PaymentEvent{}
	if len(traineeIDs) == 0 {
		return out, nil
	}
	args := []any{studioID, PaymentEventFailed, ms(since)}
	for _, id := range traineeIDs {
		args = append(args, id)
	}
	args = append(args, PaymentEventRecorded, PaymentEventAlreadyRecorded)
	rows, err := s.query(ctx, `SELECT `+paymentEventColumns+` FROM payment_events f
		WHERE f.studio_id = ? AND f.outcome = ? AND f.occurred_at >= ? AND f.trainee_id IN (`+placeholders(len(traineeIDs))+`)
		AND NOT EXISTS (SELECT 1 FROM payment_events p WHERE p.studio_id = f.studio_id AND p.trainee_id = f.trainee_id
			AND p.outcome IN (?, ?) AND p.amount_minor > 0
			AND (p.occurred_at > f.occurred_at OR p.occurred_at = f.occurred_at AND p.received_at > f.received_at))
		ORDER BY f.occurred_at, f.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanPaymentEvent(rows)
		if err != nil {
			return nil, err
		}
		out[e.TraineeID] = e // the latest last
	}
	return out, rows.Err()
}

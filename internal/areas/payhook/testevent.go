package payhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
)

// TestEvent is a Stripe invoice.paid event of amount minor units of
// currency for trainee, as a studio's payment link would carry her
// (metadata perform_trainee_id), with fresh event and invoice ids: signed
// with Sign under the studio's secret, it records a payment as Stripe's
// would. livemode is false, as in Stripe's own test mode.
func TestEvent(traineeID string, amount int64, currency string, at time.Time) []byte {
	event, invoice := "evt_test_"+ids.New(ids.Request)[4:], "in_test_"+ids.New(ids.Request)[4:]
	b, _ := json.Marshal(map[string]any{
		"id": event, "object": "event", "type": "invoice.paid", "created": at.Unix(), "livemode": false,
		"data": map[string]any{"object": map[string]any{
			"id": invoice, "object": "invoice", "amount_paid": amount, "amount_due": amount, "currency": currency,
			"metadata": map[string]string{MetadataTraineeKey: traineeID},
		}},
	})
	return b
}

// SigningSecret opens the studio's signing secret, to sign test events.
func SigningSecret(ctx context.Context, st store.Store, box *secret.Box, studioID string) (string, error) {
	if box == nil {
		return "", ErrNoSecretKey
	}
	h, err := st.PaymentHooks().PaymentHook(ctx, studioID)
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrOff
	} else if err != nil {
		return "", err
	}
	s, err := box.Open(h.Secret, sealedFor(studioID))
	if err != nil {
		return "", fmt.Errorf("the studio's signing secret was sealed under another PERFORM_SECRET_KEY; rotate the webhook: %w", err)
	}
	return s, nil
}

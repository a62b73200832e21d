// Package payhook is a payment processor's signed webhook per studio:
// its URL token and signing secret (sealed under PERFORM_SECRET_KEY), the
// routes a studio turns it on, rotates and turns it off with, the events it
// took (those no trainee matched wait for the coach), and the handler the
// server serves at Path. Stripe is the processor it maps (stripe.go).
package payhook

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"log/slog"
	"strings"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/training"
)

// Options configure the area.
type Options struct {
	// SecretKey is PERFORM_SECRET_KEY: without it the webhook cannot be
	// turned on.
	SecretKey []byte
	// PublicURL is the origin the webhook's URL is given on
	// (PERFORM_PUBLIC_URL).
	PublicURL string
	// Recorder records the payments a coach matches to a trainee (nil:
	// the studio's books, Books).
	Recorder PaymentRecorder
	Logger   *slog.Logger
}

// Area is the payments webhook's routes.
type Area struct {
	o   Options
	box *secret.Box
}

// New builds the area. A SecretKey that is not a key is logged, and the
// webhook cannot be turned on.
func New(o Options) *Area {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Recorder == nil {
		o.Recorder = Books{}
	}
	a := &Area{o: o}
	if len(o.SecretKey) > 0 {
		box, err := secret.New(o.SecretKey)
		if err != nil {
			o.Logger.Error("payments webhook: PERFORM_SECRET_KEY is unusable, so the webhook cannot be turned on", "err", err)
		}
		a.box = box
	}
	return a
}

// Routes adds the webhook's settings, its events and the plans' payment links.
func (a *Area) Routes(rs *lane.Routes) {
	a.settingRoutes(rs)
	a.eventRoutes(rs)
	a.linkRoutes(rs)
}

// Declare says what the area holds: the events its webhook took, and
// the trainees whose payment failed at the processor (needs-attention,
// and so the coach's morning digest).
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns, lane.Noun{Kind: ids.PaymentEvent, Collections: []string{"payment-events"}})
	d.Adds.Codes = []lane.ReasonCode{{Code: ReasonPaymentFailed, Means: "a payment failed at the processor in 14 days, none since", Scope: auth.ScopeBilling}}
	d.Adds.Reasons = failedReasons
}

// ReasonPaymentFailed is the needs-attention reason of a trainee whose
// payment failed at the processor in the last FailedDays days, with none
// recorded since.
const ReasonPaymentFailed = "payment_failed"

// FailedDays is how long a failed payment stays a reason.
const FailedDays = 14

func failedReasons(c *lane.Call, trainees []string) (map[string][]training.Reason, error) {
	if !c.P.Has(auth.ScopeBilling) || len(trainees) == 0 {
		return nil, nil // what trainees paid is for a credential holding billing
	}
	failed, err := c.DB().PaymentHooks().FailedPayments(c.Ctx, c.P.StudioID, trainees, c.Now().AddDate(0, 0, -FailedDays))
	if err != nil {
		return nil, err
	}
	out := make(map[string][]training.Reason, len(failed))
	for id, e := range failed {
		amount := money.Money{Minor: e.AmountMinor, Currency: e.Currency}
		day := lane.LocalDay(e.OccurredAt, c.Zone())
		out[id] = []training.Reason{{Code: ReasonPaymentFailed, Severity: 45,
			Message: fmt.Sprintf("A payment of %s failed at %s on %s, and none came in since.", amount, strings.ToUpper(e.Processor[:1])+e.Processor[1:], day),
			Numbers: map[string]any{"amount": amount, "failedOn": day, "paymentEventId": e.ID}}}
	}
	return out, nil
}

// tokenPrefix starts every webhook URL token.
const tokenPrefix = "pwh_"

var tokenEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// tokenLen is the length of a token: the prefix and 160 random bits.
var tokenLen = len(tokenPrefix) + tokenEncoding.EncodedLen(20)

func newToken() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return tokenPrefix + tokenEncoding.EncodeToString(b)
}

// validToken reports whether s is a token as newToken makes them: any
// other path names no hook, without a query.
func validToken(s string) bool {
	if len(s) != tokenLen || !strings.HasPrefix(s, tokenPrefix) {
		return false
	}
	_, err := tokenEncoding.DecodeString(s[len(tokenPrefix):])
	return err == nil
}

// newSigningSecret is a signing secret Perform makes, in Stripe's form.
func newSigningSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "whsec_" + strings.ToLower(tokenEncoding.EncodeToString(b))
}

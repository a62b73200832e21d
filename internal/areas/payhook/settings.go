package payhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
)

// Status is a studio's webhook, without its URL or secret.
type Status struct {
	Enabled   bool   `json:"enabled"`
	Processor string `json:"processor,omitempty"`
	// URLHint is the URL's start, to tell which one the processor has.
	URLHint   string     `json:"urlHint,omitempty"`
	CreatedAt *time.Time `json:"createdAt,omitempty"`
	RotatedAt *time.Time `json:"rotatedAt,omitempty"`
	// Unmatched counts the events no trainee matched, waiting for the
	// coach (GET /payment-events?outcome=unmatched).
	Unmatched int `json:"unmatchedEvents"`
	// CanEnable is false on a server without PERFORM_SECRET_KEY.
	CanEnable bool `json:"canEnable"`
}

// Turned is the webhook just turned on or rotated: its URL and, when
// Perform made it, its signing secret, shown this once.
type Turned struct {
	Status
	// URL is the webhook's new URL; "" when a rotation kept it.
	URL string `json:"url,omitempty"`
	// SigningSecret is the secret Perform made; "" when the studio gave
	// the processor's own (it is shown nowhere again either way).
	SigningSecret string `json:"signingSecret,omitempty"`
}

// Setup is what turning the webhook on, or rotating it, takes.
type Setup struct {
	// Processor is whose events the webhook takes: stripe.
	Processor string
	// SigningSecret is the processor's signing secret of the endpoint
	// (Stripe's whsec_…); "" has Perform make one.
	SigningSecret string
	// KeepURL, on a rotation, keeps the URL and replaces only the secret.
	KeepURL bool
}

// The refusals of turning the webhook on, rotating it and turning it off.
var (
	ErrNoSecretKey = errors.New("the payments webhook cannot be turned on: this server has no PERFORM_SECRET_KEY to seal its signing secret with; the operator sets it (openssl rand -base64 32) and restarts")
	ErrOn          = errors.New("the payments webhook is on already; rotate it for a new URL or secret (POST /v1/automation/payments-webhook/rotate, perform studio payments-webhook rotate), or turn it off first")
	ErrOff         = errors.New("the payments webhook is off; turn it on first (POST /v1/automation/payments-webhook, perform studio payments-webhook enable)")
)

// Processors are the processors Perform maps.
var Processors = []string{"stripe"}

// Enable turns the studio's webhook on: a new URL token and signing
// secret (sealed under box), answered this once.
func Enable(ctx context.Context, st store.Store, box *secret.Box, publicURL, studioID string, s Setup, now time.Time) (Turned, error) {
	return turn(ctx, st, box, publicURL, studioID, s, now, false)
}

// Rotate replaces the studio's URL token (unless s.KeepURL) and signing
// secret; the old ones stop working at once.
func Rotate(ctx context.Context, st store.Store, box *secret.Box, publicURL, studioID string, s Setup, now time.Time) (Turned, error) {
	return turn(ctx, st, box, publicURL, studioID, s, now, true)
}

func turn(ctx context.Context, st store.Store, box *secret.Box, publicURL, studioID string, s Setup, now time.Time, rotate bool) (Turned, error) {
	var out Turned
	if box == nil {
		return out, ErrNoSecretKey
	}
	if err := CheckSigningSecret(s.SigningSecret); err != nil {
		return out, err
	}
	if s.Processor != "" && !slices.Contains(Processors, s.Processor) {
		return out, fmt.Errorf("processor must be one of %s; got %q", strings.Join(Processors, ", "), s.Processor)
	}
	err := st.InTx(ctx, func(tx store.Store) error {
		ph := tx.PaymentHooks()
		old, err := ph.PaymentHook(ctx, studioID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			if rotate {
				return ErrOff
			}
		case err != nil:
			return err
		case !rotate:
			return ErrOn
		}
		token := newToken()
		h := store.PaymentHook{StudioID: studioID, TokenHash: tokenHash(token), TokenHint: hint(token), Processor: s.Processor, CreatedAt: now, RotatedAt: now}
		if h.Processor == "" {
			h.Processor = "stripe"
		}
		if rotate {
			h.CreatedAt = old.CreatedAt
			if s.Processor == "" {
				h.Processor = old.Processor
			}
			if s.KeepURL {
				h.TokenHash, h.TokenHint, token = old.TokenHash, old.TokenHint, ""
			}
		}
		signing := s.SigningSecret
		if signing == "" {
			signing = newSigningSecret()
			out.SigningSecret = signing
		}
		h.Secret = box.Seal(signing, sealedFor(studioID))
		if err := ph.PutPaymentHook(ctx, h); err != nil {
			return err
		}
		out.Status = status(h, publicURL, box != nil)
		if token != "" {
			out.URL = hookURL(publicURL, token)
		}
		return nil
	})
	if err != nil {
		return Turned{}, err
	}
	return out, nil
}

// CheckSigningSecret checks a signing secret a studio gives: 16 to 200
// visible ASCII characters ("" is none given).
func CheckSigningSecret(s string) error {
	if s == "" {
		return nil
	}
	if len(s) < 16 || len(s) > 200 {
		return fmt.Errorf("signingSecret must be the processor's signing secret of this endpoint, 16 to 200 characters (Stripe's starts with whsec_); it has %d", len(s))
	}
	for _, r := range s {
		if r <= ' ' || r > '~' {
			return errors.New("signingSecret must be visible ASCII characters without spaces, as the processor shows it (Stripe's starts with whsec_)")
		}
	}
	return nil
}

// Disable turns the studio's webhook off: its URL answers 404 from now
// on. The events it took are kept. ErrOff when it was off.
func Disable(ctx context.Context, st store.Store, studioID string) error {
	gone, err := st.PaymentHooks().DeletePaymentHook(ctx, studioID)
	if err == nil && !gone {
		err = ErrOff
	}
	return err
}

// Describe is the studio's webhook, without its URL or secret.
func Describe(ctx context.Context, st store.Store, publicURL, studioID string, canEnable bool) (Status, error) {
	ph := st.PaymentHooks()
	h, err := ph.PaymentHook(ctx, studioID)
	out := Status{CanEnable: canEnable}
	switch {
	case err == nil:
		out = status(h, publicURL, canEnable)
	case !errors.Is(err, store.ErrNotFound):
		return out, err
	}
	unmatched, err := ph.ListPaymentEvents(ctx, studioID, store.PaymentEventUnmatched, store.Page{Limit: 1})
	if err != nil {
		return out, err
	}
	out.Unmatched = unmatched.Total
	return out, nil
}

func status(h store.PaymentHook, publicURL string, canEnable bool) Status {
	created, rotated := h.CreatedAt, h.RotatedAt
	return Status{Enabled: true, Processor: h.Processor, URLHint: hookURL(publicURL, h.TokenHint) + "…", CreatedAt: &created, RotatedAt: &rotated, CanEnable: canEnable}
}

// hint is the start of a token that tells URLs apart and opens nothing.
func hint(token string) string { return token[:len(tokenPrefix)+6] }

// hookURL is the webhook's URL for token on the server's public origin.
func hookURL(publicURL, token string) string {
	return strings.TrimRight(publicURL, "/") + strings.Replace(Path, "{token}", token, 1)
}

type setupInput struct {
	Processor     string `json:"processor,omitempty" jsonschema:"Whose events the webhook takes: stripe (the default)." lane:"enum=stripe"`
	SigningSecret string `json:"signingSecret,omitempty" jsonschema:"The processor's signing secret of this endpoint (Stripe shows it as whsec_… once the URL is added there); omitted, Perform makes one and answers it once." lane:"maxLength=200"`
}

type rotateInput struct {
	SigningSecret string `json:"signingSecret,omitempty" jsonschema:"The processor's new signing secret (Stripe's whsec_…, after rolling it there); omitted, Perform makes one and answers it once." lane:"maxLength=200"`
	KeepURL       bool   `json:"keepUrl,omitempty" jsonschema:"true: keep the URL and replace only the signing secret (a secret rolled at the processor); false (default): a new URL and secret, the old URL answering 404 at once."`
}

func (a *Area) settingRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/payments-webhook", "The studio's payments webhook: whether it is on, the start of its URL, and how many of its events wait for a coach to match them.", a.getHook)
	lane.Add(rs, "POST", "/payments-webhook", "Turn the studio's payments webhook on: the answer is the only time its URL and signing secret are shown. Needs PERFORM_SECRET_KEY on the server.", a.enable, lane.Admin(), lane.Created())
	lane.Add(rs, "POST", "/payments-webhook/rotate", "Replace the payments webhook's URL and signing secret (or only the secret, keepUrl); the old ones stop working at once. The answer is the only time they are shown.", a.rotate, lane.Admin())
	lane.Add(rs, "DELETE", "/payments-webhook", "Turn the studio's payments webhook off: its URL answers 404 from now on; the events it took are kept.", a.disable, lane.Admin())
}

func (a *Area) getHook(c *lane.Call, _ *lane.NoInput) (Status, error) {
	return Describe(c.Ctx, c.DB(), a.o.PublicURL, c.P.StudioID, a.box != nil)
}

func (a *Area) enable(c *lane.Call, in *setupInput) (Turned, error) {
	t, err := Enable(c.Ctx, c.DB(), a.box, a.o.PublicURL, c.P.StudioID, Setup{Processor: in.Processor, SigningSecret: in.SigningSecret}, c.Now())
	return t, laneErr(err)
}

func (a *Area) rotate(c *lane.Call, in *rotateInput) (Turned, error) {
	t, err := Rotate(c.Ctx, c.DB(), a.box, a.o.PublicURL, c.P.StudioID, Setup{SigningSecret: in.SigningSecret, KeepURL: in.KeepURL}, c.Now())
	return t, laneErr(err)
}

func (a *Area) disable(c *lane.Call, _ *lane.NoInput) (Status, error) {
	if err := Disable(c.Ctx, c.DB(), c.P.StudioID); err != nil {
		return Status{}, laneErr(err)
	}
	return Describe(c.Ctx, c.DB(), a.o.PublicURL, c.P.StudioID, a.box != nil)
}

// laneErr is the lane's answer to the refusals above.
func laneErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNoSecretKey), errors.Is(err, ErrOn), errors.Is(err, ErrOff):
		return &lane.Error{Status: http.StatusConflict, Code: lane.CodeConflict, Message: sentence(err)}
	case strings.HasPrefix(err.Error(), "signingSecret "):
		return lane.InvalidField("signingSecret", sentence(err))
	case strings.HasPrefix(err.Error(), "processor "):
		return lane.InvalidField("processor", sentence(err))
	}
	return err
}

// sentence is err's text as a sentence: capitalised, with a full stop.
func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/areas/payhook"
	"github.com/otherwise/perform/internal/config"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/secret"
	"github.com/otherwise/perform/internal/store"
)

// cmdPaymentsWebhook shows, turns on, rotates or turns off a studio's
// payments webhook (internal/areas/payhook), as the lane's routes do, or
// signs a test event for it. What is shown once (the URL, a signing secret
// Perform made, a signed test event) goes alone to stdout.
func cmdPaymentsWebhook(ctx context.Context, e env, args []string) error {
	fs := newFlags("studio payments-webhook")
	slug := fs.String("studio", "", "the studio's slug")
	action := fs.String("do", "status", "status, enable, rotate, disable or test-event")
	signing := fs.String("signing-secret", "", "enable or rotate: the processor's signing secret of the endpoint (Stripe's whsec_…); omitted, Perform makes one")
	keepURL := fs.Bool("keep-url", false, "rotate: keep the URL and replace only the signing secret")
	trainee := fs.String("trainee", "", "test-event: the trainee's id the event's payment link carries")
	amount := fs.String("amount", "", "test-event: the amount paid, in the currency's major units (350 or 349.90)")
	currency := fs.String("currency", money.Default, "test-event: the currency")
	url := fs.String("url", "WEBHOOK_URL", "test-event: the webhook's URL, for the curl line printed")
	cfg, err := config.FromEnv(e.getenv)
	if err != nil {
		return err
	}
	st, rest, err := adminStore(ctx, e, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := errors.Join(noArgs("studio payments-webhook", rest), required("studio", *slug)); err != nil {
		return firstUsage(err)
	}
	if err := payhook.CheckSigningSecret(*signing); err != nil {
		return usagef("--%s", strings.Replace(err.Error(), "signingSecret", "signing-secret", 1))
	}
	studio, err := studioBySlug(ctx, st, *slug)
	if err != nil {
		return err
	}
	var box *secret.Box
	if len(cfg.SecretKey) > 0 {
		if box, err = secret.New(cfg.SecretKey); err != nil {
			return err
		}
	}
	setup := payhook.Setup{SigningSecret: *signing, KeepURL: *keepURL}
	now := time.Now()
	var turned payhook.Turned
	switch *action {
	case "status":
		s, err := payhook.Describe(ctx, st, cfg.PublicURL, studio.ID, box != nil)
		if err != nil {
			return err
		}
		if !s.Enabled {
			fmt.Fprintf(e.stdout, "Studio %s: the payments webhook is off; %d of its events wait for a coach to match them.\n", studio.Slug, s.Unmatched)
			return nil
		}
		fmt.Fprintf(e.stdout, "Studio %s: the payments webhook is on (%s) at %s since %s, last rotated %s; %d of its events wait for a coach to match them.\n",
			studio.Slug, s.Processor, s.URLHint, stamp(*s.CreatedAt), stamp(*s.RotatedAt), s.Unmatched)
		return nil
	case "test-event":
		return testEvent(ctx, e, st, box, studio, *trainee, *amount, *currency, *url, now)
	case "enable":
		turned, err = payhook.Enable(ctx, st, box, cfg.PublicURL, studio.ID, setup, now)
	case "rotate":
		turned, err = payhook.Rotate(ctx, st, box, cfg.PublicURL, studio.ID, setup, now)
	case "disable":
		err = payhook.Disable(ctx, st, studio.ID)
	default:
		return usagef("--do must be status, enable, rotate, disable or test-event; got %q", *action)
	}
	if err != nil {
		return err
	}
	if err := st.InsertAudit(ctx, []domain.AuditEvent{{ID: ids.New(ids.Audit), StudioID: studio.ID, CredentialID: "cli", Method: "POST",
		Route: "perform studio payments-webhook --do " + *action, Status: 200, Source: domain.SourceCLI, RequestID: ids.New(ids.Request), At: now}}); err != nil {
		return err
	}
	if *action == "disable" {
		fmt.Fprintf(e.stderr, "Studio %s: the payments webhook is off; its URL answers 404. The events it took are kept.\n", studio.Slug)
		return nil
	}
	if turned.URL != "" {
		fmt.Fprintln(e.stdout, turned.URL)
		fmt.Fprintf(e.stderr, "Studio %s: the payments webhook is on at the URL above. Add it at Stripe (Developers, Webhooks, Add endpoint) with the events invoice.paid, invoice.payment_failed, checkout.session.completed and charge.refunded.\n", studio.Slug)
	}
	if turned.SigningSecret != "" {
		fmt.Fprintln(e.stdout, turned.SigningSecret)
		fmt.Fprintf(e.stderr, "The signing secret above is shown only this once. Stripe makes its own for the endpoint: give it with perform studio payments-webhook --studio %s --do rotate --keep-url --signing-secret whsec_…\n", studio.Slug)
	} else {
		fmt.Fprintf(e.stderr, "Studio %s: the webhook checks deliveries with the signing secret given.\n", studio.Slug)
	}
	return nil
}

// testEvent prints a curl line that posts a signed invoice.paid test
// event for the trainee, valid for five minutes.
func testEvent(ctx context.Context, e env, st store.Store, box *secret.Box, studio domain.Studio, trainee, amount, currency, url string, now time.Time) error {
	if err := errors.Join(required("trainee", trainee), required("amount", amount)); err != nil {
		return firstUsage(err)
	}
	cur, ok := money.Code(currency)
	if !ok {
		return usagef("--currency must be a three-letter code such as ILS; got %q", currency)
	}
	m, err := money.Parse(amount, cur)
	if err != nil || m.Minor <= 0 {
		return usagef("--amount must be an amount above 0 in %s, such as 350 or 349.90; got %q", cur, amount)
	}
	if _, err := st.Studio(studio.ID).GetTrainee(ctx, trainee); err != nil {
		return fmt.Errorf("studio %s has no trainee %q: %w", studio.Slug, trainee, err)
	}
	signing, err := payhook.SigningSecret(ctx, st, box, studio.ID)
	if err != nil {
		return err
	}
	body := payhook.TestEvent(trainee, m.Minor, strings.ToLower(cur), now)
	fmt.Fprintf(e.stdout, "curl -sS -X POST '%s' -H 'Content-Type: application/json' -H '%s: %s' --data-binary '%s'\n",
		url, payhook.SignatureHeader, payhook.Sign(signing, now, body), body)
	fmt.Fprintf(e.stderr, "A signed invoice.paid test event of %s for trainee %s; the webhook takes it within five minutes.\n", m, trainee)
	return nil
}

package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas/billing"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// The renewal runs on River: each ended period of a monthly membership is
// renewed and charged once, however often the job runs; a studio that
// turned renewals off renews none.
func TestRenewalJobOnRiverIsIdempotent(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
		mk := func(slug string) (string, store.StudioStore, domain.Subscription) {
			s := domain.Studio{Name: slug, Slug: slug}
			if err := st.CreateStudio(ctx, &s); err != nil {
				t.Fatal(err)
			}
			ss := st.Studio(s.ID)
			tr := domain.Trainee{FirstName: "Maya", LastName: "Member", Phone: "+972587000001"}
			plan := domain.Product{Name: "Monthly", Currency: "ILS", Active: true, Kind: domain.PlanMembership, Period: ptr(domain.PeriodMonth), AutoRenew: true,
				Price: &money.Money{Minor: 35000, Currency: "ILS"}}
			if err := ss.CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
			if err := ss.CreateProduct(ctx, &plan); err != nil {
				t.Fatal(err)
			}
			sub := domain.Subscription{TraineeID: tr.ID, ProductID: plan.ID, StartedOn: "2026-01-15", Price: plan.Price}
			if err := ss.CreateSubscription(ctx, &sub); err != nil {
				t.Fatal(err)
			}
			return s.ID, ss, sub
		}
		_, ss, sub := mk("renews-" + st.Engine())
		offID, off, offSub := mk("stays-" + st.Engine())
		if _, err := store.PatchStudioSettings(ctx, st, offID, map[string]any{"renewMemberships": false}); err != nil {
			t.Fatal(err)
		}

		workers := river.NewWorkers()
		river.AddWorker(workers, &billing.Renewer{Store: st, Now: func() time.Time { return now }})
		client, err := jobs.NewClient(st, jobs.Config{Workers: workers, FetchPollInterval: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		done, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
		defer cancel()
		runCtx, stop := context.WithCancel(ctx)
		if err := client.Start(runCtx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = client.Stop(c)
			stop()
		})
		for round := range 3 {
			if _, err := client.Insert(ctx, billing.RenewalArgs{}, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-done:
				if ev.Kind != river.EventKindJobCompleted {
					t.Fatalf("round %d: the renewal job %s: %v", round, ev.Kind, ev.Job.Errors)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("round %d: the renewal job never ran", round)
			}
			charges, err := ss.ListCharges(ctx, store.ChargeFilter{SubscriptionID: sub.ID, Page: store.Page{Limit: 50}})
			if err != nil {
				t.Fatal(err)
			}
			// Jan 15 – Feb 14, Feb 15 – Mar 14, Mar 15 – Apr 14: the first and two renewals.
			if charges.Total != 3 || charges.Items[2].PeriodStart != "2026-03-15" || *charges.Items[2].PeriodEnd != "2026-04-14" || charges.Items[2].Amount.Minor != 35000 {
				t.Fatalf("round %d: charges %+v", round, charges.Items)
			}
			if l, _ := off.ListCharges(ctx, store.ChargeFilter{SubscriptionID: offSub.ID}); l.Total != 1 {
				t.Fatalf("round %d: a studio without renewals has %d charges", round, l.Total)
			}
		}
		got, _ := ss.GetSubscription(ctx, sub.ID)
		if *got.EndsOn != "2026-04-14" {
			t.Fatalf("renewed to %s", *got.EndsOn)
		}
	})
}

func ptr[T any](v T) *T { return &v }

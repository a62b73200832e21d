package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
	"github.com/otherwise/perform/internal/testkit"
)

// Billing's reads of the triage (the reasons owes, package_ends and
// no_credits) for a studio of 5,000 active trainees, each with a
// 10-session package, its charge (a third unpaid, past due) and 4 sessions
// used: the whole studio's credits and its overdue charges, as the
// billing area reads them for needs_attention.
//
//	go test -run '^$' -bench BillingReasons -benchtime 20x ./internal/store/
func BenchmarkBillingReasons(b *testing.B) {
	openers := map[string]func(testing.TB) store.Store{
		"sqlite":   func(tb testing.TB) store.Store { return storetest.OpenSQLite(tb) },
		"postgres": func(tb testing.TB) store.Store { return storetest.OpenPostgres(tb) },
	}
	n := testkit.Size(5_000, 500)
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(fmt.Sprintf("%s/%d", engine, n), func(b *testing.B) {
			st := openers[engine](b)
			ctx := context.Background()
			studio := seedTrainees(b, st, n)
			ss := st.Studio(studio.ID)
			plan := domain.Product{Name: "Ten", Currency: "ILS", Active: true, Kind: domain.PlanPackage, Sessions: new(10), ValidDays: new(90)}
			if err := ss.CreateProduct(ctx, &plan); err != nil {
				b.Fatal(err)
			}
			list, err := ss.SearchTrainees(ctx, store.TraineeFilter{Page: store.Page{Limit: 1000}})
			if err != nil {
				b.Fatal(err)
			}
			var all []domain.Trainee
			for off := 0; off < n; off += 1000 {
				l, _ := ss.SearchTrainees(ctx, store.TraineeFilter{Page: store.Page{Limit: 1000, Offset: off}})
				all = append(all, l.Items...)
			}
			_ = list
			created := benchNow.UnixMilli()
			var subs, charges, payments, uses [][]any
			for i, tr := range all {
				sub, charge := ids.New(ids.Subscription), ids.New(ids.Charge)
				subs = append(subs, []any{sub, studio.ID, tr.ID, plan.ID, "2026-10-15", "2027-01-12", 120000, "ILS", "active", created})
				charges = append(charges, []any{charge, studio.ID, tr.ID, sub, "2026-10-15", "2026-10-15", 120000, "ILS", created})
				if i%3 != 0 {
					payments = append(payments, []any{ids.New(ids.Payment), studio.ID, tr.ID, charge, 120000, "ILS", "cash", "2026-10-15", "coach", created})
				}
				for k := range 4 {
					uses = append(uses, []any{ids.New(ids.CreditUse), studio.ID, tr.ID, sub, fmt.Sprintf("2026-11-%02d", 2+7*k), created})
				}
			}
			err = st.InTx(ctx, func(tx store.Store) error {
				for _, t := range []struct {
					table string
					cols  []string
					rows  [][]any
				}{
					{"subscriptions", []string{"id", "studio_id", "trainee_id", "product_id", "started_on", "ends_on", "price_minor", "currency", "state", "created_at"}, subs},
					{"charges", []string{"id", "studio_id", "trainee_id", "subscription_id", "period_start", "due_on", "amount_minor", "currency", "created_at"}, charges},
					{"payments", []string{"id", "studio_id", "trainee_id", "charge_id", "amount_minor", "currency", "method", "paid_on", "source", "created_at"}, payments},
					{"credit_uses", []string{"id", "studio_id", "trainee_id", "subscription_id", "used_on", "used_at"}, uses},
				} {
					if err := bulkInsert(ctx, tx, t.table, t.cols, t.rows); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := st.DB().ExecContext(ctx, "ANALYZE"); err != nil {
				b.Fatal(err)
			}
			measure(b, func() {
				credits, err := ss.ListCredits(ctx, nil, benchNow)
				if err != nil || len(credits) != n {
					b.Fatalf("credits of %d trainees, %v", len(credits), err)
				}
				over, err := ss.ListCharges(ctx, store.ChargeFilter{OverdueOn: benchToday, Page: store.Page{Limit: 1000}})
				if err != nil || over.Total != (n+2)/3 {
					b.Fatalf("overdue: %d, %v", over.Total, err)
				}
			})
		})
	}
}

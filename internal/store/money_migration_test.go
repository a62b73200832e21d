package store_test

import (
	"context"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// A database whose prices are floats (before 0800) gets them in minor units,
// rounded to the nearest one, on both engines alike; no price stays none.
func TestMoneyMigration(t *testing.T) {
	ctx := context.Background()
	for name, open := range storetest.Engines(t) {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			studio := domain.Studio{Name: "Floats", Slug: "floats"}
			if err := st.CreateStudio(ctx, &studio); err != nil {
				t.Fatal(err)
			}
			ss := st.Studio(studio.ID)
			tr := domain.Trainee{FirstName: "Noa", LastName: "Float", Phone: "+972521230800"}
			if err := ss.CreateTrainee(ctx, &tr); err != nil {
				t.Fatal(err)
			}
			// Each plan's float price, its currency as stored, and the
			// amount it must become.
			cases := []struct {
				float    any // nil: priced per trainee
				currency string
				want     *money.Money
			}{
				{349.99, "ILS", &money.Money{Minor: 34999, Currency: "ILS"}},
				{120.0, "ILS", &money.Money{Minor: 12000, Currency: "ILS"}},
				{nil, "ILS", nil},
				{0.125, "usd", &money.Money{Minor: 13, Currency: "USD"}}, // half away from zero
				{1999.999, "EUR", &money.Money{Minor: 200000, Currency: "EUR"}},
				{500.4, "JPY", &money.Money{Minor: 500, Currency: "JPY"}},
				{1.234, "KWD", &money.Money{Minor: 1234, Currency: "KWD"}},
			}
			products := make([]domain.Product, len(cases))
			subs := make([]domain.Subscription, len(cases))
			for i := range cases {
				products[i] = domain.Product{Name: "Plan " + string(rune('A'+i)), Currency: "ILS", Active: true}
				if err := ss.CreateProduct(ctx, &products[i]); err != nil {
					t.Fatal(err)
				}
				subs[i] = domain.Subscription{TraineeID: tr.ID, ProductID: products[i].ID, StartedOn: "2026-01-01"}
				if err := ss.CreateSubscription(ctx, &subs[i]); err != nil {
					t.Fatal(err)
				}
			}
			// Back to the state before 0800: a float price, no minor units.
			float := "REAL"
			if st.Engine() == store.EnginePostgres {
				float = "DOUBLE PRECISION"
			}
			exec := func(q string, args ...any) {
				t.Helper()
				q = store.Rebind(st.Engine(), q)
				if _, err := st.DB().ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, table := range []string{"products", "subscriptions"} {
				exec(`ALTER TABLE ` + table + ` ADD COLUMN price ` + float)
				exec(`ALTER TABLE ` + table + ` DROP COLUMN price_minor`)
			}
			for i, c := range cases {
				exec(`UPDATE products SET price = ?, currency = ? WHERE id = ?`, c.float, c.currency, products[i].ID)
				exec(`UPDATE subscriptions SET price = ?, currency = ? WHERE id = ?`, c.float, c.currency, subs[i].ID)
			}
			exec(`DELETE FROM schema_migrations WHERE version IN ('0800_money_minor', '0801_drop_float_prices')`)
			if err := store.Migrate(ctx, st.DB(), st.Engine()); err != nil {
				t.Fatal(err)
			}
			got, err := ss.ListSubscriptions(ctx, tr.ID)
			if err != nil || len(got) != len(cases) {
				t.Fatalf("subscriptions after the migration: %d, %v", len(got), err)
			}
			byID := map[string]domain.Subscription{}
			for _, s := range got {
				byID[s.ID] = s
			}
			for i, c := range cases {
				p, err := ss.GetProduct(ctx, products[i].ID)
				if err != nil {
					t.Fatal(err)
				}
				s := byID[subs[i].ID]
				for what, price := range map[string]*money.Money{"plan": p.Price, "subscription": s.Price} {
					if (price == nil) != (c.want == nil) || price != nil && *price != *c.want {
						t.Errorf("%s priced %v %s became %+v, want %+v", what, c.float, c.currency, price, c.want)
					}
				}
				if c.want != nil && (p.Currency != c.want.Currency || s.Currency != c.want.Currency) {
					t.Errorf("currency %s became %s and %s", c.currency, p.Currency, s.Currency)
				}
			}
		})
	}
}

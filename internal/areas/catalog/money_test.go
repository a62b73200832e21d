package catalog_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// A price travels in major units and is stored in minor units, exactly, on
// both engines; more decimals than the currency has is refused with a
// sentence naming the field.
func TestPlanPricesAreExact(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		studio, k, _ := e.Studio("exact", "pro")
		stored := func(id string) (minor *int64, currency string) {
			t.Helper()
			if err := st.DB().QueryRowContext(context.Background(), `SELECT price_minor, currency FROM products WHERE id = '`+id+`'`).Scan(&minor, &currency); err != nil {
				t.Fatal(err)
			}
			return minor, currency
		}
		wire := func(a kit.Answer) (price, currency string) {
			t.Helper()
			var m map[string]json.RawMessage
			a.Into(t, &m)
			return string(m["price"]), strings.Trim(string(m["currency"]), `"`)
		}

		a := e.OK(201, e.Call(k, "POST", "/products", map[string]any{"name": "Exact", "price": 349.9, "durationDays": 30}))
		var p domain.Product
		a.Into(t, &p)
		if price, cur := wire(a); price != "349.9" || cur != "ILS" {
			t.Fatalf("answer price %s %s, want 349.9 ILS", price, cur)
		}
		if *p.Price != (money.Money{Minor: 34990, Currency: "ILS"}) {
			t.Fatalf("decoded price %+v", p.Price)
		}
		if minor, cur := stored(p.ID); minor == nil || *minor != 34990 || cur != "ILS" {
			t.Fatalf("stored %v %s, want 34990 ILS", minor, cur)
		}
		var list struct{ Items []map[string]json.RawMessage }
		e.OK(200, e.Call(k, "GET", "/products?search=exact", nil)).Into(t, &list)
		if len(list.Items) != 1 || string(list.Items[0]["price"]) != "349.9" {
			t.Fatalf("listed: %+v", list.Items)
		}

		// 349.999 ILS: three decimals, the shekel has two.
		bad := e.Call(k, "POST", "/products", map[string]any{"name": "Too fine", "price": 349.999})
		e.Refused("price", bad)
		if msg := bad.Error.Fields[0].Message; !strings.Contains(msg, "price has 3 decimals but ILS has 2") {
			t.Errorf("refusal sentence: %q", msg)
		}
		e.Refused("price", e.Call(k, "POST", "/products", map[string]any{"name": "Yen", "price": 500.5, "currency": "jpy"}))
		e.Refused("currency", e.Call(k, "POST", "/products", map[string]any{"name": "Bad", "price": 5, "currency": "€€€"}))
		e.Refused("price", e.Call(k, "PATCH", "/products/"+p.ID, map[string]any{"price": 10.005}))

		// A new currency keeps the amount when it fits, else asks for a price.
		e.Refused("currency", e.Call(k, "PATCH", "/products/"+p.ID, map[string]any{"currency": "JPY"}))
		a = e.OK(200, e.Call(k, "PATCH", "/products/"+p.ID, map[string]any{"currency": "usd"}))
		if price, cur := wire(a); price != "349.9" || cur != "USD" {
			t.Fatalf("after currency USD: %s %s", price, cur)
		}
		e.OK(200, e.Call(k, "PATCH", "/products/"+p.ID, map[string]any{"currency": "JPY", "price": 5000}))
		if minor, cur := stored(p.ID); *minor != 5000 || cur != "JPY" {
			t.Fatalf("stored %d %s, want 5000 JPY", *minor, cur)
		}

		// The studio's currency is a new plan's when it names none.
		var set struct{ Currency string }
		e.OK(200, e.Call(k, "GET", "/studio/settings", nil)).Into(t, &set)
		if set.Currency != "ILS" {
			t.Fatalf("default studio currency %q", set.Currency)
		}
		e.Refused("currency", e.Call(k, "PATCH", "/studio/settings", map[string]any{"currency": "EU"}))
		e.OK(200, e.Call(k, "PATCH", "/studio/settings", map[string]any{"currency": "eur"})).Into(t, &set)
		if set.Currency != "EUR" {
			t.Fatalf("studio currency after PATCH: %q", set.Currency)
		}
		a = e.OK(201, e.Call(k, "POST", "/products", map[string]any{"name": "In euros", "price": 12.5}))
		if price, cur := wire(a); price != "12.5" || cur != "EUR" {
			t.Fatalf("a plan of a EUR studio: %s %s", price, cur)
		}
		if st, err := st.StudioByID(context.Background(), studio.ID); err != nil || st.Currency() != "EUR" {
			t.Fatalf("studio currency stored: %v", err)
		}
	})
}

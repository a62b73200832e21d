package roster_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A trainee's own price is read exactly in the plan's currency and
// answered in major units; more decimals than it has are refused.
func TestAssignPlanPriceIsExact(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("coin")
		tp := "/trainees/" + f.Trainee.ID + "/subscription"
		bad := e.Call(f.Key, "POST", tp, map[string]any{"productId": f.OpenProduct.ID, "price": 349.999})
		e.Refused("price", bad)
		if msg := bad.Error.Fields[0].Message; !strings.Contains(msg, "price has 3 decimals but ILS has 2") {
			t.Errorf("refusal sentence: %q", msg)
		}
		var sub map[string]json.RawMessage
		e.OK(201, e.Call(f.Key, "POST", tp, map[string]any{"productId": f.OpenProduct.ID, "price": 120.5})).Into(t, &sub)
		if string(sub["price"]) != "120.5" || string(sub["currency"]) != `"ILS"` {
			t.Fatalf("subscription price %s %s, want 120.5 ILS", sub["price"], sub["currency"])
		}
		// The list a trainee's plans are read from answers the same.
		var list struct{ Items []map[string]json.RawMessage }
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/subscriptions", nil)).Into(t, &list)
		prices := []string{}
		for _, it := range list.Items {
			prices = append(prices, string(it["price"]))
		}
		if strings.Join(prices, " ") != "300 120.5" {
			t.Fatalf("listed prices %v, want 300 120.5", prices)
		}
	})
}

package storetest

import (
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

func testProducts(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	monthly := domain.Product{Name: "Monthly", Price: &money.Money{Minor: 34990, Currency: "ILS"}, Currency: "ILS", DurationDays: ptr(30), Active: true}
	open := domain.Product{Name: "Open coaching", Currency: "ILS", Active: true} // per-trainee price, open-ended
	must(t, "CreateProduct", ss.CreateProduct(ctx, &monthly))
	must(t, "CreateProduct open", ss.CreateProduct(ctx, &open))
	got, err := ss.GetProduct(ctx, open.ID)
	must(t, "GetProduct", err)
	if got.Price != nil || got.DurationDays != nil || got.Name != "Open coaching" || !got.Active {
		t.Fatalf("GetProduct(open) = %+v, want nil price and duration", got)
	}
	got, _ = ss.GetProduct(ctx, monthly.ID)
	if *got.Price != (money.Money{Minor: 34990, Currency: "ILS"}) || *got.DurationDays != 30 || got.Currency != "ILS" {
		t.Fatalf("GetProduct(monthly) = %+v", got)
	}
	_, err = st.Studio(b.ID).GetProduct(ctx, monthly.ID)
	mustNotFound(t, "GetProduct from another studio", err)

	list, err := ss.ListProducts(ctx, "", page(50, 0))
	must(t, "ListProducts", err)
	if list.Total != 2 || list.Items[0].ID != monthly.ID {
		t.Fatalf("ListProducts = %+v", list)
	}
	list, _ = ss.ListProducts(ctx, "COACH", page(50, 0))
	if list.Total != 1 || list.Items[0].ID != open.ID {
		t.Fatalf("ListProducts(COACH) = %+v", list)
	}
	list, _ = ss.ListProducts(ctx, "_", page(50, 0))
	if list.Total != 0 {
		t.Fatalf("ListProducts(_) matched %d, want the underscore literal", list.Total)
	}
	monthly.Active = false
	monthly.Price, monthly.Currency = &money.Money{Minor: 399, Currency: "JPY"}, "JPY"
	must(t, "UpdateProduct", ss.UpdateProduct(ctx, &monthly))
	got, _ = ss.GetProduct(ctx, monthly.ID)
	if got.Active || *got.Price != (money.Money{Minor: 399, Currency: "JPY"}) || got.Currency != "JPY" {
		t.Fatalf("after UpdateProduct = %+v", got)
	}
	mustNotFound(t, "UpdateProduct from another studio", st.Studio(b.ID).UpdateProduct(ctx, &monthly))
	// A price is kept in its record's currency: one in another is refused.
	monthly.Price = &money.Money{Minor: 39900, Currency: "ILS"}
	if err := ss.UpdateProduct(ctx, &monthly); err == nil {
		t.Fatal("UpdateProduct stored an ILS price on a JPY plan")
	}
}

func testSubscriptions(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	if w.sub.ProductName != "Monthly" || w.sub.Currency != "ILS" || w.sub.Status != "active" {
		t.Fatalf("CreateSubscription filled %+v, want the plan's name and currency, state active", w.sub)
	}
	later := domain.Subscription{TraineeID: w.trainee.ID, ProductID: w.product.ID, StartedOn: "2026-01-31", Currency: "USD"}
	must(t, "CreateSubscription open-ended", ss.CreateSubscription(ctx, &later))
	list, err := ss.ListSubscriptions(ctx, w.trainee.ID)
	must(t, "ListSubscriptions", err)
	if len(list) != 2 || list[0].ID != w.sub.ID || list[1].ID != later.ID || list[1].EndsOn != nil || list[1].Price != nil || list[1].Currency != "USD" {
		t.Fatalf("ListSubscriptions = %+v", list)
	}
	if *list[0].EndsOn != "2026-01-30" || *list[0].Price != (money.Money{Minor: 34990, Currency: "ILS"}) || list[0].ProductName != "Monthly" {
		t.Fatalf("first subscription = %+v", list[0])
	}
	_, err = ss.ListSubscriptions(ctx, wb.trainee.ID)
	mustNotFound(t, "ListSubscriptions of another studio's trainee", err)

	must(t, "SetSubscriptionState", ss.SetSubscriptionState(ctx, later.ID, domain.SubFrozen))
	got, err := ss.GetSubscription(ctx, later.ID)
	must(t, "GetSubscription", err)
	if got.Status != domain.SubFrozen {
		t.Fatalf("state = %s, want frozen", got.Status)
	}
	mustNotFound(t, "SetSubscriptionState from another studio", st.Studio(b.ID).SetSubscriptionState(ctx, later.ID, domain.SubCancelled))
	_, err = st.Studio(b.ID).GetSubscription(ctx, later.ID)
	mustNotFound(t, "GetSubscription from another studio", err)

	foreignPlan := domain.Subscription{TraineeID: w.trainee.ID, ProductID: wb.product.ID, StartedOn: "2026-02-01"}
	mustNotFound(t, "CreateSubscription with another studio's plan", ss.CreateSubscription(ctx, &foreignPlan))
	foreignTrainee := domain.Subscription{TraineeID: wb.trainee.ID, ProductID: w.product.ID, StartedOn: "2026-02-01"}
	mustNotFound(t, "CreateSubscription for another studio's trainee", ss.CreateSubscription(ctx, &foreignTrainee))
}

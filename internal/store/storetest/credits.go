package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// at is noon of day in Asia/Jerusalem (the default studio zone), as UTC.
func at(day string) time.Time {
	loc, _ := domain.LoadZone(domain.DefaultTimeZone)
	t, err := time.ParseInLocation(time.DateOnly, day, loc)
	if err != nil {
		panic(err)
	}
	return t.Add(12 * time.Hour).UTC()
}

// billingPlans are a 3-session package valid 30 days and a membership of
// two sessions a week, in the studio of ss.
func billingPlans(t *testing.T, ss store.StudioStore) (pack, member domain.Product) {
	t.Helper()
	pack = domain.Product{Name: "Three sessions", Price: &money.Money{Minor: 45000, Currency: "ILS"}, Currency: "ILS", Active: true,
		Kind: domain.PlanPackage, Sessions: ptr(3), ValidDays: ptr(30)}
	member = domain.Product{Name: "Twice a week", Price: &money.Money{Minor: 39900, Currency: "ILS"}, Currency: "ILS", Active: true,
		Kind: domain.PlanMembership, Sessions: ptr(2), Period: ptr(domain.PeriodMonth), AutoRenew: true}
	must(t, "CreateProduct package", ss.CreateProduct(ctx, &pack))
	must(t, "CreateProduct membership", ss.CreateProduct(ctx, &member))
	return pack, member
}

func testCredits(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss, sb := st.Studio(a.ID), st.Studio(b.ID)
	pack, member := billingPlans(t, ss)

	got, err := ss.GetProduct(ctx, pack.ID)
	must(t, "GetProduct package", err)
	if got.Kind != domain.PlanPackage || *got.Sessions != 3 || *got.ValidDays != 30 || got.Period != nil {
		t.Fatalf("package plan read back as %+v", got)
	}
	got, _ = ss.GetProduct(ctx, member.ID)
	if got.Kind != domain.PlanMembership || *got.Sessions != 2 || got.ValidDays != nil || *got.Period != domain.PeriodMonth || !got.AutoRenew {
		t.Fatalf("membership plan read back as %+v", got)
	}
	got.AutoRenew, got.Sessions = false, nil
	must(t, "UpdateProduct membership", ss.UpdateProduct(ctx, &got))
	if again, _ := ss.GetProduct(ctx, member.ID); again.AutoRenew || again.Sessions != nil {
		t.Fatalf("membership after update = %+v, want no renewal and unlimited sessions", again)
	}
	got.AutoRenew, got.Sessions = true, ptr(2)
	must(t, "UpdateProduct membership back", ss.UpdateProduct(ctx, &got))
	plain := domain.Product{Name: "Plain", Currency: "ILS", Active: true}
	must(t, "CreateProduct plain", ss.CreateProduct(ctx, &plain))
	if p, _ := ss.GetProduct(ctx, plain.ID); p.Kind != domain.PlanOther {
		t.Fatalf("a plan made without a kind reads %q, want other", p.Kind)
	}

	noa := newTrainee(t, ss, "Noa", "Credits")
	sub := domain.Subscription{TraineeID: noa.ID, ProductID: pack.ID, StartedOn: "2026-03-01"}
	must(t, "CreateSubscription package", ss.CreateSubscription(ctx, &sub))

	// Three credits, then none; the same appointment again is one use.
	for _, appt := range []string{"apt_1", "apt_2", "apt_3", "apt_1"} {
		id, err := ss.UseCredit(ctx, noa.ID, appt, at("2026-03-03"))
		must(t, "UseCredit "+appt, err)
		if id != sub.ID {
			t.Fatalf("UseCredit %s took from %s, want %s", appt, id, sub.ID)
		}
	}
	if _, err := ss.UseCredit(ctx, noa.ID, "apt_4", at("2026-03-03")); !errors.Is(err, store.ErrNoCredit) {
		t.Fatalf("a fourth use of a 3-session package: %v, want ErrNoCredit", err)
	}
	c, err := ss.SubscriptionCredits(ctx, sub.ID, at("2026-03-03"))
	must(t, "SubscriptionCredits", err)
	if c.Used != 3 || *c.Left != 0 || *c.ExpiresOn != "2026-03-30" || c.Kind != domain.PlanPackage || c.PlanName != "Three sessions" {
		t.Fatalf("credits after three uses = %+v", c)
	}
	// A release gives the credit back; releasing again changes nothing.
	must(t, "ReleaseCredit", store.ReleaseCredit(ctx, st, a.ID, "apt_2"))
	must(t, "ReleaseCredit again", ss.ReleaseCredit(ctx, "apt_2"))
	mustNotFound(t, "ReleaseCredit of an appointment with no use", ss.ReleaseCredit(ctx, "apt_none"))
	mustNotFound(t, "ReleaseCredit from another studio", sb.ReleaseCredit(ctx, "apt_1"))
	if c, _ := ss.SubscriptionCredits(ctx, sub.ID, at("2026-03-03")); c.Used != 2 || *c.Left != 1 {
		t.Fatalf("credits after a release = %+v", c)
	}
	// Past the package's 30 days its credit is not usable.
	if _, err := ss.UseCredit(ctx, noa.ID, "apt_late", at("2026-03-31")); !errors.Is(err, store.ErrNoCredit) {
		t.Fatalf("a use on day 31 of a 30-day package: %v, want ErrNoCredit", err)
	}
	// A released appointment booked again takes a credit again.
	if id, err := ss.UseCredit(ctx, noa.ID, "apt_2", at("2026-03-30")); err != nil || id != sub.ID {
		t.Fatalf("apt_2 booked again: %s, %v", id, err)
	}

	// Tenancy: another studio's trainee and subscription are not found.
	_, err = sb.UseCredit(ctx, noa.ID, "apt_x", at("2026-03-03"))
	mustNotFound(t, "UseCredit for another studio's trainee", err)
	_, err = sb.SubscriptionCredits(ctx, sub.ID, at("2026-03-03"))
	mustNotFound(t, "SubscriptionCredits of another studio", err)
	if m, err := sb.ListCredits(ctx, nil, at("2026-03-03")); err != nil || len(m) != 0 {
		t.Fatalf("another studio lists credits %v, %v", m, err)
	}

	// A membership's credits are a week's, in the studio's zone and week
	// (Sunday to Saturday by default), and are taken before a package's.
	omer := newTrainee(t, ss, "Omer", "Credits")
	msub := domain.Subscription{TraineeID: omer.ID, ProductID: member.ID, StartedOn: "2026-03-01", EndsOn: ptr("2026-03-31")}
	psub := domain.Subscription{TraineeID: omer.ID, ProductID: pack.ID, StartedOn: "2026-03-01"}
	must(t, "CreateSubscription membership", ss.CreateSubscription(ctx, &msub))
	must(t, "CreateSubscription package", ss.CreateSubscription(ctx, &psub))
	want := []struct {
		appt string
		on   time.Time
		sub  string
	}{
		{"apt_m1", at("2026-03-01"), msub.ID}, // Sunday
		{"apt_m2", at("2026-03-07"), msub.ID}, // Saturday, same week
		{"apt_m3", at("2026-03-07"), psub.ID}, // the week's two are used: the package
		// 22:30 UTC on Saturday is 00:30 on Sunday in Jerusalem: a new week.
		{"apt_m4", time.Date(2026, 3, 7, 22, 30, 0, 0, time.UTC), msub.ID},
	}
	for _, w := range want {
		id, err := ss.UseCredit(ctx, omer.ID, w.appt, w.on)
		must(t, "UseCredit "+w.appt, err)
		if id != w.sub {
			t.Fatalf("UseCredit %s took from %s, want %s", w.appt, id, w.sub)
		}
	}
	list, err := ss.ListCredits(ctx, []string{omer.ID, noa.ID}, at("2026-03-02"))
	must(t, "ListCredits", err)
	if len(list[omer.ID]) != 2 || len(list[noa.ID]) != 1 {
		t.Fatalf("ListCredits = %+v", list)
	}
	for _, c := range list[omer.ID] {
		switch c.SubscriptionID {
		case msub.ID:
			if c.Used != 2 || *c.Left != 0 || *c.WeekStart != "2026-03-01" || *c.ExpiresOn != "2026-03-31" {
				t.Fatalf("membership's first week = %+v", c)
			}
		case psub.ID:
			if c.Used != 1 || *c.Left != 2 || c.WeekStart != nil {
				t.Fatalf("package beside the membership = %+v", c)
			}
		}
	}
	// A frozen subscription's credits are not usable.
	must(t, "freeze", ss.SetSubscriptionState(ctx, psub.ID, domain.SubFrozen))
	if _, err := ss.UseCredit(ctx, omer.ID, "apt_m5", at("2026-03-04")); !errors.Is(err, store.ErrNoCredit) {
		t.Fatalf("a use with the membership's week used and the package frozen: %v, want ErrNoCredit", err)
	}

	// A use inside the caller's transaction rolls back with it.
	rollback := errors.New("booking failed")
	err = st.InTx(ctx, func(tx store.Store) error {
		if _, err := store.UseCredit(ctx, tx, a.ID, omer.ID, "apt_tx", at("2026-03-10")); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("InTx = %v", err)
	}
	mustNotFound(t, "the rolled-back use", ss.ReleaseCredit(ctx, "apt_tx"))

	// Two uses of the last credit at once: one wins (twenty times over).
	one := domain.Product{Name: "One session", Currency: "ILS", Active: true, Kind: domain.PlanPackage, Sessions: ptr(1)}
	must(t, "CreateProduct one", ss.CreateProduct(ctx, &one))
	for round := range 20 {
		lea := newTrainee(t, ss, "Lea", "Credits")
		must(t, "CreateSubscription one", ss.CreateSubscription(ctx, &domain.Subscription{TraineeID: lea.ID, ProductID: one.ID, StartedOn: "2026-03-01"}))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() {
				errs[i] = st.InTx(ctx, func(tx store.Store) error {
					_, err := store.UseCredit(ctx, tx, a.ID, lea.ID, lea.ID+[]string{"_r1", "_r2"}[i], at("2026-03-05"))
					return err
				})
			})
		}
		wg.Wait()
		won, none := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case errors.Is(err, store.ErrNoCredit):
				none++
			default:
				t.Fatalf("a concurrent use: %v", err)
			}
		}
		if won != 1 || none != 1 {
			t.Fatalf("round %d, two uses of the last credit: %d won, %d had none; want one each", round, won, none)
		}
	}
}

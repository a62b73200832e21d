package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// The demo's billing plans, beside its four plans of kind other.
const (
	PackagePlan    = "10-session package"
	MembershipPlan = "Monthly membership, twice a week"
)

// billingStory is one trainee's place in the business loop.
type billingStory struct {
	first, last string
	plan        string
	startedAgo  int   // days before now
	paid        int64 // shekels paid towards the start's charge
	method      string
	used        int // sessions used, one every few days from the start
}

// billingStories: Noa paid her package and has 3 sessions left, ending
// within two weeks; Omer started a package today and paid part of it;
// Daniel's membership has been due for 20 days, unpaid (he owes); Maya
// used her membership's two sessions this week.
var billingStories = []billingStory{
	{first: "נועה", last: "כהן", plan: PackagePlan, startedAgo: 80, paid: 1200, method: domain.PayBit, used: 7},
	{first: "Omer", last: "Tal", plan: PackagePlan, startedAgo: 0, paid: 600, method: domain.PayCash},
	{first: "Daniel", last: "Levi", plan: MembershipPlan, startedAgo: 20},
	{first: "Maya", last: "Hoffman", plan: MembershipPlan, startedAgo: 10, paid: 400, method: domain.PayBankTransfer, used: 2},
}

// seedBilling adds the package and membership plans and the stories'
// subscriptions, charges, payments and used sessions.
func seedBilling(ctx context.Context, ss store.StudioStore, trainees []domain.Trainee, now time.Time) error {
	ils := func(shekels int64) *money.Money { return &money.Money{Minor: shekels * 100, Currency: "ILS"} }
	n := func(v int) *int { return &v }
	month := domain.PeriodMonth
	plans := map[string]*domain.Product{
		PackagePlan:    {Name: PackagePlan, Price: ils(1200), Currency: "ILS", Active: true, Kind: domain.PlanPackage, Sessions: n(10), ValidDays: n(90)},
		MembershipPlan: {Name: MembershipPlan, Price: ils(400), Currency: "ILS", Active: true, Kind: domain.PlanMembership, Sessions: n(2), Period: &month, AutoRenew: true},
	}
	for _, name := range []string{PackagePlan, MembershipPlan} {
		if err := ss.CreateProduct(ctx, plans[name]); err != nil {
			return fmt.Errorf("plan %s: %w", name, err)
		}
	}
	loc, _ := domain.LoadZone(domain.DefaultTimeZone)
	for _, s := range billingStories {
		var t *domain.Trainee
		for i := range trainees {
			if trainees[i].FirstName == s.first && strings.HasPrefix(trainees[i].LastName, s.last) {
				t = &trainees[i]
			}
		}
		if t == nil {
			return fmt.Errorf("billing story: no trainee %s %s", s.first, s.last)
		}
		plan := plans[s.plan]
		start := now.In(loc).AddDate(0, 0, -s.startedAgo)
		sub := domain.Subscription{TraineeID: t.ID, ProductID: plan.ID, StartedOn: start.Format(time.DateOnly), Price: plan.Price, CreatedAt: start}
		if err := ss.CreateSubscription(ctx, &sub); err != nil {
			return fmt.Errorf("billing story of %s: %w", s.first, err)
		}
		if s.paid > 0 {
			p := domain.Payment{TraineeID: t.ID, Amount: *ils(s.paid), Method: s.method, PaidOn: sub.StartedOn, CreatedAt: start}
			if _, _, err := ss.RecordPayment(ctx, p); err != nil {
				return fmt.Errorf("payment of %s: %w", s.first, err)
			}
		}
		for i := range s.used {
			on := now.AddDate(0, 0, -i*(s.startedAgo/max(s.used, 1)))
			if s.plan == MembershipPlan {
				on = now.Add(-time.Duration(i) * time.Hour) // this week's
			}
			if _, err := ss.UseCredit(ctx, t.ID, "", on); err != nil {
				return fmt.Errorf("a session of %s: %w", s.first, err)
			}
		}
	}
	return nil
}

// inBillingStory reports whether t is one of the billing stories, whose
// credits the story sets: the week of appointments books others.
func inBillingStory(t domain.Trainee) bool {
	for _, s := range billingStories {
		if t.FirstName == s.first && strings.HasPrefix(t.LastName, s.last) {
			return true
		}
	}
	return false
}

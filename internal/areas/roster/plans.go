package roster

import (
	"fmt"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

type assignPlanInput struct {
	ProductID    string   `json:"productId" jsonschema:"The plan to assign: its id from list_plans, or its name." lane:"minLength=1,maxLength=100" ref:"product"`
	StartedOn    *string  `json:"startedOn,omitempty" jsonschema:"First day of the plan. When omitted the plan starts the day after the trainee's last live or scheduled plan ends, or today if there is none." lane:"format=date" when:"start"`
	Price        *float64 `json:"price,omitempty" jsonschema:"Price for this trainee in the plan's currency (349.90); when omitted the plan's list price (required for a plan without one)." lane:"min=0,max=1000000"`
	DurationDays *int     `json:"durationDays,omitempty" jsonschema:"Length in days for this trainee; when omitted the plan's own duration (none means open-ended)." lane:"min=1,max=3650"`
	Notify       *bool    `json:"notify,omitempty" jsonschema:"true tells the trainee; anything else is silent."`
}

// planTerms are the per-trainee choices of a new subscription.
type planTerms struct {
	StartedOn    *string
	Price        *money.Money // in the plan's currency
	DurationDays *int
}

func (a *Area) planRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/trainees/{id}/subscriptions", "A trainee's plans, newest first, each with its status (scheduled, live, frozen, cancelled, ended); with the billing scope, a package's or membership's paymentState (paid, partly_paid, overdue, due), sessionsUsed, sessionsLeft and expiresOn.", func(c *lane.Call, _ *lane.NoInput) (lane.ListOf[domain.Subscription], error) {
		ss := c.Studio()
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee); err != nil {
			return lane.ListOf[domain.Subscription]{}, err
		}
		subs, err := ss.ListSubscriptions(c.Ctx, c.ID())
		if err != nil {
			return lane.ListOf[domain.Subscription]{}, err
		}
		today := c.Today()
		for i := range subs {
			subs[i].Derive(today)
		}
		if c.P.IsTrainee() || c.P.Has(auth.ScopeBilling) {
			if err := withBilling(c, ss, c.ID(), subs); err != nil {
				return lane.ListOf[domain.Subscription]{}, err
			}
		}
		return lane.PageSlice(subs, store.Page{Limit: max(len(subs), 1)}), nil
	}, lane.Tool("list_trainee_subscriptions"), lane.Trainee(auth.ScopeProfileRead),
		lane.Allow("items.id", "items.productName", "items.status", "items.startedOn", "items.endsOn", "items.price", "items.currency", "total", "nextOffset",
			"items.paymentState", "items.sessionsUsed", "items.sessionsLeft", "items.expiresOn"))
	lane.Add(rs, "POST", "/trainees/{id}/subscription", "Assign a plan to a trainee.", a.assignPlan, lane.Tool("assign_plan"), lane.Created())
	lane.Add(rs, "POST", "/subscriptions/{id}/freeze", "Freeze a plan; the trainee is told.", func(c *lane.Call, _ *lane.NoInput) (domain.Subscription, error) {
		return setSubscriptionState(c, domain.SubFrozen)
	}, lane.Admin())
	lane.Add(rs, "POST", "/subscriptions/{id}/cancel", "Cancel a plan.", func(c *lane.Call, _ *lane.NoInput) (domain.Subscription, error) {
		return setSubscriptionState(c, domain.SubCancelled)
	}, lane.Admin())
}

func (a *Area) assignPlan(c *lane.Call, in *assignPlanInput) (domain.Subscription, error) {
	var out domain.Subscription
	err := c.InTx(func(ss store.StudioStore) error {
		t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
		if err != nil {
			return err
		}
		product, err := lane.Lookup(c.Ctx, ids.Product, in.ProductID, ss.GetProduct)
		if err != nil {
			return err
		}
		price, err := c.Amount("price", product.Currency)
		if err != nil {
			return err
		}
		if product.Price == nil && price == nil {
			return lane.InvalidField("price", fmt.Sprintf("The %s plan is priced per trainee: send price (e.g. 250, in %s).", product.Name, product.Currency))
		}
		out, err = startSubscription(c, ss, t.ID, product, planTerms{StartedOn: in.StartedOn, Price: price, DurationDays: in.DurationDays})
		if err != nil {
			return err
		}
		if lane.IsTrue(in.Notify) {
			return c.Notify(ss, t.ID, domain.NotifyPlanAssigned, map[string]any{"subscriptionId": out.ID, "productId": product.ID})
		}
		return nil
	})
	return out, err
}

// startSubscription writes a new subscription. Without a start date it
// begins the day after the trainee's last live or scheduled plan with an end
// ends (open-ended plans do not push it), or today. EndsOn is inclusive:
// start + duration - 1. Price is the override, else the list price, else none.
func startSubscription(c *lane.Call, ss store.StudioStore, traineeID string, product domain.Product, terms planTerms) (domain.Subscription, error) {
	today := c.Today()
	start := today
	if terms.StartedOn != nil {
		start = *terms.StartedOn
	} else {
		subs, err := ss.ListSubscriptions(c.Ctx, traineeID)
		if err != nil {
			return domain.Subscription{}, err
		}
		for _, s := range subs {
			s.Derive(today)
			if (s.Status == domain.SubLive || s.Status == domain.SubScheduled) && s.EndsOn != nil {
				if next := lane.AddDays(*s.EndsOn, 1); next > start {
					start = next
				}
			}
		}
	}
	sub := domain.Subscription{
		ID:          ids.New(ids.Subscription),
		TraineeID:   traineeID,
		ProductID:   product.ID,
		ProductName: product.Name,
		StartedOn:   start,
		Price:       product.Price,
		Currency:    product.Currency,
		Status:      "active",
		CreatedAt:   c.Now().UTC(),
	}
	if terms.Price != nil {
		sub.Price = terms.Price
	}
	duration := product.DurationDays
	if terms.DurationDays != nil {
		duration = terms.DurationDays
	}
	if duration != nil {
		end := lane.AddDays(start, *duration-1)
		sub.EndsOn = &end
	}
	if err := ss.CreateSubscription(c.Ctx, &sub); err != nil {
		return domain.Subscription{}, err
	}
	sub.Derive(today)
	return sub, nil
}

func setSubscriptionState(c *lane.Call, state string) (domain.Subscription, error) {
	var out domain.Subscription
	err := c.InTx(func(ss store.StudioStore) error {
		sub, err := lane.Lookup(c.Ctx, ids.Subscription, c.ID(), ss.GetSubscription)
		if err != nil {
			return err
		}
		sub.Derive(c.Today())
		switch {
		case sub.Status == domain.SubCancelled:
			return lane.Conflict(fmt.Sprintf("Subscription %s is already cancelled.", sub.ID))
		case sub.Status == domain.SubEnded:
			return lane.Conflict(fmt.Sprintf("Subscription %s ended on %s; there is nothing to %s.", sub.ID, *sub.EndsOn, verbOf(state)))
		case sub.Status == state:
			return lane.Conflict(fmt.Sprintf("Subscription %s is already %s.", sub.ID, state))
		}
		if err := ss.SetSubscriptionState(c.Ctx, sub.ID, state); err != nil {
			return err
		}
		if state == domain.SubFrozen {
			// A freeze always tells the trainee: that is why it is not a tool.
			if err := c.Notify(ss, sub.TraineeID, domain.NotifyFreeze, map[string]any{"subscriptionId": sub.ID}); err != nil {
				return err
			}
		}
		out, err = ss.GetSubscription(c.Ctx, sub.ID)
		out.Derive(c.Today())
		return err
	})
	return out, err
}

func verbOf(state string) string {
	if state == domain.SubFrozen {
		return "freeze"
	}
	return "cancel"
}

// withBilling puts each subscription's payment state and credits beside
// its status (the billing area's charges and credit ledger).
func withBilling(c *lane.Call, ss store.StudioStore, traineeID string, subs []domain.Subscription) error {
	charges, err := ss.ListCharges(c.Ctx, store.ChargeFilter{TraineeIDs: []string{traineeID}, Page: store.Page{Limit: 1000}})
	if err != nil {
		return err
	}
	credits, err := ss.ListCredits(c.Ctx, []string{traineeID}, c.Now())
	if err != nil {
		return err
	}
	bySub := map[string][]domain.Charge{}
	for _, ch := range charges.Items {
		bySub[ch.SubscriptionID] = append(bySub[ch.SubscriptionID], ch)
	}
	today := c.LocalToday()
	for i := range subs {
		s := &subs[i]
		s.PaymentState = domain.PaymentState(bySub[s.ID], today)
		for _, cr := range credits[traineeID] {
			if cr.SubscriptionID == s.ID {
				used := cr.Used
				s.SessionsUsed, s.SessionsLeft, s.ExpiresOn = &used, cr.Left, cr.ExpiresOn
			}
		}
	}
	return nil
}

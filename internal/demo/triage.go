package demo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// seedTriageFacts gives the role trainees the plan, form, task and weight
// facts of their triage reason (sessions, check-ins and injuries are laid
// out above).
func seedTriageFacts(ctx context.Context, ss store.StudioStore, a *athlete, now time.Time, today string, zone *time.Location) error {
	t := a.t
	switch a.k {
	case rolePlanEnded, rolePlanEnding:
		subs, err := ss.ListSubscriptions(ctx, t.ID)
		if err != nil {
			return err
		}
		products, err := ss.ListProducts(ctx, "", store.Page{Limit: 200})
		if err != nil {
			return err
		}
		monthly := products.Items[slices.IndexFunc(products.Items, func(p domain.Product) bool { return p.DurationDays != nil && *p.DurationDays == 30 && p.Price != nil })]
		for _, s := range subs {
			if s.Status != domain.SubCancelled {
				// Switched to the monthly plan below.
				if err := ss.SetSubscriptionState(ctx, s.ID, domain.SubCancelled); err != nil {
					return err
				}
			}
		}
		ends := addDays(today, 4)
		if a.k == rolePlanEnded {
			ends = addDays(today, -10)
		}
		sub := domain.Subscription{TraineeID: t.ID, ProductID: monthly.ID, StartedOn: addDays(ends, -29), EndsOn: &ends, Price: monthly.Price, CreatedAt: dayAt(addDays(ends, -30), 10, zone)}
		if err := ss.CreateSubscription(ctx, &sub); err != nil {
			return fmt.Errorf("plan: %w", err)
		}
	case roleFormPastDue:
		forms, err := ss.ListFormTemplates(ctx, "", store.Page{Limit: 200})
		if err != nil {
			return err
		}
		if len(forms.Items) == 0 {
			return fmt.Errorf("no form to send")
		}
		off := false
		due := now.Add(-50 * time.Hour).Truncate(time.Hour)
		f := domain.FormAssignment{TraineeID: t.ID, FormTemplateID: forms.Items[len(forms.Items)-1].ID, DueAt: &due, Prompt: new("Your weekly check-in, please"), Notify: &off, CreatedAt: now.AddDate(0, 0, -5)}
		if err := ss.CreateFormAssignment(ctx, &f); err != nil {
			return fmt.Errorf("form: %w", err)
		}
	case roleOverdueTask:
		due := now.Add(-72 * time.Hour).Truncate(time.Hour)
		task := domain.Task{Title: "לתאם שיחת מעקב על התוכנית", ClientID: &t.ID, DueAt: &due, Priority: 3, CreatedAt: now.AddDate(0, 0, -6)}
		if len(t.CoachIDs) > 0 {
			task.CoachID = &t.CoachIDs[0]
		}
		if err := ss.CreateTask(ctx, &task); err != nil {
			return fmt.Errorf("task: %w", err)
		}
	case roleWeightAway:
		// Three weigh-ins a week for four weeks, chosen so that each
		// week's average (with the weigh-ins already there) is a kilo
		// heavier: away from the goal set above.
		base := 70.0
		if t.WeightKg != nil {
			base = *t.WeightKg
		}
		for week := range 4 {
			from := addDays(today, -27+7*week)
			had, err := ss.WeightsBetween(ctx, t.ID, dayAt(from, 0, zone), dayAt(addDays(from, 7), 0, zone))
			if err != nil {
				return err
			}
			sum := 0.0
			for _, w := range had {
				sum += w.WeightKg
			}
			target := base + 1 + float64(week)
			v := (float64(len(had)+3)*target - sum) / 3
			for i, day := range []int{0, 3, 5} {
				w := domain.Weight{TraineeID: t.ID, WeightKg: round1(v), RecordedAt: dayAt(addDays(from, day), 7, zone).Add(time.Duration(i) * time.Minute)}
				if err := ss.CreateWeight(ctx, &w); err != nil {
					return fmt.Errorf("weight: %w", err)
				}
			}
		}
		// The profile's weight is the latest weigh-in, as the lane keeps it.
		ws, err := ss.ListWeights(ctx, t.ID, store.Page{Limit: 1})
		if err != nil {
			return err
		}
		t.WeightKg = &ws.Items[0].WeightKg
		t.UpdatedAt = time.Time{}
		if err := ss.UpdateTrainee(ctx, &t); err != nil {
			return fmt.Errorf("trainee weight: %w", err)
		}
	}
	return nil
}

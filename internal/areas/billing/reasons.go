package billing

import (
	"fmt"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// The reasons billing adds to the roster's triage (needs_attention, and
// so the coach's morning digest), for a credential holding the billing
// scope.
const (
	ReasonOwes        = "owes"         // a charge past due with a balance
	ReasonPackageEnds = "package_ends" // a package ends within 14 days, or has one session left
	ReasonNoCredits   = "no_credits"   // a package or membership today, and no session left on any
)

// PackageEndsDays is how near a package's last day makes it package_ends.
const PackageEndsDays = 14

// Severities of billing's reasons, on the triage's scale.
var severities = map[string]int{ReasonOwes: 45, ReasonNoCredits: 52, ReasonPackageEnds: 48}

// listAllOver is the size of a trainee list past which the reasons read the
// whole studio's rows and keep the list's, rather than naming each in SQL.
const listAllOver = 500

func reasons(c *lane.Call, traineeIDs []string) (map[string][]training.Reason, error) {
	if !c.P.Has(auth.ScopeBilling) || len(traineeIDs) == 0 {
		return nil, nil
	}
	ss, today := c.Studio(), c.LocalToday()
	asked := traineeIDs
	if len(asked) > listAllOver {
		asked = nil
	}
	credits, err := ss.ListCredits(c.Ctx, asked, c.Now())
	if err != nil {
		return nil, err
	}
	overdue, err := ss.ListCharges(c.Ctx, store.ChargeFilter{TraineeIDs: asked, OverdueOn: today, Page: store.Page{Limit: 1000}})
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(traineeIDs))
	for _, id := range traineeIDs {
		want[id] = true
	}
	out := map[string][]training.Reason{}
	owed := map[string]map[string]money.Money{}
	since := map[string]string{}
	for _, ch := range overdue.Items {
		if !want[ch.TraineeID] {
			continue
		}
		if owed[ch.TraineeID] == nil {
			owed[ch.TraineeID], since[ch.TraineeID] = map[string]money.Money{}, ch.DueOn
		}
		add(owed[ch.TraineeID], ch.Balance)
	}
	for id, m := range owed {
		out[id] = append(out[id], training.Reason{Code: ReasonOwes, Severity: severities[ReasonOwes],
			Message: fmt.Sprintf("Owes %s, overdue since %s.", sumOf(m), since[id]), Numbers: map[string]any{"owed": m, "dueSince": since[id]}})
	}
	for id, list := range credits {
		if !want[id] {
			continue
		}
		out[id] = append(out[id], creditReasons(list, today)...)
	}
	return out, nil
}

// creditReasons are package_ends and no_credits of one trainee's credits.
func creditReasons(list []domain.Credits, today string) []training.Reason {
	var out []training.Reason
	current, usable := 0, 0
	var empty *domain.Credits
	for i, cr := range list {
		if cr.Status != "active" || cr.StartedOn > today || (cr.ExpiresOn != nil && *cr.ExpiresOn < today) {
			continue
		}
		current++
		if !cr.Usable(today) {
			empty = &list[i]
			continue
		}
		usable++
		if cr.Kind != domain.PlanPackage {
			continue
		}
		last := ""
		if cr.ExpiresOn != nil && *cr.ExpiresOn <= addDays(today, PackageEndsDays) {
			last = *cr.ExpiresOn
		}
		if (cr.Left != nil && *cr.Left <= 1) || last != "" {
			msg := fmt.Sprintf("%s: %d of %d sessions left", cr.PlanName, *cr.Left, *cr.Sessions)
			if cr.Left == nil {
				msg = cr.PlanName + ": unlimited sessions"
			}
			if last != "" {
				msg += ", ends " + last
			}
			out = append(out, training.Reason{Code: ReasonPackageEnds, Severity: severities[ReasonPackageEnds], Message: msg + ".",
				Numbers: map[string]any{"sessionsLeft": cr.Left, "expiresOn": cr.ExpiresOn, "subscriptionId": cr.SubscriptionID}})
		}
	}
	if current > 0 && usable == 0 && empty != nil {
		msg := fmt.Sprintf("No sessions left: %s used %d of %d", empty.PlanName, empty.Used, *empty.Sessions)
		if empty.Kind == domain.PlanMembership {
			msg += " this week"
		}
		out = append(out, training.Reason{Code: ReasonNoCredits, Severity: severities[ReasonNoCredits], Message: msg + ".",
			Numbers: map[string]any{"sessionsUsed": empty.Used, "subscriptionId": empty.SubscriptionID}})
	}
	return out
}

// overview is a trainee's credits and what she owes, as lines of her
// overview: for her own reading, and for a coach's credential with billing.
func overview(c *lane.Call, traineeID string) ([]string, error) {
	if !c.P.IsTrainee() && !c.P.Has(auth.ScopeBilling) {
		return nil, nil
	}
	ss, today := c.Studio(), c.LocalToday()
	credits, err := ss.ListCredits(c.Ctx, []string{traineeID}, c.Now())
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, cr := range credits[traineeID] {
		if cr.Status == "active" && cr.StartedOn <= today && (cr.ExpiresOn == nil || *cr.ExpiresOn >= today) {
			lines = append(lines, "Credits — "+creditLine(cr)+".")
		}
	}
	overdue, err := ss.ListCharges(c.Ctx, store.ChargeFilter{TraineeIDs: []string{traineeID}, OverdueOn: today, Page: store.Page{Limit: 100}})
	if err != nil {
		return nil, err
	}
	if len(overdue.Items) > 0 {
		m := map[string]money.Money{}
		for _, ch := range overdue.Items {
			add(m, ch.Balance)
		}
		lines = append(lines, fmt.Sprintf("Owes %s, overdue since %s.", sumOf(m), overdue.Items[0].DueOn))
	}
	return lines, nil
}

// addDays is day (YYYY-MM-DD) moved n days.
func addDays(day string, n int) string { return lane.AddDays(day, n) }

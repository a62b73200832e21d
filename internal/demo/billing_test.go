package demo

import (
	"context"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The demo tells the business loop: a package paid with 3 sessions left
// and ending soon, one partly paid, a membership owed, and one whose
// week's sessions are used.
func TestDemoBillingStories(t *testing.T) {
	t.Parallel()
	st, studio := seeded(t)
	ctx := context.Background()
	ss := st.Studio(studio.ID)
	list, err := ss.SearchTrainees(ctx, store.TraineeFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, tr := range list.Items {
		byName[tr.FirstName+" "+tr.LastName] = tr.ID
	}
	today := seedNow.In(studio.TimeZone()).Format("2006-01-02")
	credits, err := ss.ListCredits(ctx, nil, seedNow)
	if err != nil {
		t.Fatal(err)
	}
	state := func(name string) (string, []domain.Credits) {
		id := byName[name]
		charges, err := ss.ListCharges(ctx, store.ChargeFilter{TraineeIDs: []string{id}, Page: store.Page{Limit: 50}})
		if err != nil || charges.Total == 0 {
			t.Fatalf("%s: charges %+v, %v", name, charges, err)
		}
		return domain.PaymentState(charges.Items, today), credits[id]
	}
	if s, c := state("נועה כהן"); s != domain.PaymentPaid || len(c) != 1 || *c[0].Left != 3 || *c[0].ExpiresOn > addDays(today, 14) {
		t.Errorf("Noa: %s %+v, want paid, 3 left, ending within 14 days", s, c)
	}
	if s, _ := state("Omer Tal"); s != domain.PaymentPartlyPaid {
		t.Errorf("Omer: %s, want partly_paid", s)
	}
	if s, _ := state("Daniel Levi"); s != domain.PaymentOverdue {
		t.Errorf("Daniel: %s, want overdue", s)
	}
	if s, c := state("Maya Hoffman"); s != domain.PaymentPaid || len(c) != 1 || *c[0].Left != 0 || c[0].Kind != domain.PlanMembership {
		t.Errorf("Maya: %s %+v, want paid, no session left this week", s, c)
	}
	overdue, _ := ss.ListCharges(ctx, store.ChargeFilter{OverdueOn: today})
	if overdue.Total != 1 || overdue.Items[0].TraineeID != byName["Daniel Levi"] || !strings.Contains(overdue.Items[0].PlanName, "Monthly membership") {
		t.Errorf("overdue charges: %+v, want Daniel's alone", overdue.Items)
	}
}

package billing

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// creditsView is what a package or membership holds today.
type creditsView struct {
	// SessionsUsed are a package's in all, a membership's this week.
	SessionsUsed int `json:"sessionsUsed"`
	// SessionsLeft is null for unlimited.
	SessionsLeft *int    `json:"sessionsLeft"`
	ExpiresOn    *string `json:"expiresOn"`
	WeekStart    *string `json:"weekStart,omitempty"`
}

type subscriptionView struct {
	ID           string       `json:"id"`
	PlanName     string       `json:"planName"`
	Kind         string       `json:"kind"`
	Status       string       `json:"status"`
	PaymentState string       `json:"paymentState,omitempty"`
	StartedOn    string       `json:"startedOn"`
	EndsOn       *string      `json:"endsOn"`
	Credits      *creditsView `json:"credits,omitempty"`
}

type traineeBillingView struct {
	Summary   string `json:"summary"`
	TraineeID string `json:"traineeId"`
	// Owed is the open balance by currency; Overdue the part past due.
	Owed          map[string]money.Money `json:"owed"`
	Overdue       map[string]money.Money `json:"overdue"`
	Subscriptions []subscriptionView     `json:"subscriptions"`
	OpenCharges   []domain.Charge        `json:"openCharges"`
	Payments      []domain.Payment       `json:"payments"`
}

// paymentsShown is how many of a trainee's latest payments her billing shows.
const paymentsShown = 10

func traineeBilling(c *lane.Call, _ *lane.NoInput) (traineeBillingView, error) {
	ss := c.Studio()
	t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
	if err != nil {
		return traineeBillingView{}, err
	}
	today := c.LocalToday()
	subs, err := ss.ListSubscriptions(c.Ctx, t.ID)
	if err != nil {
		return traineeBillingView{}, err
	}
	credits, err := ss.ListCredits(c.Ctx, []string{t.ID}, c.Now())
	if err != nil {
		return traineeBillingView{}, err
	}
	charges, err := ss.ListCharges(c.Ctx, store.ChargeFilter{TraineeIDs: []string{t.ID}, Page: store.Page{Limit: 1000}})
	if err != nil {
		return traineeBillingView{}, err
	}
	payments, err := ss.ListPayments(c.Ctx, store.PaymentFilter{TraineeID: t.ID, Page: store.Page{Limit: paymentsShown}})
	if err != nil {
		return traineeBillingView{}, err
	}
	out := traineeBillingView{TraineeID: t.ID, Owed: map[string]money.Money{}, Overdue: map[string]money.Money{},
		Subscriptions: []subscriptionView{}, OpenCharges: []domain.Charge{}, Payments: payments.Items}
	bySub := map[string][]domain.Charge{}
	for _, ch := range charges.Items {
		bySub[ch.SubscriptionID] = append(bySub[ch.SubscriptionID], ch)
		if ch.Balance.Minor > 0 {
			out.OpenCharges = append(out.OpenCharges, ch)
			add(out.Owed, ch.Balance)
			if ch.Overdue(today) {
				add(out.Overdue, ch.Balance)
			}
		}
	}
	held := map[string]domain.Credits{}
	for _, cr := range credits[t.ID] {
		held[cr.SubscriptionID] = cr
	}
	var lines []string
	for i := len(subs) - 1; i >= 0; i-- { // newest first
		s := subs[i]
		s.Derive(today)
		v := subscriptionView{ID: s.ID, PlanName: s.ProductName, Kind: domain.PlanOther, Status: s.Status, StartedOn: s.StartedOn, EndsOn: s.EndsOn,
			PaymentState: domain.PaymentState(bySub[s.ID], today)}
		if cr, ok := held[s.ID]; ok {
			v.Kind = cr.Kind
			v.Credits = &creditsView{SessionsUsed: cr.Used, SessionsLeft: cr.Left, ExpiresOn: cr.ExpiresOn, WeekStart: cr.WeekStart}
			if s.Status == domain.SubLive {
				lines = append(lines, creditLine(cr))
			}
		}
		out.Subscriptions = append(out.Subscriptions, v)
	}
	who, owes := strings.TrimSpace(t.FirstName+" "+t.LastName), "owes"
	if c.P.IsTrainee() { // her own answer names no one
		who, owes = "You", "owe"
	}
	out.Summary = summary(who, owes, out.Owed, out.Overdue, out.OpenCharges, today, lines)
	return out, nil
}

func add(m map[string]money.Money, x money.Money) {
	cur := m[x.Currency]
	m[x.Currency] = money.Money{Minor: cur.Minor + x.Minor, Currency: x.Currency}
}

// sumOf is the amounts of m in words, currencies in order: "₪250.00 and $10.00".
func sumOf(m map[string]money.Money) string {
	var parts []string
	for _, v := range m {
		parts = append(parts, v.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, " and ")
}

// creditLine is one package's or membership's credits in words.
func creditLine(cr domain.Credits) string {
	var b strings.Builder
	b.WriteString(cr.PlanName + ": ")
	switch {
	case cr.Left == nil:
		b.WriteString("unlimited sessions")
	case cr.Kind == domain.PlanMembership:
		fmt.Fprintf(&b, "%d of %d sessions left this week", *cr.Left, *cr.Sessions)
	default:
		fmt.Fprintf(&b, "%d of %d sessions left", *cr.Left, *cr.Sessions)
	}
	if cr.ExpiresOn != nil {
		fmt.Fprintf(&b, ", until %s", *cr.ExpiresOn)
	}
	return b.String()
}

func summary(name, owes string, owed, overdue map[string]money.Money, open []domain.Charge, today string, lines []string) string {
	var b strings.Builder
	switch {
	case len(owed) == 0:
		b.WriteString(name + " " + owes + " nothing.")
	case len(overdue) > 0:
		since := ""
		for _, ch := range open {
			if ch.Overdue(today) {
				since = ch.DueOn
				break
			}
		}
		fmt.Fprintf(&b, "%s %s %s, %s of it overdue since %s.", name, owes, sumOf(owed), sumOf(overdue), since)
	default:
		fmt.Fprintf(&b, "%s %s %s, due %s.", name, owes, sumOf(owed), open[0].DueOn)
	}
	for _, l := range lines {
		b.WriteString(" " + l + ".")
	}
	return b.String()
}

type paymentInput struct {
	Amount   float64 `json:"amount" jsonschema:"What she paid, in major units of the currency (250, 249.90)." lane:"min=0,max=1000000"`
	Currency *string `json:"currency,omitempty" jsonschema:"ISO 4217; default the charge's, else the studio's." lane:"minLength=3,maxLength=3"`
	Method   string  `json:"method" lane:"enum=cash|bank_transfer|bit|card|other"`
	PaidOn   *string `json:"paidOn,omitempty" jsonschema:"The day she paid; today when omitted." lane:"format=date" when:"past"`
	ChargeID *string `json:"chargeId,omitempty" jsonschema:"The charge it pays (get_trainee_billing's openCharges); when omitted, her charge due soonest." lane:"maxLength=100" ref:"charge"`
	Note     *string `json:"note,omitempty" jsonschema:"Receipt number, what for." lane:"maxLength=500"`
}

func recordPayment(c *lane.Call, in *paymentInput) (domain.Payment, error) {
	ss := c.Studio()
	t, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), ss.GetTrainee)
	if err != nil {
		return domain.Payment{}, err
	}
	currency := ""
	switch {
	case in.Currency != nil:
		if currency, err = lane.Currency("currency", *in.Currency); err != nil {
			return domain.Payment{}, err
		}
	case in.ChargeID != nil:
		ch, err := lane.Lookup(c.Ctx, ids.Charge, *in.ChargeID, ss.GetCharge)
		if err != nil {
			return domain.Payment{}, err
		}
		currency = ch.Currency
	default:
		st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
		if err != nil {
			return domain.Payment{}, err
		}
		currency = st.Currency()
	}
	amount, err := c.Amount("amount", currency)
	if err != nil {
		return domain.Payment{}, err
	}
	if amount == nil || amount.Minor <= 0 {
		return domain.Payment{}, lane.InvalidField("amount", "amount must be more than 0; a refund is POST /payments/{id}/refund.")
	}
	p := domain.Payment{TraineeID: t.ID, ChargeID: in.ChargeID, Amount: *amount, Currency: currency, Method: in.Method, PaidOn: dayOr(in.PaidOn, c.LocalToday()),
		Note: cleanNote(in.Note), Source: domain.PaidToCoach, CreatedAt: c.Now().UTC()}
	out, _, err := ss.RecordPayment(c.Ctx, p)
	if err != nil {
		return out, paymentErr(err, "chargeId", ids.Charge, in.ChargeID)
	}
	c.SetResource(out.ID)
	return out, nil
}

type refundInput struct {
	Amount *float64 `json:"amount,omitempty" jsonschema:"How much to take back, in major units; all that is left of the payment when omitted." lane:"min=0,max=1000000"`
	Method *string  `json:"method,omitempty" jsonschema:"How it was given back: cash, bank_transfer, bit, card or other; the payment's when omitted." lane:"enum=cash|bank_transfer|bit|card|other"`
	PaidOn *string  `json:"paidOn,omitempty" jsonschema:"The day it was given back; today when omitted." lane:"format=date" when:"past"`
	Note   *string  `json:"note,omitempty" jsonschema:"Why: a refund, or the correction of a mistaken payment." lane:"maxLength=500"`
}

func refundPayment(c *lane.Call, in *refundInput) (domain.Payment, error) {
	var out domain.Payment
	err := c.InTx(func(ss store.StudioStore) error {
		orig, err := lane.Lookup(c.Ctx, ids.Payment, c.ID(), ss.GetPayment)
		if err != nil {
			return err
		}
		p := domain.Payment{TraineeID: orig.TraineeID, ReversesID: &orig.ID, Currency: orig.Currency, Method: orig.Method, PaidOn: dayOr(in.PaidOn, c.LocalToday()),
			Note: cleanNote(in.Note), Source: domain.PaidToCoach, CreatedAt: c.Now().UTC()}
		if in.Method != nil {
			p.Method = *in.Method
		}
		if c.Has("amount") {
			m, err := c.Amount("amount", orig.Currency)
			if err != nil {
				return err
			}
			if m == nil || m.Minor <= 0 {
				return lane.InvalidField("amount", "amount must be more than 0: how much is given back.")
			}
			p.Amount = money.Money{Minor: -m.Minor, Currency: orig.Currency}
		} else {
			left, err := leftOf(c, ss, orig)
			if err != nil {
				return err
			}
			if left <= 0 {
				return lane.Conflict(fmt.Sprintf("Payment %s was refunded in full already.", orig.ID))
			}
			p.Amount = money.Money{Minor: -left, Currency: orig.Currency}
		}
		out, _, err = ss.RecordPayment(c.Ctx, p)
		if err != nil {
			return paymentErr(err, "amount", "", nil)
		}
		return nil
	})
	if err == nil {
		c.SetResource(out.ID)
	}
	return out, err
}

// leftOf is what is left of a payment after its refunds, in minor units.
func leftOf(c *lane.Call, ss store.StudioStore, orig domain.Payment) (int64, error) {
	list, err := ss.ListPayments(c.Ctx, store.PaymentFilter{TraineeID: orig.TraineeID, Page: store.Page{Limit: 1000}})
	if err != nil {
		return 0, err
	}
	left := orig.Amount.Minor
	for _, p := range list.Items {
		if p.ReversesID != nil && *p.ReversesID == orig.ID {
			left += p.Amount.Minor
		}
	}
	return left, nil
}

// paymentErr words the ledger's refusals for the field they concern.
func paymentErr(err error, field string, kind ids.Kind, id *string) error {
	switch {
	case errors.Is(err, store.ErrPayment):
		msg := strings.TrimPrefix(err.Error(), store.ErrPayment.Error()+": ")
		return lane.InvalidField(field, strings.ToUpper(msg[:1])+msg[1:]+".")
	case errors.Is(err, store.ErrNotFound) && kind != "" && id != nil:
		return lane.NotFound(kind, *id)
	}
	return err
}

func dayOr(day *string, today string) string {
	if day != nil {
		return *day
	}
	return today
}

func cleanNote(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	v := strings.TrimSpace(*s)
	return &v
}

type paymentsQuery struct {
	TraineeID string  `json:"traineeId,omitempty" jsonschema:"Only this trainee's payments: her id from search_trainees, or her name." lane:"maxLength=100" ref:"trainee"`
	From      *string `json:"from,omitempty" jsonschema:"First day paid, inclusive." lane:"format=date" when:"past"`
	To        *string `json:"to,omitempty" jsonschema:"Last day paid, inclusive." lane:"format=date" when:"past"`
	lane.PageQuery
}

type paymentsList struct {
	Summary string `json:"summary"`
	// Received is the sum of the payments listed on this page, refunds
	// subtracted, by currency.
	Received map[string]money.Money `json:"received"`
	lane.ListOf[domain.Payment]
}

func listPayments(c *lane.Call, q *paymentsQuery) (paymentsList, error) {
	f := store.PaymentFilter{TraineeID: q.TraineeID, Page: q.Page()}
	if q.From != nil {
		f.From = *q.From
	}
	if q.To != nil {
		f.To = *q.To
	}
	if f.From != "" && f.To != "" && f.From > f.To {
		return paymentsList{}, lane.InvalidField("from", fmt.Sprintf("from (%s) is after to (%s); swap them.", f.From, f.To))
	}
	list, err := c.Studio().ListPayments(c.Ctx, f)
	if err != nil {
		return paymentsList{}, err
	}
	out := paymentsList{Received: map[string]money.Money{}, ListOf: lane.PageOf(list, q.Page())}
	for _, p := range list.Items {
		add(out.Received, p.Amount)
	}
	out.Summary = fmt.Sprintf("%d payments.", list.Total)
	if len(list.Items) > 0 {
		out.Summary = fmt.Sprintf("%d payments; these %d come to %s.", list.Total, len(list.Items), sumOf(out.Received))
	}
	return out, nil
}

type chargesQuery struct {
	TraineeID string `json:"traineeId,omitempty" jsonschema:"Only this trainee's charges: her id from search_trainees, or her name." lane:"maxLength=100" ref:"trainee"`
	Status    string `json:"status,omitempty" jsonschema:"all (the default), open (a balance left) or overdue (past due with a balance)." lane:"enum=all|open|overdue"`
	lane.PageQuery
}

func listCharges(c *lane.Call, q *chargesQuery) (lane.ListOf[domain.Charge], error) {
	f := store.ChargeFilter{Page: q.Page(), Open: q.Status == "open"}
	if q.TraineeID != "" {
		f.TraineeIDs = []string{q.TraineeID}
	}
	if q.Status == "overdue" {
		f.OverdueOn = c.LocalToday()
	}
	list, err := c.Studio().ListCharges(c.Ctx, f)
	return lane.PageOf(list, q.Page()), err
}

type settingsView struct {
	RenewMemberships bool `json:"renewMemberships"`
	PaymentTermsDays int  `json:"paymentTermsDays"`
}

type settingsInput struct {
	RenewMemberships *bool `json:"renewMemberships,omitempty" jsonschema:"Whether memberships renew into their next period, each charged (on unless turned off; a plan's own autoRenew may turn it off for that plan)." lane:"null=false"`
	PaymentTermsDays *int  `json:"paymentTermsDays,omitempty" jsonschema:"Days after a period starts that its charge is due (0: the first day)." lane:"min=0,max=120,null=false"`
}

func settingsOf(st domain.Studio) settingsView {
	return settingsView{RenewMemberships: st.RenewsMemberships(), PaymentTermsDays: st.PaymentTermsDays()}
}

func getSettings(c *lane.Call, _ *lane.NoInput) (settingsView, error) {
	st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	return settingsOf(st), err
}

func patchSettings(c *lane.Call, in *settingsInput) (settingsView, error) {
	patch := map[string]any{}
	if in.RenewMemberships != nil {
		patch["renewMemberships"] = *in.RenewMemberships
	}
	if in.PaymentTermsDays != nil {
		patch["paymentTermsDays"] = *in.PaymentTermsDays
	}
	if len(patch) == 0 {
		return settingsView{}, lane.InvalidField("renewMemberships", "Send at least one setting: renewMemberships or paymentTermsDays.")
	}
	st, err := store.PatchStudioSettings(c.Ctx, c.DB(), c.P.StudioID, patch)
	return settingsOf(st), err
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/money"
)

// Billing is what trainees owe and paid: charges (a package's or a
// membership's start and each renewed period) and payments, which are
// never edited: a refund or correction is a payment of its own.
type Billing interface {
	// ListCharges is a page of charges, soonest due first, each with what
	// was paid towards it and its balance.
	ListCharges(ctx context.Context, f ChargeFilter) (List[domain.Charge], error)
	GetCharge(ctx context.Context, id string) (domain.Charge, error)
	// RecordPayment writes p (see the package's RecordPayment).
	RecordPayment(ctx context.Context, p domain.Payment) (domain.Payment, bool, error)
	GetPayment(ctx context.Context, id string) (domain.Payment, error)
	// ListPayments is a page of payments, newest paid first.
	ListPayments(ctx context.Context, f PaymentFilter) (List[domain.Payment], error)
	// RenewMemberships moves every active, auto-renewing membership whose
	// period ended before today into the periods that follow, up to the one
	// holding today, with a charge for each (when it has a price); a period
	// is renewed once however often this runs. It answers how many periods
	// it added.
	RenewMemberships(ctx context.Context, today string) (int, error)
}

// ChargeFilter narrows ListCharges.
type ChargeFilter struct {
	// TraineeIDs are the trainees whose charges to list (nil: all).
	TraineeIDs     []string
	SubscriptionID string
	// Open keeps the charges with a balance; OverdueOn those past due on
	// that day with a balance.
	Open      bool
	OverdueOn string
	Page
}

// PaymentFilter narrows ListPayments.
type PaymentFilter struct {
	TraineeID string
	ChargeID  string
	From, To  string // paid on, inclusive; "" for no bound
	Page
}

// ErrPayment is a payment the ledger refuses: its message is a sentence
// for the caller (wrapped with %w).
var ErrPayment = errors.New("payment refused")

// RecordPayment writes p in its studio (p.StudioID) on q, the store or the
// one InTx hands its function. A payment that names no charge is applied
// to the trainee's charge in its currency that is due soonest with a
// balance (none: it stays a credit on her account). A reversal
// (ReversesID) refunds or corrects another payment of hers: its amount is
// negative, at most what is left of that payment, and it names that
// payment's charge. A payment with an ExternalID already recorded from its
// source is that payment, created false: a processor's event replayed is
// one payment.
func RecordPayment(ctx context.Context, q Queryer, p domain.Payment) (domain.Payment, bool, error) {
	return q.Studio(p.StudioID).RecordPayment(ctx, p)
}

const chargeColumns = `c.id, c.trainee_id, c.subscription_id, p.name, c.period_start, c.period_end, c.due_on, c.amount_minor, c.currency, c.created_at,
	COALESCE((SELECT SUM(y.amount_minor) FROM payments y WHERE y.studio_id = c.studio_id AND y.charge_id = c.id), 0)`
const chargeFrom = `FROM charges c JOIN subscriptions b ON b.studio_id = c.studio_id AND b.id = c.subscription_id
	JOIN products p ON p.studio_id = b.studio_id AND p.id = b.product_id`
const chargePaid = `COALESCE((SELECT SUM(y.amount_minor) FROM payments y WHERE y.studio_id = c.studio_id AND y.charge_id = c.id), 0)`

func scanCharge(row scanner, c *domain.Charge, extra ...any) error {
	var end sql.Null[string]
	var amount, paid, created int64
	if err := row.Scan(append([]any{&c.ID, &c.TraineeID, &c.SubscriptionID, &c.PlanName, &c.PeriodStart, &end, &c.DueOn, &amount, &c.Currency, &created, &paid}, extra...)...); err != nil {
		return err
	}
	c.PeriodEnd, c.CreatedAt = valueOrNil(end), fromMS(created)
	c.Amount = money.Money{Minor: amount, Currency: c.Currency}
	c.Paid = money.Money{Minor: paid, Currency: c.Currency}
	c.Balance = money.Money{Minor: amount - paid, Currency: c.Currency}
	return nil
}

func (s *studioStore) ListCharges(ctx context.Context, f ChargeFilter) (List[domain.Charge], error) {
	where, args := `c.studio_id = ?`, []any{s.studioID}
	if f.TraineeIDs != nil {
		if len(f.TraineeIDs) == 0 {
			return List[domain.Charge]{Items: []domain.Charge{}}, nil
		}
		where += ` AND c.trainee_id IN (` + placeholders(len(f.TraineeIDs)) + `)`
		for _, id := range f.TraineeIDs {
			args = append(args, id)
		}
	}
	if f.SubscriptionID != "" {
		where, args = where+` AND c.subscription_id = ?`, append(args, f.SubscriptionID)
	}
	if f.Open || f.OverdueOn != "" {
		where += ` AND c.amount_minor > ` + chargePaid
	}
	if f.OverdueOn != "" {
		where, args = where+` AND c.due_on < ?`, append(args, f.OverdueOn)
	}
	return listPage(ctx, s, chargeColumns, chargeFrom, where, `c.due_on, c.created_at, c.id`, args, f.Page, scanCharge)
}

func (s *studioStore) GetCharge(ctx context.Context, id string) (domain.Charge, error) {
	return getOne(ctx, s, "charge", id, `SELECT `+chargeColumns+` `+chargeFrom+` WHERE c.studio_id = ? AND c.id = ?`, []any{s.studioID, id}, scanCharge)
}

// chargeFor writes the charge of a subscription's period starting on start
// (once: a second one for the same period is no change) and reports
// whether it wrote it. A price of nothing charges nothing.
func (s *studioStore) chargeFor(ctx context.Context, q querier, traineeID, subscriptionID, start string, end *string, price *int64, currency string, termsDays int) (bool, error) {
	if price == nil || *price <= 0 {
		return false, nil
	}
	due := start
	if termsDays > 0 {
		due = addDays(start, termsDays)
	}
	res, err := q.ExecContext(ctx, s.q(`INSERT INTO charges (id, studio_id, trainee_id, subscription_id, period_start, period_end, due_on, amount_minor, currency, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (studio_id, subscription_id, period_start) DO NOTHING`),
		ids.New(ids.Charge), s.studioID, traineeID, subscriptionID, start, end, due, *price, currency, ms(s.now()))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// studioSettings reads the studio's row on q.
func (s *studioStore) studioOn(ctx context.Context, q querier) (domain.Studio, error) {
	var st domain.Studio
	var settings sql.Null[string]
	err := q.QueryRowContext(ctx, s.q(`SELECT id, settings FROM studios WHERE id = ?`), s.studioID).Scan(&st.ID, &settings)
	if settings.Valid {
		st.Settings = []byte(settings.V)
	}
	return st, notFoundAs(notFound(err), "studio", s.studioID)
}

const paymentColumns = `y.id, y.trainee_id, y.charge_id, y.amount_minor, y.currency, y.method, y.paid_on, y.note, y.source, y.external_id, y.reverses_id, y.created_at`

func scanPayment(row scanner, p *domain.Payment, extra ...any) error {
	var charge, note, external, reverses sql.Null[string]
	var amount, created int64
	if err := row.Scan(append([]any{&p.ID, &p.TraineeID, &charge, &amount, &p.Currency, &p.Method, &p.PaidOn, &note, &p.Source, &external, &reverses, &created}, extra...)...); err != nil {
		return err
	}
	p.ChargeID, p.Note, p.ExternalID, p.ReversesID = valueOrNil(charge), valueOrNil(note), valueOrNil(external), valueOrNil(reverses)
	p.Amount, p.CreatedAt = money.Money{Minor: amount, Currency: p.Currency}, fromMS(created)
	return nil
}

func (s *studioStore) GetPayment(ctx context.Context, id string) (domain.Payment, error) {
	p, err := getOne(ctx, s, "payment", id, `SELECT `+paymentColumns+` FROM payments y WHERE y.studio_id = ? AND y.id = ?`, []any{s.studioID, id}, scanPayment)
	p.StudioID = s.studioID
	return p, err
}

func (s *studioStore) ListPayments(ctx context.Context, f PaymentFilter) (List[domain.Payment], error) {
	where, args := `y.studio_id = ?`, []any{s.studioID}
	if f.TraineeID != "" {
		where, args = where+` AND y.trainee_id = ?`, append(args, f.TraineeID)
	}
	if f.ChargeID != "" {
		where, args = where+` AND y.charge_id = ?`, append(args, f.ChargeID)
	}
	if f.From != "" {
		where, args = where+` AND y.paid_on >= ?`, append(args, f.From)
	}
	if f.To != "" {
		where, args = where+` AND y.paid_on <= ?`, append(args, f.To)
	}
	return listPage(ctx, s, paymentColumns, `FROM payments y`, where, `y.paid_on DESC, y.created_at DESC, y.id DESC`, args, f.Page, scanPayment)
}

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrPayment}, args...)...)
}

func (s *studioStore) RecordPayment(ctx context.Context, p domain.Payment) (domain.Payment, bool, error) {
	p.StudioID = s.studioID
	if p.ID == "" {
		p.ID = ids.New(ids.Payment)
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now()
	}
	if p.Source == "" {
		p.Source = domain.PaidToCoach
	}
	if p.Currency == "" {
		p.Currency = p.Amount.Currency
	}
	switch {
	case p.Amount.Currency != p.Currency:
		return p, false, refused("the amount is in %s but the payment in %s", p.Amount.Currency, p.Currency)
	case !slices.Contains(domain.PaymentMethods, p.Method):
		return p, false, refused("method must be one of cash, bank_transfer, bit, card or other; %q is not one", p.Method)
	case p.Source != domain.PaidToCoach && p.Source != domain.PaidByProcessor:
		return p, false, refused("source must be coach or processor; %q is not one", p.Source)
	case p.Amount.Minor == 0:
		return p, false, refused("the amount must not be zero")
	case p.Amount.Minor < 0 && p.ReversesID == nil:
		return p, false, refused("a negative amount is a refund: it names the payment it reverses")
	}
	if _, err := time.Parse(time.DateOnly, p.PaidOn); err != nil {
		return p, false, refused("paidOn must be a date, YYYY-MM-DD; %q is not one", p.PaidOn)
	}
	var out domain.Payment
	created := false
	err := s.InTx(ctx, func(tx Store) error {
		t := tx.Studio(s.studioID).(*studioStore)
		if p.ExternalID != nil {
			existing, err := t.paymentByExternal(ctx, p.Source, *p.ExternalID)
			if err == nil {
				out = existing
				return nil
			} else if !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if err := t.mustExist(ctx, t.conn(), tableTrainees, "trainee", p.TraineeID); err != nil {
			return err
		}
		if p.ReversesID != nil {
			if err := t.reversal(ctx, &p); err != nil {
				return err
			}
		} else if p.ChargeID != nil {
			c, err := t.GetCharge(ctx, *p.ChargeID)
			if err != nil {
				return err
			}
			if c.TraineeID != p.TraineeID {
				return missing("charge", *p.ChargeID) // another trainee's charge is not hers to pay
			}
			if c.Currency != p.Currency {
				return refused("charge %s is in %s; record its payment in %s", c.ID, c.Currency, c.Currency)
			}
		} else {
			open, err := t.ListCharges(ctx, ChargeFilter{TraineeIDs: []string{p.TraineeID}, Open: true, Page: Page{Limit: 200}})
			if err != nil {
				return err
			}
			for _, c := range open.Items {
				if c.Currency == p.Currency {
					p.ChargeID = &c.ID
					break
				}
			}
		}
		res, err := t.exec(ctx, `INSERT INTO payments (id, studio_id, trainee_id, charge_id, amount_minor, currency, method, paid_on, note, source, external_id, reverses_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (studio_id, source, external_id) DO NOTHING`,
			p.ID, t.studioID, p.TraineeID, p.ChargeID, p.Amount.Minor, p.Currency, p.Method, p.PaidOn, p.Note, p.Source, p.ExternalID, p.ReversesID, ms(p.CreatedAt))
		if err != nil {
			return t.writeErr(err, "payment", p.ID)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 && p.ExternalID != nil { // the same event, recorded at the same moment
			out, err = t.paymentByExternal(ctx, p.Source, *p.ExternalID)
			return err
		}
		out, created = p, true
		return nil
	})
	return out, created, err
}

func (s *studioStore) paymentByExternal(ctx context.Context, source, externalID string) (domain.Payment, error) {
	var p domain.Payment
	err := scanPayment(s.queryRow(ctx, `SELECT `+paymentColumns+` FROM payments y WHERE y.studio_id = ? AND y.source = ? AND y.external_id = ?`,
		s.studioID, source, externalID), &p)
	p.StudioID = s.studioID
	return p, notFound(err)
}

// reversal checks p, which reverses another payment, and gives it that
// payment's trainee, charge and currency.
func (s *studioStore) reversal(ctx context.Context, p *domain.Payment) error {
	orig, err := s.GetPayment(ctx, *p.ReversesID)
	if err != nil {
		return err
	}
	if orig.TraineeID != p.TraineeID {
		return missing("payment", *p.ReversesID)
	}
	if orig.ReversesID != nil {
		return refused("payment %s is itself a refund; reverse the payment it refunds, %s", orig.ID, *orig.ReversesID)
	}
	if p.Currency != orig.Currency {
		return refused("payment %s is in %s; its refund is too", orig.ID, orig.Currency)
	}
	var reversed int64
	if err := s.queryRow(ctx, `SELECT COALESCE(SUM(amount_minor), 0) FROM payments WHERE studio_id = ? AND reverses_id = ?`, s.studioID, orig.ID).Scan(&reversed); err != nil {
		return err
	}
	left := orig.Amount.Minor + reversed
	if p.Amount.Minor > 0 {
		p.Amount.Minor = -p.Amount.Minor
	}
	if -p.Amount.Minor > left {
		return refused("payment %s has %s left to refund; %s is more", orig.ID, money.Money{Minor: left, Currency: orig.Currency}.Decimal(),
			money.Money{Minor: -p.Amount.Minor, Currency: orig.Currency}.Decimal())
	}
	p.ChargeID = orig.ChargeID
	return nil
}

func (s *studioStore) RenewMemberships(ctx context.Context, today string) (int, error) {
	type due struct {
		id, trainee, endsOn, currency string
		period                        sql.Null[string]
		price                         *int64
	}
	var list []due
	rows, err := s.query(ctx, `SELECT b.id, b.trainee_id, b.ends_on, b.currency, p.period, b.price_minor
		FROM subscriptions b JOIN products p ON p.studio_id = b.studio_id AND p.id = b.product_id
		WHERE b.studio_id = ? AND b.state = 'active' AND p.kind = 'membership' AND p.auto_renew = ? AND b.ends_on IS NOT NULL AND b.ends_on < ?
		ORDER BY b.ends_on, b.id`, s.studioID, true, today)
	if err != nil {
		return 0, err
	}
	for rows.Next() {
		var d due
		var price sql.Null[int64]
		if err := rows.Scan(&d.id, &d.trainee, &d.endsOn, &d.currency, &d.period, &price); err != nil {
			rows.Close()
			return 0, err
		}
		d.price = valueOrNil(price)
		list = append(list, d)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	added := 0
	for _, d := range list {
		err := s.InTx(ctx, func(tx Store) error {
			t := tx.Studio(s.studioID).(*studioStore)
			st, err := t.studioOn(ctx, t.conn())
			if err != nil {
				return err
			}
			period := d.period.V
			if period == "" {
				period = domain.PeriodMonth
			}
			for end := d.endsOn; end < today; {
				start := addDays(end, 1)
				next := domain.PeriodEnd(start, period)
				res, err := t.exec(ctx, `UPDATE subscriptions SET ends_on = ? WHERE studio_id = ? AND id = ? AND ends_on = ? AND state = 'active'`,
					next, t.studioID, d.id, end)
				if err != nil {
					return err
				}
				if n, err := res.RowsAffected(); err != nil || n == 0 {
					return err // renewed meanwhile, or no longer active
				}
				if _, err := t.chargeFor(ctx, t.conn(), d.trainee, d.id, start, &next, d.price, d.currency, st.PaymentTermsDays()); err != nil {
					return err
				}
				added++
				end = next
			}
			return nil
		})
		if err != nil {
			return added, err
		}
	}
	return added, nil
}

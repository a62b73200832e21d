package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/phone"
)

// Table names the existence checks use.
const (
	tableTrainees         = "trainees"
	tableCoaches          = "coaches"
	tableProducts         = "products"
	tableProgramTemplates = "program_templates"
	tableFormTemplates    = "form_templates"
	tableFormAssignments  = "form_assignments"
)

// nameSearch adds a case-insensitive substring match on name when search is set.
func nameSearch(where string, args []any, column, search string) (string, []any) {
	if search == "" {
		return where, args
	}
	return where + ` AND lower(` + column + `) LIKE ? ESCAPE '\'`, append(args, likePattern(search))
}

// Coaches.

const coachColumns = `c.id, c.name, c.phone, c.email, c.active, c.last_active_at, c.created_at, c.gender`

func scanCoach(row scanner, c *domain.Coach, extra ...any) error {
	var phone, email, gender sql.Null[string]
	var lastActive sql.NullInt64
	var created int64
	if err := row.Scan(append([]any{&c.ID, &c.Name, &phone, &email, &c.Active, &lastActive, &created, &gender}, extra...)...); err != nil {
		return err
	}
	c.Phone, c.Email, c.Gender = valueOrNil(phone), valueOrNil(email), valueOrNil(gender)
	c.LastActiveAt = fromNullMS(lastActive)
	c.CreatedAt = fromMS(created)
	return nil
}

func (s *studioStore) ListCoaches(ctx context.Context, page Page) (List[domain.Coach], error) {
	return listPage(ctx, s, coachColumns, `FROM coaches c`, `c.studio_id = ?`, `c.name, c.id`, []any{s.studioID}, page, scanCoach)
}

func (s *studioStore) GetCoach(ctx context.Context, id string) (domain.Coach, error) {
	return getOne(ctx, s, "coach", id, `SELECT `+coachColumns+` FROM coaches c WHERE c.studio_id = ? AND c.id = ?`, []any{s.studioID, id}, scanCoach)
}

func (s *studioStore) CreateCoach(ctx context.Context, c *domain.Coach) error {
	s.fillNew(&c.ID, ids.Coach, &c.CreatedAt)
	_, err := s.exec(ctx, `INSERT INTO coaches (id, studio_id, name, phone, phone_key, email, active, last_active_at, created_at, gender) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, s.studioID, c.Name, c.Phone, coachPhoneKey(c.Phone), c.Email, c.Active, msPtr(c.LastActiveAt), ms(c.CreatedAt), c.Gender)
	return s.writeErr(err, "coach", c.ID)
}

// coachPhoneKey is the lookup form of a coach's phone (phone.Key), nil
// without one: the WhatsApp assistant finds a sender's coaches by it.
func coachPhoneKey(p *string) any {
	if p == nil || strings.TrimSpace(*p) == "" {
		return nil
	}
	return phone.Key(*p)
}

// writeErr explains the constraint failures of a plain insert.
func (s *studioStore) writeErr(err error, noun, id string) error {
	switch {
	case err == nil:
		return nil
	case isUniqueViolation(err):
		return &ConflictError{Message: fmt.Sprintf("A %s with id %s already exists.", noun, id), ExistingID: id}
	case isForeignKeyViolation(err):
		return missing("studio", s.studioID)
	}
	return err
}

func (s *studioStore) UpdateCoach(ctx context.Context, c *domain.Coach) error {
	res, err := s.exec(ctx, `UPDATE coaches SET name = ?, phone = ?, phone_key = ?, email = ?, active = ?, last_active_at = ?, gender = ? WHERE studio_id = ? AND id = ?`,
		c.Name, c.Phone, coachPhoneKey(c.Phone), c.Email, c.Active, msPtr(c.LastActiveAt), c.Gender, s.studioID, c.ID)
	return affected(res, err, "coach", c.ID)
}

// Tags.

func (s *studioStore) ListTags(ctx context.Context, page Page) (List[domain.Tag], error) {
	return listPage(ctx, s, `g.id, g.name, g.created_at`, `FROM tags g`, `g.studio_id = ?`, `g.name, g.id`, []any{s.studioID}, page, scanTag)
}

func scanTag(row scanner, t *domain.Tag, extra ...any) error {
	var created int64
	err := row.Scan(append([]any{&t.ID, &t.Name, &created}, extra...)...)
	t.CreatedAt = fromMS(created)
	return err
}

func (s *studioStore) CreateTag(ctx context.Context, t *domain.Tag) error {
	s.fillNew(&t.ID, ids.Tag, &t.CreatedAt)
	_, err := s.exec(ctx, `INSERT INTO tags (id, studio_id, name, created_at) VALUES (?, ?, ?, ?)`, t.ID, s.studioID, t.Name, ms(t.CreatedAt))
	if isUniqueViolation(err) {
		var existing string
		if s.queryRow(ctx, `SELECT id FROM tags WHERE studio_id = ? AND name = ?`, s.studioID, t.Name).Scan(&existing) == nil {
			return &ConflictError{Message: fmt.Sprintf("The tag %q already exists with id %s.", t.Name, existing), ExistingID: existing}
		}
	}
	return s.writeErr(err, "tag", t.ID)
}

func (s *studioStore) DeleteTag(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM tags WHERE studio_id = ? AND id = ?`, s.studioID, id)
	return affected(res, err, "tag", id)
}

// Products.

const productColumns = `p.id, p.name, p.price_minor, p.currency, p.duration_days, p.active, p.created_at, p.kind, p.sessions, p.valid_days, p.period, p.auto_renew`

func scanProduct(row scanner, p *domain.Product, extra ...any) error {
	var price sql.Null[int64]
	var duration, sessions, validDays sql.Null[int]
	var period sql.Null[string]
	var created int64
	if err := row.Scan(append([]any{&p.ID, &p.Name, &price, &p.Currency, &duration, &p.Active, &created,
		&p.Kind, &sessions, &validDays, &period, &p.AutoRenew}, extra...)...); err != nil {
		return err
	}
	p.Price, p.DurationDays, p.CreatedAt = priceOf(price, p.Currency), valueOrNil(duration), fromMS(created)
	p.Sessions, p.ValidDays, p.Period = valueOrNil(sessions), valueOrNil(validDays), valueOrNil(period)
	return nil
}

// planKind is the kind stored for p: other when unset.
func planKind(p *domain.Product) string {
	if p.Kind == "" {
		p.Kind = domain.PlanOther
	}
	return p.Kind
}

func (s *studioStore) ListProducts(ctx context.Context, search string, page Page) (List[domain.Product], error) {
	where, args := nameSearch(`p.studio_id = ?`, []any{s.studioID}, "p.name", search)
	return listPage(ctx, s, productColumns, `FROM products p`, where, `p.name, p.id`, args, page, scanProduct)
}

func (s *studioStore) GetProduct(ctx context.Context, id string) (domain.Product, error) {
	return getOne(ctx, s, "plan", id, `SELECT `+productColumns+` FROM products p WHERE p.studio_id = ? AND p.id = ?`, []any{s.studioID, id}, scanProduct)
}

func (s *studioStore) CreateProduct(ctx context.Context, p *domain.Product) error {
	s.fillNew(&p.ID, ids.Product, &p.CreatedAt)
	price, err := minorIn(p.Price, p.Currency)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO products (id, studio_id, name, price_minor, currency, duration_days, active, created_at, kind, sessions, valid_days, period, auto_renew)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.ID, s.studioID, p.Name, price, p.Currency, p.DurationDays, p.Active, ms(p.CreatedAt), planKind(p), p.Sessions, p.ValidDays, p.Period, p.AutoRenew)
	return s.writeErr(err, "plan", p.ID)
}

func (s *studioStore) UpdateProduct(ctx context.Context, p *domain.Product) error {
	price, err := minorIn(p.Price, p.Currency)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE products SET name = ?, price_minor = ?, currency = ?, duration_days = ?, active = ?,
		kind = ?, sessions = ?, valid_days = ?, period = ?, auto_renew = ? WHERE studio_id = ? AND id = ?`,
		p.Name, price, p.Currency, p.DurationDays, p.Active, planKind(p), p.Sessions, p.ValidDays, p.Period, p.AutoRenew, s.studioID, p.ID)
	return affected(res, err, "plan", p.ID)
}

// A price is stored as minor units beside its record's currency column.

func priceOf(minor sql.Null[int64], currency string) *money.Money {
	if !minor.Valid {
		return nil
	}
	return &money.Money{Minor: minor.V, Currency: currency}
}

// minorIn is what stores m in a record of currency: its minor units, nil
// for none; a price in another currency than its record's is refused.
func minorIn(m *money.Money, currency string) (*int64, error) {
	if m == nil {
		return nil, nil
	}
	if m.Currency != currency {
		return nil, fmt.Errorf("store: a price in %q on a record in %q", m.Currency, currency)
	}
	return &m.Minor, nil
}

// Subscriptions.

const subscriptionColumns = `b.id, b.trainee_id, b.product_id, p.name, b.started_on, b.ends_on, b.price_minor, b.currency, b.state, b.created_at`
const subscriptionFrom = ` FROM subscriptions b JOIN products p ON p.studio_id = b.studio_id AND p.id = b.product_id`

func scanSubscription(row scanner, b *domain.Subscription, extra ...any) error {
	var ends sql.Null[string]
	var price sql.Null[int64]
	var created int64
	if err := row.Scan(append([]any{&b.ID, &b.TraineeID, &b.ProductID, &b.ProductName, &b.StartedOn, &ends, &price, &b.Currency, &b.Status, &created}, extra...)...); err != nil {
		return err
	}
	b.EndsOn, b.Price, b.CreatedAt = valueOrNil(ends), priceOf(price, b.Currency), fromMS(created)
	return nil
}

func (s *studioStore) ListSubscriptions(ctx context.Context, traineeID string) ([]domain.Subscription, error) {
	if err := s.mustExist(ctx, s.conn(), tableTrainees, "trainee", traineeID); err != nil {
		return nil, err
	}
	return listAll(ctx, s, `SELECT `+subscriptionColumns+subscriptionFrom+`
		WHERE b.studio_id = ? AND b.trainee_id = ? ORDER BY b.started_on, b.created_at, b.id`, []any{s.studioID, traineeID}, scanSubscription)
}

func (s *studioStore) GetSubscription(ctx context.Context, id string) (domain.Subscription, error) {
	return getOne(ctx, s, "subscription", id, `SELECT `+subscriptionColumns+subscriptionFrom+` WHERE b.studio_id = ? AND b.id = ?`, []any{s.studioID, id}, scanSubscription)
}

// CreateSubscription stores s with Status "active" unless set; an empty
// Currency takes the plan's. ProductName is filled from the plan. A
// membership without an end runs to its first period's end, a package
// without one to its validity's last day; a package or
// membership with a price is charged for its start (Billing).
func (s *studioStore) CreateSubscription(ctx context.Context, b *domain.Subscription) error {
	s.fillNew(&b.ID, ids.Subscription, &b.CreatedAt)
	if b.Status == "" {
		b.Status = "active"
	}
	return s.atomic(ctx, func(q querier) error {
		if err := s.mustExist(ctx, q, tableTrainees, "trainee", b.TraineeID); err != nil {
			return err
		}
		var productName, currency, kind string
		var period sql.Null[string]
		var validDays sql.Null[int]
		err := q.QueryRowContext(ctx, s.q(`SELECT name, currency, kind, period, valid_days FROM products WHERE studio_id = ? AND id = ?`), s.studioID, b.ProductID).
			Scan(&productName, &currency, &kind, &period, &validDays)
		if err != nil {
			return notFoundAs(notFound(err), "plan", b.ProductID)
		}
		b.ProductName = productName
		if b.Currency == "" {
			b.Currency = currency
		}
		price, err := minorIn(b.Price, b.Currency)
		if err != nil {
			return err
		}
		if kind == domain.PlanMembership && b.EndsOn == nil && period.Valid {
			end := domain.PeriodEnd(b.StartedOn, period.V) // a membership runs period by period
			b.EndsOn = &end
		}
		if kind == domain.PlanPackage && b.EndsOn == nil && validDays.Valid {
			end := addDays(b.StartedOn, validDays.V-1) // a package ends with its validity
			b.EndsOn = &end
		}
		_, err = q.ExecContext(ctx, s.q(`INSERT INTO subscriptions (id, studio_id, trainee_id, product_id, started_on, ends_on, price_minor, currency, state, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			b.ID, s.studioID, b.TraineeID, b.ProductID, b.StartedOn, b.EndsOn, price, b.Currency, b.Status, ms(b.CreatedAt))
		if err != nil || (kind != domain.PlanPackage && kind != domain.PlanMembership) {
			return s.writeErr(err, "subscription", b.ID)
		}
		// A package or membership is charged for its start.
		st, err := s.studioOn(ctx, q)
		if err != nil {
			return err
		}
		_, err = s.chargeFor(ctx, q, b.TraineeID, b.ID, b.StartedOn, b.EndsOn, price, b.Currency, st.PaymentTermsDays())
		return err
	})
}

func (s *studioStore) SetSubscriptionState(ctx context.Context, id, state string) error {
	res, err := s.exec(ctx, `UPDATE subscriptions SET state = ? WHERE studio_id = ? AND id = ?`, state, s.studioID, id)
	return affected(res, err, "subscription", id)
}

// Program templates (given to a trainee they are programs: programs.go).

const programTemplateColumns = `m.id, m.name, m.description, m.weeks, m.structure, m.created_at`

func scanProgramTemplate(row scanner, m *domain.ProgramTemplate, extra ...any) error {
	var desc, structure sql.Null[string]
	var weeks sql.Null[int]
	var created int64
	if err := row.Scan(append([]any{&m.ID, &m.Name, &desc, &weeks, &structure, &created}, extra...)...); err != nil {
		return err
	}
	m.Description, m.Weeks, m.CreatedAt = valueOrNil(desc), valueOrNil(weeks), fromMS(created)
	m.Structure = nil
	if structure.Valid {
		m.Structure = &domain.ProgramStructure{}
		return json.Unmarshal([]byte(structure.V), m.Structure)
	}
	return nil
}

// structureJSON is a template's structure column: NULL without one.
func structureJSON(st *domain.ProgramStructure) (any, error) {
	if st == nil {
		return nil, nil
	}
	b, err := json.Marshal(st)
	return string(b), err
}

func (s *studioStore) ListProgramTemplates(ctx context.Context, search string, page Page) (List[domain.ProgramTemplate], error) {
	where, args := nameSearch(`m.studio_id = ?`, []any{s.studioID}, "m.name", search)
	return listPage(ctx, s, programTemplateColumns, `FROM program_templates m`, where, `m.name, m.id`, args, page, scanProgramTemplate)
}

func (s *studioStore) GetProgramTemplate(ctx context.Context, id string) (domain.ProgramTemplate, error) {
	return getOne(ctx, s, "program template", id, `SELECT `+programTemplateColumns+` FROM program_templates m WHERE m.studio_id = ? AND m.id = ?`, []any{s.studioID, id}, scanProgramTemplate)
}

func (s *studioStore) CreateProgramTemplate(ctx context.Context, m *domain.ProgramTemplate) error {
	s.fillNew(&m.ID, ids.ProgramTemplate, &m.CreatedAt)
	structure, err := structureJSON(m.Structure)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, `INSERT INTO program_templates (id, studio_id, name, description, weeks, structure, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.ID, s.studioID, m.Name, m.Description, m.Weeks, structure, ms(m.CreatedAt))
	return s.writeErr(err, "program template", m.ID)
}

func (s *studioStore) UpdateProgramTemplate(ctx context.Context, m *domain.ProgramTemplate) error {
	structure, err := structureJSON(m.Structure)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE program_templates SET name = ?, description = ?, weeks = ?, structure = ? WHERE studio_id = ? AND id = ?`,
		m.Name, m.Description, m.Weeks, structure, s.studioID, m.ID)
	return affected(res, err, "program template", m.ID)
}

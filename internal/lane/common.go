package lane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// defaultLimit is the page size when limit is not given.
const defaultLimit = 50

// pageQuery is the paging every list takes.
type PageQuery struct {
	Limit  int `json:"limit,omitempty" jsonschema:"How many items to return, 1 to 200; 50 when omitted." lane:"min=1,max=200"`
	Offset int `json:"offset,omitempty" jsonschema:"How many items to skip; 0 when omitted. Pass the previous answer's nextOffset." lane:"min=0"`
}

func (p PageQuery) Page() store.Page {
	limit := p.Limit
	if limit == 0 {
		limit = defaultLimit
	}
	return store.Page{Limit: limit, Offset: p.Offset}
}

// Amount is the amount the body sent in field, read exactly from its JSON
// text as minor units of currency; nil when absent or null. More decimals
// than the currency has (349.999 ILS) is a 422 whose sentence names the
// field. The field's schema (a number with bounds) is checked before.
func (c *Call) Amount(field, currency string) (*money.Money, error) {
	m, err := money.ParseJSON(c.present[field], currency)
	if err != nil {
		return nil, InvalidField(field, field+" "+err.Error()+".")
	}
	return m, nil
}

// Currency is the ISO 4217 code a request sent in field, upper-cased; not
// three letters is a 422 whose sentence names the field.
func Currency(field, v string) (string, error) {
	code, ok := money.Code(v)
	if !ok {
		return "", InvalidField(field, fmt.Sprintf("%s must be an ISO 4217 currency code of three letters, such as ILS, USD or EUR; got %q.", field, v))
	}
	return code, nil
}

// searchQuery is a name search plus paging (products, templates, forms).
type SearchQuery struct {
	Search string `json:"search,omitempty" jsonschema:"Part of the name to look for, case-insensitive." lane:"maxLength=200"`
	PageQuery
}

// listOf is a list answer: one page, the total and where the next page starts.
type ListOf[T any] struct {
	Items      []T  `json:"items"`
	Total      int  `json:"total"`
	NextOffset *int `json:"nextOffset" jsonschema:"The offset of the next page; null on the last page."`
}

func PageOf[T any](l store.List[T], p store.Page) ListOf[T] {
	out := ListOf[T]{Items: l.Items, Total: l.Total}
	if out.Items == nil {
		out.Items = []T{}
	}
	if next := p.Offset + len(l.Items); len(l.Items) > 0 && next < l.Total {
		out.NextOffset = &next
	}
	return out
}

// pageSlice pages a list the store returns whole.
func PageSlice[T any](all []T, p store.Page) ListOf[T] {
	start := min(p.Offset, len(all))
	end := min(start+p.Limit, len(all))
	return PageOf(store.List[T]{Items: all[start:end], Total: len(all)}, p)
}

// lookup fetches one row of kind by id, answering the lane's not-found
// sentence for an id that is not in this studio. An id with another kind's
// prefix, or that is not an id at all, is refused without a query.
func Lookup[T any](ctx context.Context, kind ids.Kind, id string, get func(context.Context, string) (T, error)) (T, error) {
	var zero T
	if !ids.Valid(id, kind) {
		return zero, NotFound(kind, id)
	}
	v, err := get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return zero, NotFound(kind, id)
	}
	return v, err
}

// notify writes one outbox row with the request's source.
func (c *Call) Notify(ss store.StudioStore, traineeID, kind string, payload map[string]any) error {
	n := &domain.Notification{
		ID:        ids.New(ids.Notification),
		TraineeID: traineeID,
		Kind:      kind,
		Source:    c.P.Source,
		CreatedAt: c.Now().UTC(),
	}
	if payload != nil {
		b, err := json.Marshal(payload)
		if err != nil {
			return err
		}
		n.Payload = b
	}
	return ss.AddNotification(c.Ctx, n)
}

// inTx runs fn on this studio's store inside one transaction.
func (c *Call) InTx(fn func(ss store.StudioStore) error) error {
	return c.DB().InTx(c.Ctx, func(tx store.Store) error { return fn(tx.Studio(c.P.StudioID)) })
}

func IsTrue(b *bool) bool { return b != nil && *b }

// cleanStrings trims, drops empties and duplicates, keeping order.
func CleanStrings(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// addDays adds n days to an ISO date.
func AddDays(date string, n int) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}

// MaxRangeDays is the longest from..to a read takes at once.
const MaxRangeDays = 366

// DayRange is a from..to of local days in the studio's zone.
type DayRange struct {
	From *string `json:"from,omitempty" jsonschema:"First day, YYYY-MM-DD in the studio's time zone, inclusive; 365 days before to when omitted." lane:"format=date"`
	To   *string `json:"to,omitempty" jsonschema:"Last day, YYYY-MM-DD in the studio's time zone, inclusive; today when omitted. At most 366 days from from." lane:"format=date"`
}

// Days resolves the range: both ends local days, from ≤ to, at most
// MaxRangeDays long.
func (c *Call) Days(q DayRange) (from, to string, err *Error) {
	switch {
	case q.From == nil && q.To == nil:
		to = c.LocalToday()
		from = AddDays(to, -(MaxRangeDays - 1))
	case q.From == nil:
		to = *q.To
		from = AddDays(to, -(MaxRangeDays - 1))
	case q.To == nil:
		// Up to today, as the field says; a range that starts after
		// today, or over a year before it, runs a year from from.
		from = *q.From
		to = c.LocalToday()
		if to < from || to > AddDays(from, MaxRangeDays-1) {
			to = AddDays(from, MaxRangeDays-1)
		}
	default:
		from, to = *q.From, *q.To
	}
	f, _ := time.Parse(time.DateOnly, from)
	t, _ := time.Parse(time.DateOnly, to)
	if t.Before(f) {
		return "", "", InvalidField("from", fmt.Sprintf("from must be on or before to; got from %s and to %s.", from, to))
	}
	if n := int(t.Sub(f).Hours()/24) + 1; n > MaxRangeDays {
		return "", "", InvalidField("to", fmt.Sprintf("from..to spans %d days and at most %d are read at once; narrow the range (from %s and to %s).", n, MaxRangeDays, from, to))
	}
	return from, to, nil
}

// Deleted is the answer of a delete.
type Deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// NonNil is s, or an empty slice for nil: a list answers [] rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Trimmed is s trimmed, nil when empty.
func Trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}

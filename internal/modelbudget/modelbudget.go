// Package modelbudget is the one budget of every call that costs a model's
// tokens: the WhatsApp assistant's turns and the weekly plans' refinements
// alike. It counts tokens per person per day (the studio's local day) and
// per studio per hour in the database (store.BudgetStore), so every
// process of a deployment shares the counts. The operator sets the
// ceilings (PERFORM_MODEL_TOKENS_PER_PERSON_DAY,
// PERFORM_MODEL_TOKENS_PER_STUDIO_HOUR); a studio may set its own only
// below them (PATCH /studio/settings).
//
// A call is admitted while both counts are under their limits (Check) and
// charged what it was billed once made (Charge): a call under way is never
// cut, so a count may end a call's worth over its limit.
package modelbudget

import (
	"context"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// Default ceilings: a person's day is a few dozen assistant turns or
// weekly plans; a studio's hour is a busy hour of its whole roster.
const (
	DefaultPersonDayTokens  = 400_000
	DefaultStudioHourTokens = 2_000_000
)

// Ceilings are the operator's limits; 0 takes the default.
type Ceilings struct {
	PersonDayTokens  int64
	StudioHourTokens int64
}

// Or is c with each unset ceiling the default.
func (c Ceilings) Or() Ceilings {
	if c.PersonDayTokens <= 0 {
		c.PersonDayTokens = DefaultPersonDayTokens
	}
	if c.StudioHourTokens <= 0 {
		c.StudioHourTokens = DefaultStudioHourTokens
	}
	return c
}

// Limits are a studio's limits: its own settings where they are below the
// ceilings, the ceilings otherwise.
func (c Ceilings) Limits(studio domain.Studio) Ceilings {
	c = c.Or()
	day, hour := studio.ModelBudget()
	if day > 0 && day < c.PersonDayTokens {
		c.PersonDayTokens = day
	}
	if hour > 0 && hour < c.StudioHourTokens {
		c.StudioHourTokens = hour
	}
	return c
}

// Budget checks and charges the counters.
type Budget struct {
	st  store.Store
	max Ceilings
	now func() time.Time
}

// New is the budget over st's counters with the operator's ceilings; now
// nil is time.Now.
func New(st store.Store, max Ceilings, now func() time.Time) *Budget {
	if now == nil {
		now = time.Now
	}
	return &Budget{st: st, max: max.Or(), now: now}
}

// Ceilings are the operator's limits.
func (b *Budget) Ceilings() Ceilings { return b.max }

// Spent is the refusal of a call over the budget: Sentence says which
// limit, in the studio's language, and when it opens again.
type Spent struct {
	Sentence string
	Until    time.Time
}

func (e *Spent) Error() string { return e.Sentence }

// windows are the day (the studio's local day) and the hour at now.
func windows(now time.Time, loc *time.Location) (day, hour time.Time) {
	l := now.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc), now.Truncate(time.Hour)
}

// Check admits a call for person (a trainee's or a coach's id; "" counts
// the studio alone) of the studio, or answers *Spent.
func (b *Budget) Check(ctx context.Context, studioID, person string) error {
	studio, err := b.st.StudioByID(ctx, studioID)
	if err != nil {
		return err
	}
	lim := b.max.Limits(studio)
	day, hour := windows(b.now(), studio.TimeZone())
	pd, sh, err := b.st.Budget().ModelSpent(ctx, studioID, person, day, hour)
	if err != nil {
		return err
	}
	he := studio.Language() == "he"
	switch {
	case person != "" && pd >= lim.PersonDayTokens:
		until := day.AddDate(0, 0, 1)
		if he {
			return &Spent{Until: until, Sentence: fmt.Sprintf("תקציב המודל של האדם הזה להיום נוצל (%d טוקנים): עד מחר Perform עונה בלי המודל, ותוכנית שבועית נשארת השבוע של הכללים.", lim.PersonDayTokens)}
		}
		return &Spent{Until: until, Sentence: fmt.Sprintf("This person's model budget for today is spent (%d tokens): until tomorrow Perform answers without the model, and a weekly plan stays the rules' own week.", lim.PersonDayTokens)}
	case sh >= lim.StudioHourTokens:
		until := hour.Add(time.Hour)
		at := until.In(studio.TimeZone()).Format("15:04")
		if he {
			return &Spent{Until: until, Sentence: fmt.Sprintf("תקציב המודל של הסטודיו לשעה הזו נוצל (%d טוקנים): אפשר שוב מ-%s; עד אז תוכנית שבועית נשארת השבוע של הכללים.", lim.StudioHourTokens, at)}
		}
		return &Spent{Until: until, Sentence: fmt.Sprintf("The studio's model budget for this hour is spent (%d tokens): it opens again at %s; until then a weekly plan stays the rules' own week.", lim.StudioHourTokens, at)}
	}
	return nil
}

// Charge adds a call's tokens (input of every kind and output) to the
// person's day and the studio's hour.
func (b *Budget) Charge(ctx context.Context, studioID, person string, tokens int64) error {
	if tokens <= 0 {
		return nil
	}
	studio, err := b.st.StudioByID(ctx, studioID)
	if err != nil {
		return err
	}
	day, hour := windows(b.now(), studio.TimeZone())
	return b.st.Budget().ChargeModel(ctx, studioID, person, day, hour, tokens)
}

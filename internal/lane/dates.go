package lane

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// A date or instant field of a request carries a when tag naming its
// plausible range relative to the lane's clock, declared once here: the
// check, its 422 sentence and the sentence the schema's description ends
// with (so the OpenAPI document and the tools say it) all read this table.
//
// Dates (YYYY-MM-DD) are a studio's local days, so "today" admits a day
// either side of the UTC day; instants admit a clock skew of 5 minutes.
type dateRule struct {
	// says is the range in words, for the description and the sentence.
	says string
	// bounds are the inclusive bounds at now (UTC).
	bounds func(now time.Time) (lo, hi time.Time)
}

// clockSkew is how far in the future a "not later than now" instant may be.
const ClockSkew = 5 * time.Minute

func utcDay(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

var dateRules = map[string]dateRule{
	// birthDate: after 1900 and not in the future.
	"birth": {"from 1900-01-01 to today", func(now time.Time) (time.Time, time.Time) {
		return time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), utcDay(now).AddDate(0, 0, 1)
	}},
	// recordedAt, submittedAt: something that happened, in the last 10 years.
	"happened": {"in the last 10 years, not in the future", func(now time.Time) (time.Time, time.Time) {
		return now.AddDate(-10, 0, 0), now.Add(ClockSkew)
	}},
	// dueAt, snoozeUntil: something still ahead, earlier today included.
	"ahead": {"from today to 5 years ahead", func(now time.Time) (time.Time, time.Time) {
		return now.Add(-24 * time.Hour), now.AddDate(5, 0, 0)
	}},
	// onsetOn, resolvedOn: a day that has come, in the last 10 years.
	"past": {"in the last 10 years, not after today", func(now time.Time) (time.Time, time.Time) {
		day := utcDay(now)
		return day.AddDate(-10, 0, -1), day.AddDate(0, 0, 1)
	}},
	// startedOn, startsOn: a start up to 10 years back or a year ahead.
	"start": {"from 10 years ago to 1 year ahead", func(now time.Time) (time.Time, time.Time) {
		day := utcDay(now)
		return day.AddDate(-10, 0, -1), day.AddDate(1, 0, 1)
	}},
}

type dateField struct {
	index []int
	name  string
	rule  dateRule
	date  bool // YYYY-MM-DD (a *string); else a *time.Time
}

// dateFieldsOf lists the when-tagged fields of the struct type t; a tag
// naming no rule, or on a field that is neither *string nor *time.Time,
// panics at start.
func dateFieldsOf(t reflect.Type) []dateField {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []dateField
	for _, f := range reflect.VisibleFields(t) {
		name, ok := f.Tag.Lookup("when")
		if !ok {
			continue
		}
		rule, known := dateRules[name]
		isDate := f.Type == reflect.TypeFor[*string]()
		if !known || (!isDate && f.Type != reflect.TypeFor[*time.Time]()) {
			panic(fmt.Sprintf("lane: field %s of %v: when %q needs a *string date or *time.Time field and a known rule", f.Name, t, name))
		}
		wire, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, dateField{index: f.Index, name: wire, rule: rule, date: isDate})
	}
	return out
}

// checkDates answers one 422 naming every date field of in (a pointer to
// the request struct) outside its range.
func (c *Call) checkDates(fields []dateField, in any) *Error {
	if len(fields) == 0 {
		return nil
	}
	now := c.Now().UTC()
	v := reflect.ValueOf(in).Elem()
	var errs []FieldError
	for _, f := range fields {
		fv := v.FieldByIndex(f.index)
		if fv.IsNil() {
			continue
		}
		lo, hi := f.rule.bounds(now)
		var got time.Time
		var shown, from, to string
		if f.date {
			s := fv.Elem().String()
			t, err := time.Parse(time.DateOnly, s)
			if err != nil {
				continue // the schema's format check answers it
			}
			got, shown = t, s
			from, to = lo.Format(time.DateOnly), hi.Format(time.DateOnly)
		} else {
			got = fv.Interface().(*time.Time).UTC()
			shown = got.Format(time.RFC3339)
			from, to = lo.Format("2006-01-02T15:04Z"), hi.Format("2006-01-02T15:04Z")
		}
		if got.Before(lo) || got.After(hi) {
			errs = append(errs, FieldError{f.name, fmt.Sprintf("%s must be %s (%s to %s); got %s.", f.name, f.rule.says, from, to, shown)})
		}
	}
	if len(errs) > 0 {
		return ValidationError(errs)
	}
	return nil
}

// describeWhen ends a when-tagged field's description with its range.
func describeWhen(desc, rule string) string {
	r, ok := dateRules[rule]
	if !ok {
		return desc
	}
	return strings.TrimSpace(desc + " Must be " + r.says + ".")
}

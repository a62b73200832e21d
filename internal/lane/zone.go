package lane

import (
	"time"

	"github.com/otherwise/perform/internal/domain"
)

// zone is the studio's time zone: a session's date, a check-in's day and a
// debrief's week are days in it.
func (c *Call) Zone() *time.Location {
	if c.P.TimeZone != nil {
		return c.P.TimeZone
	}
	loc, _ := domain.LoadZone(domain.DefaultTimeZone)
	return loc
}

// localToday is today in the studio's zone, YYYY-MM-DD.
func (c *Call) LocalToday() string { return LocalDay(c.Now(), c.Zone()) }

// localDay is the day t falls on in loc, YYYY-MM-DD.
func LocalDay(t time.Time, loc *time.Location) string { return t.In(loc).Format(time.DateOnly) }

// FirstDay is the first day of the studio's week: every "this week" and
// "next week" the lane answers starts on it (training.StartOfWeek).
func (c *Call) FirstDay() time.Weekday { return c.P.FirstDay }

package domain

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // a studio's zone resolves on a machine without the zone files
)

// TimeZone is the studio's time zone (settings.timeZone), Asia/Jerusalem
// when unset or not a zone this machine knows.
func (s Studio) TimeZone() *time.Location { return s.calendar().zone }

// FirstDay is the first day of the studio's week (settings.weekStartsOn),
// by default the custom of its time zone's country (DefaultFirstDay):
// Sunday for Asia/Jerusalem.
func (s Studio) FirstDay() time.Weekday { return s.calendar().firstDay }

// calendar is the studio's zone and first day of the week. The answer is
// kept by the settings' value: a principal is built with it on every
// request whose credential is not kept in memory (an OAuth grant), and
// decoding a studio's whole settings for two fields each time is waste.
func (s Studio) calendar() calendar {
	if len(s.Settings) == 0 {
		return defaultCalendar
	}
	if v, ok := calendarOfSettings.Load(string(s.Settings)); ok {
		return v.(calendar)
	}
	c := defaultCalendar
	var set struct {
		TimeZone     string `json:"timeZone"`
		WeekStartsOn string `json:"weekStartsOn"`
	}
	if json.Unmarshal(s.Settings, &set) == nil {
		if z, err := LoadZone(set.TimeZone); set.TimeZone != "" && err == nil {
			c = calendar{zone: z, firstDay: DefaultFirstDay(z.String())}
		}
		if d, ok := ParseWeekday(set.WeekStartsOn); ok {
			c.firstDay = d
		}
	}
	if calendarsOfSettings.Add(1) <= maxCalendarsOfSettings { // studios' settings are few; past that, decode each time
		calendarOfSettings.Store(string(s.Settings), c)
	}
	return c
}

type calendar struct {
	zone     *time.Location
	firstDay time.Weekday
}

// calendarOfSettings is calendar's answer by the settings' JSON; at most
// maxCalendarsOfSettings entries are ever stored.
var (
	calendarOfSettings  sync.Map // settings → calendar
	calendarsOfSettings atomic.Int64
)

const maxCalendarsOfSettings = 4096

// zones caches loaded zones: time.LoadLocation reads the zone database
// every time, and a studio's zone is read on every request.
var zones sync.Map // name → *time.Location

// LoadZone is time.LoadLocation, cached. "" and "Local" are refused: a
// studio's zone is a named zone, never the server's.
func LoadZone(name string) (*time.Location, error) {
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), nil
	}
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%q is not a named time zone", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

// DefaultTimeZone is a studio's zone until it sets its own.
const DefaultTimeZone = "Asia/Jerusalem"

var (
	defaultZone     = mustZone(DefaultTimeZone)
	defaultCalendar = calendar{zone: defaultZone, firstDay: DefaultFirstDay(DefaultTimeZone)}
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic("domain: time zone " + name + ": " + err.Error())
	}
	return loc
}

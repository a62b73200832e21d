package domain

import (
	"strings"
	"time"
)

// Weekdays are the names a studio's first day of the week is set by
// (settings.weekStartsOn), Sunday first as time.Weekday counts.
var Weekdays = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// ParseWeekday reads a weekday's English name, any case ("Sunday", "sun").
func ParseWeekday(name string) (time.Weekday, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if len(name) < 3 {
		return 0, false
	}
	for i, d := range Weekdays {
		if d == name || d[:3] == name {
			return time.Weekday(i), true
		}
	}
	return 0, false
}

// WeekdayName is d's name as settings and answers carry it ("sunday").
func WeekdayName(d time.Weekday) string { return Weekdays[d%7] }

// DefaultFirstDay is the first day of the week in the country of the time
// zone zone, after the Unicode CLDR's first-day data (supplemental
// weekData): Sunday in Israel, the Americas' larger countries, Japan and
// others; Saturday in much of the Arab world, Iran and Afghanistan; Monday
// everywhere else, as ISO 8601 has it.
func DefaultFirstDay(zone string) time.Weekday {
	if d, ok := firstDayOfZone[zone]; ok {
		return d
	}
	return time.Monday
}

var firstDayOfZone = func() map[string]time.Weekday {
	m := map[string]time.Weekday{}
	for _, z := range strings.Fields(`
		Asia/Jerusalem Asia/Tel_Aviv Israel
		America/New_York America/Chicago America/Denver America/Los_Angeles America/Phoenix America/Anchorage
		America/Detroit America/Boise America/Indiana/Indianapolis America/Juneau Pacific/Honolulu US/Eastern
		US/Central US/Mountain US/Pacific America/Toronto America/Vancouver America/Edmonton America/Winnipeg
		America/Halifax America/St_Johns America/Regina America/Mexico_City America/Monterrey America/Tijuana
		America/Cancun America/Sao_Paulo America/Bahia America/Fortaleza America/Manaus America/Recife
		America/Bogota America/Lima America/Caracas America/Panama America/Guatemala America/Tegucigalpa
		America/El_Salvador America/Managua America/Santo_Domingo America/Puerto_Rico America/Jamaica
		America/Asuncion America/Belize America/Nassau America/Port_of_Spain
		Asia/Tokyo Asia/Seoul Asia/Shanghai Asia/Hong_Kong Asia/Taipei Asia/Macau Asia/Manila Asia/Bangkok
		Asia/Jakarta Asia/Kolkata Asia/Calcutta Asia/Karachi Asia/Dhaka Asia/Kathmandu Asia/Riyadh
		Asia/Singapore Asia/Phnom_Penh Asia/Vientiane Asia/Yangon Asia/Thimphu Asia/Aden
		Africa/Johannesburg Africa/Nairobi Africa/Addis_Ababa Africa/Harare Africa/Maputo Africa/Gaborone
		Europe/Lisbon Europe/Malta Pacific/Guam Pacific/Apia`) {
		m[z] = time.Sunday
	}
	for _, z := range strings.Fields(`
		Asia/Dubai Asia/Kabul Asia/Tehran Asia/Bahrain Asia/Baghdad Asia/Amman Asia/Kuwait Asia/Muscat
		Asia/Qatar Asia/Damascus Africa/Cairo Africa/Algiers Africa/Tripoli Africa/Khartoum Africa/Djibouti`) {
		m[z] = time.Saturday
	}
	return m
}()

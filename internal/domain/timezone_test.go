package domain

import (
	"encoding/json"
	"testing"
)

// A studio's zone follows its settings' value: kept by value, a change of
// the settings is a new value and answers the new zone at once.
func TestStudioTimeZoneFollowsSettings(t *testing.T) {
	for settings, want := range map[string]string{
		``:                               DefaultTimeZone,
		`{"timeZone":"Europe/London"}`:   "Europe/London",
		`{"timeZone":"America/Chicago"}`: "America/Chicago",
		`{"timeZone":"Mars/Olympus"}`:    DefaultTimeZone,
		`{"timeZone":"Local"}`:           DefaultTimeZone,
		`not json`:                       DefaultTimeZone,
	} {
		s := Studio{Settings: json.RawMessage(settings)}
		for range 2 { // read, then answered from what was kept
			if got := s.TimeZone().String(); got != want {
				t.Errorf("settings %q: zone %q, want %q", settings, got, want)
			}
		}
	}
}

package lane_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// A phone is stored only in a form that normalises to itself: a trainee is
// found by the phone stored on it, a second trainee with it is a conflict,
// and a number of only zeros (which the library wrote one way and read
// another) is refused with a sentence naming phone.
func TestStoredPhoneFindsItsTrainee(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		_, k, _ := e.studio("phones", "pro")
		for _, bad := range []string{"000000000", "+97200000000", "+9720000000"} {
			a := e.fails(422, "VALIDATION", e.call(k, "POST", "/trainees", map[string]any{"firstName": "Zero", "lastName": "Z", "phone": bad}))
			if !slices.Equal(a.fields(), []string{"phone"}) {
				t.Errorf("phone %q: %s", bad, a.Raw)
			}
		}
		var tr domain.Trainee
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "P", "phone": "054 123 4567"})).into(t, &tr)
		var found domain.Trainee
		e.ok(200, e.call(k, "GET", "/trainees/by-phone/"+url.PathEscape(tr.Phone), nil)).into(t, &found)
		if found.ID != tr.ID {
			t.Errorf("by its stored phone %s: %s, want %s", tr.Phone, found.ID, tr.ID)
		}
		e.fails(409, "CONFLICT", e.call(k, "POST", "/trainees", map[string]any{"firstName": "Copy", "lastName": "P", "phone": tr.Phone}))
	})
}

package roster_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A phone is stored only in a form that normalises to itself: a trainee is
// found by the phone stored on it, a second trainee with it is a conflict,
// and a number of only zeros (which the library wrote one way and read
// another) is refused with a sentence naming phone.
func TestStoredPhoneFindsItsTrainee(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		_, k, _ := e.Studio("phones", "pro")
		for _, bad := range []string{"000000000", "+97200000000", "+9720000000"} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Zero", "lastName": "Z", "phone": bad}))
			if !slices.Equal(a.Fields(), []string{"phone"}) {
				t.Errorf("phone %q: %s", bad, a.Raw)
			}
		}
		var tr domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "P", "phone": "054 123 4567"})).Into(t, &tr)
		var found domain.Trainee
		e.OK(200, e.Call(k, "GET", "/trainees/by-phone/"+url.PathEscape(tr.Phone), nil)).Into(t, &found)
		if found.ID != tr.ID {
			t.Errorf("by its stored phone %s: %s, want %s", tr.Phone, found.ID, tr.ID)
		}
		e.Fails(409, "CONFLICT", e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Copy", "lastName": "P", "phone": tr.Phone}))
	})
}

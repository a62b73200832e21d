package health_test

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// The profile's weightKg is the latest weigh-in, however it was set; a
// created trainee's startedOn is the day it defaults to.
func TestProfileAgreesWithItsRecords(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("cns")
		k := f.Key
		tp := "/trainees/" + f.Trainee.ID
		profileWeight := func() float64 {
			t.Helper()
			var tr domain.Trainee
			e.OK(200, e.Call(k, "GET", tp, nil)).Into(t, &tr)
			if tr.WeightKg == nil {
				t.Fatal("profile has no weight")
			}
			return *tr.WeightKg
		}
		latest := func() float64 {
			t.Helper()
			var ws kit.List[domain.Weight]
			e.OK(200, e.Call(k, "GET", tp+"/weights?limit=1", nil)).Into(t, &ws)
			return ws.Items[0].WeightKg
		}
		// The seed logged 71.5 now: the profile shows it.
		if got := profileWeight(); got != 71.5 {
			t.Errorf("after log_weight 71.5 the profile shows %v", got)
		}
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 81.4}))
		if got := profileWeight(); got != 81.4 {
			t.Errorf("after log_weight 81.4 the profile shows %v", got)
		}
		// An older weigh-in is history; the profile keeps the latest.
		e.OK(201, e.Call(k, "POST", tp+"/weights", map[string]any{"weightKg": 90, "recordedAt": time.Now().UTC().AddDate(0, -1, 0).Format(time.RFC3339)}))
		if got := profileWeight(); got != 81.4 {
			t.Errorf("after an older weigh-in the profile shows %v, want 81.4", got)
		}
		// Setting weightKg on the profile records a weigh-in.
		e.OK(200, e.Call(k, "PATCH", tp, map[string]any{"weightKg": 79.9}))
		if p, l := profileWeight(), latest(); p != 79.9 || l != 79.9 {
			t.Errorf("after update weightKg 79.9: profile %v, latest weigh-in %v", p, l)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "PATCH", tp, map[string]any{"weightKg": nil}))
		e.Fails(422, "VALIDATION", e.Call(k, "PATCH", tp, map[string]any{"startedOn": nil}))

		var created domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Tal", "lastName": "Bar", "phone": "054-888-0001", "weightKg": 66.2})).Into(t, &created)
		if created.StartedOn == nil || *created.StartedOn != kit.Today() {
			t.Errorf("created without startedOn: startedOn %v, want %s", created.StartedOn, kit.Today())
		}
		var ws kit.List[domain.Weight]
		e.OK(200, e.Call(k, "GET", "/trainees/"+created.ID+"/weights", nil)).Into(t, &ws)
		if ws.Total != 1 || ws.Items[0].WeightKg != 66.2 {
			t.Errorf("created with weightKg 66.2: weigh-ins %+v", ws.Items)
		}
	})
}

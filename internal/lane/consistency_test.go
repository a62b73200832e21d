package lane_test

import (
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// The profile's weightKg is the latest weigh-in, however it was set; a
// created trainee's startedOn is the day it defaults to.
func TestProfileAgreesWithItsRecords(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("cns")
		k := f.key
		tp := "/trainees/" + f.trainee.ID
		profileWeight := func() float64 {
			t.Helper()
			var tr domain.Trainee
			e.ok(200, e.call(k, "GET", tp, nil)).into(t, &tr)
			if tr.WeightKg == nil {
				t.Fatal("profile has no weight")
			}
			return *tr.WeightKg
		}
		latest := func() float64 {
			t.Helper()
			var ws list[domain.Weight]
			e.ok(200, e.call(k, "GET", tp+"/weights?limit=1", nil)).into(t, &ws)
			return ws.Items[0].WeightKg
		}
		// The seed logged 71.5 now: the profile shows it.
		if got := profileWeight(); got != 71.5 {
			t.Errorf("after log_weight 71.5 the profile shows %v", got)
		}
		e.ok(201, e.call(k, "POST", tp+"/weights", map[string]any{"weightKg": 81.4}))
		if got := profileWeight(); got != 81.4 {
			t.Errorf("after log_weight 81.4 the profile shows %v", got)
		}
		// An older weigh-in is history; the profile keeps the latest.
		e.ok(201, e.call(k, "POST", tp+"/weights", map[string]any{"weightKg": 90, "recordedAt": time.Now().UTC().AddDate(0, -1, 0).Format(time.RFC3339)}))
		if got := profileWeight(); got != 81.4 {
			t.Errorf("after an older weigh-in the profile shows %v, want 81.4", got)
		}
		// Setting weightKg on the profile records a weigh-in.
		e.ok(200, e.call(k, "PATCH", tp, map[string]any{"weightKg": 79.9}))
		if p, l := profileWeight(), latest(); p != 79.9 || l != 79.9 {
			t.Errorf("after update weightKg 79.9: profile %v, latest weigh-in %v", p, l)
		}
		e.fails(422, "VALIDATION", e.call(k, "PATCH", tp, map[string]any{"weightKg": nil}))
		e.fails(422, "VALIDATION", e.call(k, "PATCH", tp, map[string]any{"startedOn": nil}))

		var created domain.Trainee
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Tal", "lastName": "Bar", "phone": "054-888-0001", "weightKg": 66.2})).into(t, &created)
		if created.StartedOn == nil || *created.StartedOn != today() {
			t.Errorf("created without startedOn: startedOn %v, want %s", created.StartedOn, today())
		}
		var ws list[domain.Weight]
		e.ok(200, e.call(k, "GET", "/trainees/"+created.ID+"/weights", nil)).into(t, &ws)
		if ws.Total != 1 || ws.Items[0].WeightKg != 66.2 {
			t.Errorf("created with weightKg 66.2: weigh-ins %+v", ws.Items)
		}
	})
}

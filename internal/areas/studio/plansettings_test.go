package studio_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// The studio's language, senior age and model budget are settings; the
// budget may only be set below the operator's ceiling.
func TestTheStudioSetsItsPlanSettings(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("plan-settings")
		var got struct {
			Language                 string
			SeniorAge                int
			ModelTokensPerPersonDay  int64
			ModelTokensPerStudioHour int64
		}
		e.OK(200, e.Call(f.Key, "GET", "/studio/settings", nil)).Into(t, &got)
		if got.Language != "he" || got.SeniorAge != 60 || got.ModelTokensPerPersonDay == 0 {
			t.Fatalf("defaults %+v", got)
		}
		e.OK(200, e.Call(f.Key, "PATCH", "/studio/settings", map[string]any{"language": "en", "seniorAge": 65, "modelTokensPerPersonDay": 5000})).Into(t, &got)
		if got.Language != "en" || got.SeniorAge != 65 || got.ModelTokensPerPersonDay != 5000 {
			t.Fatalf("set %+v", got)
		}
		a := e.Fails(422, "VALIDATION", e.Call(f.Key, "PATCH", "/studio/settings", map[string]any{"modelTokensPerStudioHour": 1 << 40}))
		if !strings.Contains(a.Message(), "ceiling") {
			t.Errorf("over the ceiling: %s", a.Message())
		}
		e.Fails(422, "VALIDATION", e.Call(f.Key, "PATCH", "/studio/settings", map[string]any{"seniorAge": 20}))
	})
}

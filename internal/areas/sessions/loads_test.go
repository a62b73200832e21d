package sessions_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A logged set is held to human and personal bounds where every door logs
// (the coach's key, her own tools, WhatsApp's key alike): bench press at
// 1,000 kg is refused whatever is sent; far past her best, refused until
// confirmed. Each refusal names the set and the fix.
func TestLoggedLoadsAreBounded(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("load-bounds")
		coach, own := "/trainees/"+f.Trainee.ID+"/workouts", "/trainees/me/workouts"
		tok := e.TraineeToken(f)
		bench := func(kg float64, reps int, extra map[string]any) map[string]any {
			body := map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "bench-press", "sets": []map[string]any{{"reps": reps, "loadKg": kg}}}}}
			for k, v := range extra {
				body[k] = v
			}
			return body
		}
		for _, who := range []struct{ key, path string }{{f.Key, coach}, {tok, own}} {
			a := e.Fails(422, "VALIDATION", e.Call(who.key, "POST", who.path, bench(1000, 5, map[string]any{"confirmLoads": true})))
			if m := a.Message(); !strings.Contains(m, "exercises[0].sets[0].loadKg") || !strings.Contains(m, "beyond what people lift") || !strings.Contains(m, "pounds") {
				t.Errorf("bench press 5 × 1000 kg: %s", m)
			}
		}
		// Her first bench press sets her best; a set far past it asks for confirmation.
		e.OK(201, e.Call(f.Key, "POST", coach, bench(80, 5, nil)))
		a := e.Fails(422, "VALIDATION", e.Call(tok, "POST", own, bench(150, 5, map[string]any{"durationMin": 40})))
		if m := a.Message(); !strings.Contains(m, "her best of 93 kg") || !strings.Contains(m, "confirmLoads") {
			t.Errorf("5 × 150 kg after a best of 93: %s", m)
		}
		e.OK(201, e.Call(tok, "POST", own, bench(150, 5, map[string]any{"durationMin": 40, "confirmLoads": true})))
		// Within her bounds a set is simply logged.
		e.OK(201, e.Call(f.Key, "POST", coach, bench(100, 5, map[string]any{"durationMin": 50})))
		// A lift's 1RM benchmark is held to what people lift too.
		bmk := map[string]any{"name": "Max bench", "unit": "kg", "direction": "higher", "exerciseId": "bench-press", "value": 900}
		if a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/benchmarks", bmk)); !strings.Contains(a.Message(), "beyond what people lift") {
			t.Errorf("a 900 kg bench press benchmark: %s", a.Message())
		}
		bmk["value"] = 140
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/benchmarks", bmk))
		bmk["value"] = 950
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/benchmarks", bmk))
	})
}

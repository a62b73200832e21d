package health_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// What the weekly plan reads beside an injury's area is its kind, set on
// record and on change, from the listed kinds only.
func TestAnInjuryHasAKind(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("injury-kind")
		var inj domain.Injury
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/injuries", map[string]any{"area": "knee", "severity": 2, "kind": "tendinopathy"})).Into(t, &inj)
		if inj.Kind != "tendinopathy" {
			t.Fatalf("recorded %+v", inj)
		}
		e.OK(200, e.Call(f.Key, "PATCH", "/injuries/"+inj.ID, map[string]any{"kind": "after_surgery"})).Into(t, &inj)
		if inj.Kind != "after_surgery" {
			t.Fatalf("changed %+v", inj)
		}
		if a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/injuries", map[string]any{"area": "knee", "severity": 2, "kind": "torn"})); !strings.Contains(a.Message(), "tendinopathy") {
			t.Errorf("an unknown kind: %s; want the kinds listed", a.Message())
		}
		// Her own record through her tools takes a kind too.
		var mine domain.Injury
		e.OK(201, e.Call(e.TraineeToken(f), "POST", "/trainees/me/injuries", map[string]any{"area": "ankle", "severity": 1, "kind": "sprain"})).Into(t, &mine)
		if mine.Kind != "sprain" {
			t.Fatalf("her own injury %+v", mine)
		}
	})
}

// Her sport, goal and health conditions are fields the coach and she set
// from listed values; the conditions are health data: a trainee reads them
// under health:read and changes them under health:write only.
func TestTheProfileHoldsSportGoalAndConditions(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("profile-sport")
		path := "/trainees/" + f.Trainee.ID + "/training-profile"
		var p domain.TrainingProfile
		e.OK(200, e.Call(f.Key, "PATCH", path, map[string]any{"sport": "running", "goal": "fat_loss", "conditions": []string{"osteoporosis", "hypertension", "hypertension"}})).Into(t, &p)
		if p.Sport != "running" || p.Goal != "fat_loss" || !slices.Equal(p.Conditions, []string{"hypertension", "osteoporosis"}) {
			t.Fatalf("the coach's profile: %+v", p)
		}
		for _, bad := range []map[string]any{{"sport": "chess"}, {"goal": "fame"}, {"conditions": []string{"flu"}}} {
			e.Fails(422, "VALIDATION", e.Call(f.Key, "PATCH", path, bad))
		}

		// Without the health scopes she sees and sets her sport, not her conditions.
		narrow := e.Grant(f.Studio.ID, f.Trainee.ID, auth.ScopeProfileRead, auth.ScopeTrainingWrite)
		var seen map[string]any
		e.OK(200, e.Call(narrow, "GET", "/trainees/me/training-profile", nil)).Into(t, &seen)
		if seen["sport"] != "running" || seen["conditions"] != nil {
			t.Fatalf("without health:read: %v; want her sport and no conditions", seen)
		}
		e.OK(200, e.Call(narrow, "PATCH", "/trainees/me/training-profile", map[string]any{"goal": "endurance"}))
		a := e.Fails(403, "FORBIDDEN", e.Call(narrow, "PATCH", "/trainees/me/training-profile", map[string]any{"conditions": []string{}}))
		if !strings.Contains(a.Message(), "health:write") {
			t.Errorf("conditions without health:write: %s", a.Message())
		}
		// With them, she does both.
		full := e.TraineeToken(f)
		e.OK(200, e.Call(full, "PATCH", "/trainees/me/training-profile", map[string]any{"conditions": []string{"pregnancy"}})).Into(t, &seen)
		if c, _ := seen["conditions"].([]any); len(c) != 1 || c[0] != "pregnancy" || seen["goal"] != "endurance" {
			t.Fatalf("with the health scopes: %v", seen)
		}
		// Her coach sees them.
		e.OK(200, e.Call(f.Key, "GET", path, nil)).Into(t, &p)
		if !slices.Equal(p.Conditions, []string{"pregnancy"}) {
			t.Fatalf("the coach reads %+v", p)
		}
	})
}

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

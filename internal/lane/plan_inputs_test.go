package lane_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// What the weekly plan reads beside an injury's area is its kind, set on
// record and on change, from the listed kinds only.
func TestAnInjuryHasAKind(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("injury-kind")
		var inj domain.Injury
		e.ok(201, e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/injuries", map[string]any{"area": "knee", "severity": 2, "kind": "tendinopathy"})).into(t, &inj)
		if inj.Kind != "tendinopathy" {
			t.Fatalf("recorded %+v", inj)
		}
		e.ok(200, e.call(f.key, "PATCH", "/injuries/"+inj.ID, map[string]any{"kind": "after_surgery"})).into(t, &inj)
		if inj.Kind != "after_surgery" {
			t.Fatalf("changed %+v", inj)
		}
		if a := e.fails(422, "VALIDATION", e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/injuries", map[string]any{"area": "knee", "severity": 2, "kind": "torn"})); !strings.Contains(a.message(), "tendinopathy") {
			t.Errorf("an unknown kind: %s; want the kinds listed", a.message())
		}
		// Her own record through her tools takes a kind too.
		var mine domain.Injury
		e.ok(201, e.call(e.traineeToken(f), "POST", "/trainees/me/injuries", map[string]any{"area": "ankle", "severity": 1, "kind": "sprain"})).into(t, &mine)
		if mine.Kind != "sprain" {
			t.Fatalf("her own injury %+v", mine)
		}
	})
}

// Her sport, goal and health conditions are fields the coach and she set
// from listed values; the conditions are health data: a trainee reads them
// under health:read and changes them under health:write only.
func TestTheProfileHoldsSportGoalAndConditions(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("profile-sport")
		path := "/trainees/" + f.trainee.ID + "/training-profile"
		var p domain.TrainingProfile
		e.ok(200, e.call(f.key, "PATCH", path, map[string]any{"sport": "running", "goal": "fat_loss", "conditions": []string{"osteoporosis", "hypertension", "hypertension"}})).into(t, &p)
		if p.Sport != "running" || p.Goal != "fat_loss" || !slices.Equal(p.Conditions, []string{"hypertension", "osteoporosis"}) {
			t.Fatalf("the coach's profile: %+v", p)
		}
		for _, bad := range []map[string]any{{"sport": "chess"}, {"goal": "fame"}, {"conditions": []string{"flu"}}} {
			e.fails(422, "VALIDATION", e.call(f.key, "PATCH", path, bad))
		}

		// Without the health scopes she sees and sets her sport, not her conditions.
		narrow := e.grant(f.studio.ID, f.trainee.ID, auth.ScopeProfileRead, auth.ScopeTrainingWrite)
		var seen map[string]any
		e.ok(200, e.call(narrow, "GET", "/trainees/me/training-profile", nil)).into(t, &seen)
		if seen["sport"] != "running" || seen["conditions"] != nil {
			t.Fatalf("without health:read: %v; want her sport and no conditions", seen)
		}
		e.ok(200, e.call(narrow, "PATCH", "/trainees/me/training-profile", map[string]any{"goal": "endurance"}))
		a := e.fails(403, "FORBIDDEN", e.call(narrow, "PATCH", "/trainees/me/training-profile", map[string]any{"conditions": []string{}}))
		if !strings.Contains(a.message(), "health:write") {
			t.Errorf("conditions without health:write: %s", a.message())
		}
		// With them, she does both.
		full := e.traineeToken(f)
		e.ok(200, e.call(full, "PATCH", "/trainees/me/training-profile", map[string]any{"conditions": []string{"pregnancy"}})).into(t, &seen)
		if c, _ := seen["conditions"].([]any); len(c) != 1 || c[0] != "pregnancy" || seen["goal"] != "endurance" {
			t.Fatalf("with the health scopes: %v", seen)
		}
		// Her coach sees them.
		e.ok(200, e.call(f.key, "GET", path, nil)).into(t, &p)
		if !slices.Equal(p.Conditions, []string{"pregnancy"}) {
			t.Fatalf("the coach reads %+v", p)
		}
	})
}

// The studio's language, senior age and model budget are settings; the
// budget may only be set below the operator's ceiling.
func TestTheStudioSetsItsPlanSettings(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("plan-settings")
		var got struct {
			Language                 string
			SeniorAge                int
			ModelTokensPerPersonDay  int64
			ModelTokensPerStudioHour int64
		}
		e.ok(200, e.call(f.key, "GET", "/studio/settings", nil)).into(t, &got)
		if got.Language != "he" || got.SeniorAge != 60 || got.ModelTokensPerPersonDay == 0 {
			t.Fatalf("defaults %+v", got)
		}
		e.ok(200, e.call(f.key, "PATCH", "/studio/settings", map[string]any{"language": "en", "seniorAge": 65, "modelTokensPerPersonDay": 5000})).into(t, &got)
		if got.Language != "en" || got.SeniorAge != 65 || got.ModelTokensPerPersonDay != 5000 {
			t.Fatalf("set %+v", got)
		}
		a := e.fails(422, "VALIDATION", e.call(f.key, "PATCH", "/studio/settings", map[string]any{"modelTokensPerStudioHour": 1 << 40}))
		if !strings.Contains(a.message(), "ceiling") {
			t.Errorf("over the ceiling: %s", a.message())
		}
		e.fails(422, "VALIDATION", e.call(f.key, "PATCH", "/studio/settings", map[string]any{"seniorAge": 20}))
	})
}

// A logged set is held to human and personal bounds where every door logs
// (the coach's key, her own tools, WhatsApp's key alike): bench press at
// 1,000 kg is refused whatever is sent; far past her best, refused until
// confirmed. Each refusal names the set and the fix.
func TestLoggedLoadsAreBounded(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("load-bounds")
		coach, own := "/trainees/"+f.trainee.ID+"/workouts", "/trainees/me/workouts"
		tok := e.traineeToken(f)
		bench := func(kg float64, reps int, extra map[string]any) map[string]any {
			body := map[string]any{"sport": "strength", "exercises": []map[string]any{{"exerciseId": "bench-press", "sets": []map[string]any{{"reps": reps, "loadKg": kg}}}}}
			for k, v := range extra {
				body[k] = v
			}
			return body
		}
		for _, who := range []struct{ key, path string }{{f.key, coach}, {tok, own}} {
			a := e.fails(422, "VALIDATION", e.call(who.key, "POST", who.path, bench(1000, 5, map[string]any{"confirmLoads": true})))
			if m := a.message(); !strings.Contains(m, "exercises[0].sets[0].loadKg") || !strings.Contains(m, "beyond what people lift") || !strings.Contains(m, "pounds") {
				t.Errorf("bench press 5 × 1000 kg: %s", m)
			}
		}
		// Her first bench press sets her best; a set far past it asks for confirmation.
		e.ok(201, e.call(f.key, "POST", coach, bench(80, 5, nil)))
		a := e.fails(422, "VALIDATION", e.call(tok, "POST", own, bench(150, 5, map[string]any{"durationMin": 40})))
		if m := a.message(); !strings.Contains(m, "her best of 93 kg") || !strings.Contains(m, "confirmLoads") {
			t.Errorf("5 × 150 kg after a best of 93: %s", m)
		}
		e.ok(201, e.call(tok, "POST", own, bench(150, 5, map[string]any{"durationMin": 40, "confirmLoads": true})))
		// Within her bounds a set is simply logged.
		e.ok(201, e.call(f.key, "POST", coach, bench(100, 5, map[string]any{"durationMin": 50})))
		// A lift's 1RM benchmark is held to what people lift too.
		bmk := map[string]any{"name": "Max bench", "unit": "kg", "direction": "higher", "exerciseId": "bench-press", "value": 900}
		if a := e.fails(422, "VALIDATION", e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/benchmarks", bmk)); !strings.Contains(a.message(), "beyond what people lift") {
			t.Errorf("a 900 kg bench press benchmark: %s", a.message())
		}
		bmk["value"] = 140
		e.ok(201, e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/benchmarks", bmk))
		bmk["value"] = 950
		e.fails(422, "VALIDATION", e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/benchmarks", bmk))
	})
}

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

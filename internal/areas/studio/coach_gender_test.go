package studio_test

import (
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A coach has a gender, as a trainee has: female, male or other, given when
// she is added or changed, removed with null; another word is refused.
func TestCoachGender(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		_, k, _ := e.Studio("coach-gender", "pro")
		var co domain.Coach
		e.OK(201, e.Call(k, "POST", "/coaches", map[string]any{"name": "Noa", "gender": "female"})).Into(t, &co)
		if co.Gender == nil || *co.Gender != "female" {
			t.Fatalf("created %+v, want gender female", co)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/coaches", map[string]any{"name": "X", "gender": "woman"}))
		e.OK(200, e.Call(k, "PATCH", "/coaches/"+co.ID, map[string]any{"gender": "male"})).Into(t, &co)
		if co.Gender == nil || *co.Gender != "male" {
			t.Fatalf("changed %+v, want gender male", co)
		}
		e.OK(200, e.Call(k, "PATCH", "/coaches/"+co.ID, map[string]any{"name": "Noam"})).Into(t, &co)
		if co.Gender == nil || *co.Gender != "male" {
			t.Fatalf("a change of name lost the gender: %+v", co)
		}
		var cleared domain.Coach
		e.OK(200, e.Call(k, "PATCH", "/coaches/"+co.ID, map[string]any{"gender": nil})).Into(t, &cleared)
		if cleared.Gender != nil || cleared.ID != co.ID {
			t.Fatalf("null kept gender %q", *cleared.Gender)
		}
	})
}

package lane_test

import (
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// A coach has a gender, as a trainee has: female, male or other, given when
// she is added or changed, removed with null; another word is refused.
func TestCoachGender(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		_, k, _ := e.studio("coach-gender", "pro")
		var co domain.Coach
		e.ok(201, e.call(k, "POST", "/coaches", map[string]any{"name": "Noa", "gender": "female"})).into(t, &co)
		if co.Gender == nil || *co.Gender != "female" {
			t.Fatalf("created %+v, want gender female", co)
		}
		e.fails(422, "VALIDATION", e.call(k, "POST", "/coaches", map[string]any{"name": "X", "gender": "woman"}))
		e.ok(200, e.call(k, "PATCH", "/coaches/"+co.ID, map[string]any{"gender": "male"})).into(t, &co)
		if co.Gender == nil || *co.Gender != "male" {
			t.Fatalf("changed %+v, want gender male", co)
		}
		e.ok(200, e.call(k, "PATCH", "/coaches/"+co.ID, map[string]any{"name": "Noam"})).into(t, &co)
		if co.Gender == nil || *co.Gender != "male" {
			t.Fatalf("a change of name lost the gender: %+v", co)
		}
		var cleared domain.Coach
		e.ok(200, e.call(k, "PATCH", "/coaches/"+co.ID, map[string]any{"gender": nil})).into(t, &cleared)
		if cleared.Gender != nil || cleared.ID != co.ID {
			t.Fatalf("null kept gender %q", *cleared.Gender)
		}
	})
}

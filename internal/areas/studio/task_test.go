package studio_test

import (
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A partial update of a task is checked against the task as it will be:
// a snoozed task keeps its snoozeUntil through a change of priority or a
// repeated status, and only a change that would leave it snoozed without a
// wake time is refused.
func TestSnoozedTaskCanBeChanged(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("snoozed")
		k, path := f.Key, "/tasks/"+f.Task.ID
		var task domain.Task
		e.OK(200, e.Call(k, "PATCH", path, map[string]any{"snoozeUntil": "2030-01-01T09:00:00+02:00"})).Into(t, &task)
		wake := time.Date(2030, 1, 1, 7, 0, 0, 0, time.UTC)
		if task.Status != "snoozed" || task.SnoozeUntil == nil || !task.SnoozeUntil.Equal(wake) {
			t.Fatalf("snoozed: %+v", task)
		}
		for _, change := range []map[string]any{{"priority": 3}, {"status": "snoozed"}, {"status": "snoozed", "priority": 4}, {}} {
			e.OK(200, e.Call(k, "PATCH", path, change)).Into(t, &task)
			if task.Status != "snoozed" || task.SnoozeUntil == nil || !task.SnoozeUntil.Equal(wake) {
				t.Errorf("after %v: %+v, want it still snoozed until %s", change, task, wake)
			}
		}
		if task.Priority != 4 {
			t.Errorf("priority %d, want 4", task.Priority)
		}
		// Clearing the wake time of a task that stays snoozed is refused.
		a := e.Fails(422, "VALIDATION", e.Call(k, "PATCH", path, map[string]any{"snoozeUntil": nil}))
		if !slices.Equal(a.Fields(), []string{"snoozeUntil"}) {
			t.Errorf("snoozeUntil null on a snoozed task: %s", a.Raw)
		}
		// Waking it clears the snooze; snoozing it again needs a new time.
		e.OK(200, e.Call(k, "PATCH", path, map[string]any{"status": "open", "snoozeUntil": nil})).Into(t, &task)
		if task.Status != "open" || task.SnoozeUntil != nil {
			t.Errorf("opened: %+v", task)
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "PATCH", path, map[string]any{"status": "snoozed"}))
		if !slices.Equal(a.Fields(), []string{"snoozeUntil"}) {
			t.Errorf("snoozing an open task without a time: %s", a.Raw)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "PATCH", path, map[string]any{"status": "done", "snoozeUntil": "2030-01-01T09:00:00Z"}))
	})
}

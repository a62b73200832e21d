package health_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

type managedGoal struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Status   string `json:"status"`
	Progress *struct {
		Percent *float64 `json:"percent"`
	} `json:"progress"`
}

type manageOut struct {
	Action string       `json:"action"`
	Goal   *managedGoal `json:"goal"`
	Goals  *struct {
		Items []managedGoal `json:"items"`
		Total int           `json:"total"`
	} `json:"goals"`
}

func TestManageGoals(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("goals")
		k, path := f.Key, "/trainees/"+f.Trainee.ID+"/goals/manage"

		var made manageOut
		e.OK(201, e.Call(k, "POST", path, map[string]any{"action": "create", "title": "Run 5 km", "kind": "text"})).Into(t, &made)
		if made.Action != "create" || made.Goal == nil || made.Goal.Title != "Run 5 km" || made.Goal.Status != "active" || made.Goals != nil {
			t.Fatalf("create answered %+v", made)
		}
		// The existing goal rules hold here too.
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", path, map[string]any{"action": "create", "title": "x", "kind": "consistency"}))
		if !strings.Contains(a.Message(), "targetValue is required for a consistency goal") {
			t.Fatalf("consistency without a target: %s", a.Message())
		}
		for _, c := range []struct {
			body       map[string]any
			field, msg string
		}{
			{map[string]any{"action": "create", "kind": "text"}, "title", "title is required to create a goal"},
			{map[string]any{"action": "create", "title": "x"}, "kind", "kind is required to create a goal"},
			{map[string]any{"action": "create", "title": "x", "kind": "text", "goalId": made.Goal.ID}, "goalId", "goalId does not go with action create"},
			{map[string]any{"action": "update", "title": "x"}, "goalId", "goalId is required to update a goal"},
			{map[string]any{"action": "complete"}, "goalId", "goalId is required to complete a goal"},
			{map[string]any{"action": "update", "goalId": made.Goal.ID}, "goalId", "update needs at least one of"},
			{map[string]any{"action": "update", "goalId": made.Goal.ID, "kind": "text"}, "kind", "kind does not go with action update"},
			{map[string]any{"action": "complete", "goalId": made.Goal.ID, "title": "x"}, "title", "title does not go with action complete"},
			{map[string]any{"action": "archive"}, "action", ""},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", path, c.body))
			if !slices.Contains(a.Fields(), c.field) || !strings.Contains(a.Message(), c.msg) {
				t.Errorf("%v: fields %v, message %q; want %s and %q", c.body, a.Fields(), a.Message(), c.field, c.msg)
			}
		}

		var changed manageOut
		e.OK(200, e.Call(k, "POST", path, map[string]any{"action": "update", "goalId": made.Goal.ID, "title": "Run 10 km"})).Into(t, &changed)
		if changed.Goal.ID != made.Goal.ID || changed.Goal.Title != "Run 10 km" {
			t.Fatalf("update answered %+v", changed.Goal)
		}
		var done manageOut
		e.OK(200, e.Call(k, "POST", path, map[string]any{"action": "complete", "goalId": made.Goal.ID})).Into(t, &done)
		if done.Goal.Status != "completed" {
			t.Fatalf("complete answered %+v", done.Goal)
		}
		var list manageOut
		e.OK(200, e.Call(k, "POST", path, map[string]any{"action": "list", "status": "completed"})).Into(t, &list)
		if list.Goals == nil || list.Goals.Total != 1 || list.Goals.Items[0].ID != made.Goal.ID || list.Goal != nil {
			t.Fatalf("list completed answered %+v", list)
		}
		// Two goals, a page of one each (the two may share a creation millisecond,
		// so which comes first is not asserted).
		var first, second manageOut
		e.OK(200, e.Call(k, "POST", path, map[string]any{"action": "list", "limit": 1})).Into(t, &first)
		e.OK(200, e.Call(k, "POST", path, map[string]any{"action": "list", "limit": 1, "offset": 1})).Into(t, &second)
		if first.Goals.Total != 2 || len(first.Goals.Items) != 1 || len(second.Goals.Items) != 1 ||
			!slices.Equal(sortedIDs(first.Goals.Items[0].ID, second.Goals.Items[0].ID), sortedIDs(f.Goal.ID, made.Goal.ID)) {
			t.Fatalf("pages of 1: %+v then %+v", first.Goals, second.Goals)
		}

		// Another trainee's goal, of this very studio, is not found through this trainee.
		var other domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Omer", "lastName": "Other", "phone": "050-765-4321"})).Into(t, &other)
		var theirs manageOut
		e.OK(201, e.Call(k, "POST", "/trainees/"+other.ID+"/goals/manage", map[string]any{"action": "create", "title": "Theirs", "kind": "text"})).Into(t, &theirs)
		for _, action := range []string{"update", "complete"} {
			body := map[string]any{"action": action, "goalId": theirs.Goal.ID}
			if action == "update" {
				body["title"] = "taken over"
			}
			a := e.Fails(404, "NOT_FOUND", e.Call(k, "POST", path, body))
			if !strings.Contains(a.Message(), theirs.Goal.ID) {
				t.Fatalf("%s of another trainee's goal: %s", action, a.Message())
			}
		}
		var still managedGoal
		e.OK(200, e.Call(k, "GET", "/trainees/"+other.ID+"/goals", nil))
		e.OK(200, e.Call(k, "POST", "/trainees/"+other.ID+"/goals/manage", map[string]any{"action": "list"})).Into(t, &list)
		still = list.Goals.Items[0]
		if still.Title != "Theirs" || still.Status != "active" {
			t.Fatalf("the other trainee's goal changed: %+v", still)
		}

		// A trainee's own connection manages its own goals, and only those.
		tk := e.TraineeToken(f)
		e.OK(201, e.Call(tk, "POST", path, map[string]any{"action": "create", "title": "Mine", "kind": "text"}))
		e.Fails(404, "NOT_FOUND", e.Call(tk, "POST", "/trainees/"+other.ID+"/goals/manage", map[string]any{"action": "list"}))
		e.Fails(404, "NOT_FOUND", e.Call(tk, "POST", path, map[string]any{"action": "complete", "goalId": theirs.Goal.ID}))
	})
}

type patchedProfile struct {
	Equipment      []string `json:"equipment"`
	Availability   []int    `json:"availability"`
	SessionMinutes *int     `json:"sessionMinutes"`
	Experience     *string  `json:"experience"`
	Units          string   `json:"units"`
}

func TestPatchTrainingProfile(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("profile")
		k, path := f.Key, "/trainees/"+f.Trainee.ID+"/training-profile"

		// Before any profile: a patch starts from the defaults.
		var p patchedProfile
		e.OK(200, e.Call(k, "PATCH", path, map[string]any{"sessionMinutes": 45})).Into(t, &p)
		if p.SessionMinutes == nil || *p.SessionMinutes != 45 || p.Units != "metric" || len(p.Equipment) != 0 || p.Availability == nil {
			t.Fatalf("first patch: %+v", p)
		}
		e.OK(200, e.Call(k, "PUT", path, map[string]any{"equipment": []string{"barbell", "dumbbell"}, "availability": []int{5, 1, 3}, "sessionMinutes": 60, "experience": "intermediate"}))
		e.OK(200, e.Call(k, "PATCH", path, map[string]any{"units": "imperial", "availability": []int{6, 2, 2}})).Into(t, &p)
		if p.Units != "imperial" || !slices.Equal(p.Availability, []int{2, 6}) || !slices.Equal(p.Equipment, []string{"barbell", "dumbbell"}) ||
			*p.SessionMinutes != 60 || *p.Experience != "intermediate" {
			t.Fatalf("patch changed more than units and availability: %+v", p)
		}
		// null clears a field that may be empty.
		e.OK(200, e.Call(k, "PATCH", path, map[string]any{"experience": nil})).Into(t, &p)
		if p.Experience != nil || p.Units != "imperial" {
			t.Fatalf("patch experience null: %+v", p)
		}
		var read patchedProfile
		e.OK(200, e.Call(k, "GET", path, nil)).Into(t, &read)
		if read.Units != "imperial" || !slices.Equal(read.Equipment, []string{"barbell", "dumbbell"}) || read.Experience != nil {
			t.Fatalf("stored profile: %+v", read)
		}

		a := e.Fails(422, "VALIDATION", e.Call(k, "PATCH", path, map[string]any{}))
		if !strings.Contains(a.Message(), "Send at least one of") {
			t.Fatalf("empty patch: %s", a.Message())
		}
		a = e.Fails(422, "VALIDATION", e.Call(k, "PATCH", path, map[string]any{"sessionMinutes": 5}))
		if !slices.Contains(a.Fields(), "sessionMinutes") {
			t.Fatalf("sessionMinutes 5: %s", a.Raw)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "PATCH", path, map[string]any{"units": "furlongs"}))

		// The trainee's own connection changes its own profile.
		e.OK(200, e.Call(e.TraineeToken(f), "PATCH", path, map[string]any{"units": "metric"})).Into(t, &p)
		if p.Units != "metric" || !slices.Equal(p.Equipment, []string{"barbell", "dumbbell"}) {
			t.Fatalf("trainee patch: %+v", p)
		}
	})
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

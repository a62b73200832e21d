package roster_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/auth"
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

type feedbackOut struct {
	ID        string  `json:"id"`
	TraineeID string  `json:"traineeId"`
	Text      string  `json:"text"`
	Rating    *int    `json:"rating"`
	Topic     *string `json:"topic"`
	Source    string  `json:"source"`
}

func TestFeedback(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		// A clock a millisecond on at each reading: "newest first" is decided.
		var ticks atomic.Int64
		start := time.Now()
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }})
		f := e.Seed("fbka")
		b := e.Seed("fbkb")
		path := "/trainees/" + f.Trainee.ID + "/feedback"
		before := len(e.Notifications(f.Studio.ID))

		var first, second feedbackOut
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"text": "  The weekly summary helps  ", "rating": 5, "topic": "tools"})).Into(t, &first)
		if first.Text != "The weekly summary helps" || *first.Rating != 5 || *first.Topic != "tools" || first.TraineeID != f.Trainee.ID {
			t.Fatalf("feedback answered %+v", first)
		}
		e.OK(201, e.Call(e.TraineeToken(f), "POST", path, map[string]any{"text": "Too many check-in questions"})).Into(t, &second)
		// A trainee's answer keeps what its allow list names: the source
		// and the trainee's id are the studio's bookkeeping.
		if second.Text != "Too many check-in questions" || second.Rating != nil || second.Topic != nil || second.Source != "" || second.TraineeID != "" {
			t.Fatalf("trainee feedback answered %+v", second)
		}
		e.OK(201, e.Call(b.Key, "POST", "/trainees/"+b.Trainee.ID+"/feedback", map[string]any{"text": "Studio B's secret word"}))

		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"text": "x", "rating": 6}, "rating"},
			{map[string]any{"text": "x", "rating": 0}, "rating"},
			{map[string]any{"text": "   "}, "text"},
			{map[string]any{}, "text"},
			{map[string]any{"text": strings.Repeat("x", 2001)}, "text"},
			{map[string]any{"text": "x", "topic": strings.Repeat("t", 51)}, "topic"},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", path, c.body))
			if !slices.Contains(a.Fields(), c.field) {
				t.Errorf("%v: fields %v: %s", c.body, a.Fields(), a.Message())
			}
		}

		var list struct {
			Items []feedbackOut `json:"items"`
			Total int           `json:"total"`
		}
		e.OK(200, e.Call(f.Key, "GET", "/feedback", nil)).Into(t, &list)
		if list.Total != 2 || list.Items[0].ID != second.ID || list.Items[1].ID != first.ID || list.Items[0].Source != domain.SourceAPI || list.Items[0].TraineeID != f.Trainee.ID {
			t.Fatalf("GET /feedback = %+v, want newest first, studio A's only", list)
		}
		e.OK(200, e.Call(f.Key, "GET", "/feedback?limit=1&offset=1", nil)).Into(t, &list)
		if list.Total != 2 || len(list.Items) != 1 || list.Items[0].ID != first.ID {
			t.Fatalf("page 2 of 1: %+v", list)
		}
		e.OK(200, e.Call(f.Key, "GET", "/feedback?traineeId="+f.Trainee.ID, nil)).Into(t, &list)
		if list.Total != 2 {
			t.Fatalf("by trainee: %+v", list)
		}
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "GET", "/feedback?traineeId="+b.Trainee.ID, nil))
		// The studio reads feedback; a trainee's connection does not.
		e.Fails(403, "FORBIDDEN", e.Call(e.TraineeToken(f), "GET", "/feedback", nil))
		// Nothing is sent to anyone.
		if n := len(e.Notifications(f.Studio.ID)); n != before {
			t.Fatalf("feedback wrote %d outbox rows", n-before)
		}
	})
}

type planOut struct {
	Today   string `json:"today"`
	Current *struct {
		ID           string  `json:"id"`
		Name         string  `json:"name"`
		Status       string  `json:"status"`
		StartedOn    string  `json:"startedOn"`
		EndsOn       *string `json:"endsOn"`
		DaysLeft     *int    `json:"daysLeft"`
		SessionsLeft *int    `json:"sessionsLeft"`
	} `json:"current"`
	Next *struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		Status       string `json:"status"`
		StartedOn    string `json:"startedOn"`
		DaysLeft     *int   `json:"daysLeft"`
		StartsInDays *int   `json:"startsInDays"`
	} `json:"next"`
}

func TestTraineePlan(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("plan")
		path := "/trainees/" + f.Trainee.ID + "/plan"

		var p planOut
		a := e.OK(200, e.Call(f.Key, "GET", path, nil))
		a.Into(t, &p)
		// The fixture's plan: 30 days from today, today included.
		if p.Current == nil || p.Current.ID != f.Subscription.ID || p.Current.Name != f.Product.Name || p.Current.Status != "live" ||
			p.Current.StartedOn != kit.Today() || *p.Current.EndsOn != kit.AddDays(kit.Today(), 29) || *p.Current.DaysLeft != 30 || p.Next != nil {
			t.Fatalf("plan: %s", a.Data)
		}
		if p.Current.SessionsLeft != nil || !strings.Contains(string(a.Data), `"sessionsLeft":null`) {
			t.Fatalf("sessionsLeft must be present and null (plans carry no allowance): %s", a.Data)
		}
		var next domain.Subscription
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/subscription", map[string]any{"productId": f.OpenProduct.ID, "price": 90})).Into(t, &next)
		e.OK(200, e.Call(e.TraineeToken(f), "GET", path, nil)).Into(t, &p)
		if p.Next == nil || p.Next.ID != next.ID || p.Next.Status != "scheduled" || p.Next.StartedOn != kit.AddDays(kit.Today(), 30) || *p.Next.StartsInDays != 30 || p.Next.DaysLeft != nil {
			t.Fatalf("next plan: %+v", p.Next)
		}

		var none domain.Trainee
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "No", "lastName": "Plan", "phone": "050-222-3333"})).Into(t, &none)
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+none.ID+"/plan", nil)).Into(t, &p)
		if p.Current != nil || p.Next != nil {
			t.Fatalf("no plan: %+v", p)
		}
		// A frozen plan is still the one in force.
		e.OK(200, e.Call(f.Key, "POST", "/subscriptions/"+f.Subscription.ID+"/freeze", nil))
		e.OK(200, e.Call(f.Key, "GET", path, nil)).Into(t, &p)
		if p.Current == nil || p.Current.Status != "frozen" || p.Current.ID != f.Subscription.ID {
			t.Fatalf("frozen plan: %+v", p.Current)
		}
		e.Fails(404, "NOT_FOUND", e.Call(e.TraineeToken(f), "GET", "/trainees/"+none.ID+"/plan", nil))
	})
}

func TestPendingForms(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("forms")
		path := "/trainees/" + f.Trainee.ID + "/forms"
		type formOut struct {
			ID     string             `json:"id"`
			Title  string             `json:"title"`
			Prompt *string            `json:"prompt"`
			DueAt  *string            `json:"dueAt"`
			SentAt string             `json:"sentAt"`
			Fields []domain.FormField `json:"fields"`
		}
		var list struct {
			Items      []formOut `json:"items"`
			Total      int       `json:"total"`
			NextOffset *int      `json:"nextOffset"`
		}
		// The fixture's form is answered: nothing waits.
		e.OK(200, e.Call(f.Key, "GET", path, nil)).Into(t, &list)
		if list.Total != 0 || len(list.Items) != 0 {
			t.Fatalf("answered forms listed: %+v", list)
		}
		var later, soon domain.FormAssignment
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false, "prompt": "Later"})).Into(t, &later)
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false, "prompt": "Before Friday",
			"dueAt": kit.AddDays(kit.Today(), 3) + "T18:00:00Z"})).Into(t, &soon)
		e.OK(200, e.Call(e.TraineeToken(f), "GET", path, nil)).Into(t, &list)
		if list.Total != 2 || list.Items[0].ID != soon.ID || list.Items[1].ID != later.ID {
			t.Fatalf("pending forms: %+v, want the one due first", list)
		}
		got := list.Items[0]
		if got.Title != f.Form.Name || *got.Prompt != "Before Friday" || got.DueAt == nil || got.SentAt == "" || len(got.Fields) != 2 || got.Fields[0].Key != "sleep" || got.Fields[0].Type != "scale" {
			t.Fatalf("pending form row: %+v", got)
		}
		e.OK(200, e.Call(f.Key, "GET", path+"?limit=1", nil)).Into(t, &list)
		if len(list.Items) != 1 || list.NextOffset == nil || *list.NextOffset != 1 {
			t.Fatalf("page of 1: %+v", list)
		}
		a := e.Fails(422, "VALIDATION", e.Call(f.Key, "GET", path+"?limit=21", nil))
		if !slices.Contains(a.Fields(), "limit") {
			t.Fatalf("limit 21: %s", a.Raw)
		}
	})
}

func TestProgramDetail(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("prog")
		var tmpl domain.ProgramTemplate
		e.OK(201, e.Call(f.Key, "POST", "/program-templates", map[string]any{"name": "Base block", "description": "Four weeks of base",
			"phases": []map[string]any{{"name": "Base", "focus": "volume", "weeks": []map[string]any{
				{"days": []map[string]any{{"title": "Day A", "sport": "strength", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 8}}}}},
				{"days": []map[string]any{{"title": "Day B", "sport": "strength"}}},
			}}}})).Into(t, &tmpl)
		var assigned struct {
			domain.Program
			SessionsPlanned int `json:"sessionsPlanned"`
		}
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/programs/assign", map[string]any{"templateId": tmpl.ID, "replaceExisting": true})).Into(t, &assigned)
		if assigned.SessionsPlanned == 0 {
			t.Fatalf("the program laid out no sessions: %+v", assigned)
		}

		type detail struct {
			Program     domain.Program `json:"program"`
			Description *string        `json:"description"`
			Structure   *struct {
				Weeks    int `json:"weeks"`
				Sessions int `json:"sessions"`
				Phases   []struct {
					Name string `json:"name"`
				} `json:"phases"`
			} `json:"structure"`
			Position *struct {
				State     string `json:"state"`
				Week      int    `json:"week"`
				PhaseName string `json:"phaseName"`
			} `json:"position"`
			ThisWeek []struct {
				ProgramID *string `json:"programId"`
			} `json:"thisWeek"`
			Counts map[string]int `json:"counts"`
		}
		var d detail
		e.OK(200, e.Call(f.Key, "GET", "/programs/"+assigned.ID, nil)).Into(t, &d)
		if d.Program.ID != assigned.ID || *d.Description != "Four weeks of base" || d.Structure == nil || d.Structure.Weeks != 2 || d.Structure.Sessions != 2 ||
			d.Structure.Phases[0].Name != "Base" || d.Position == nil || d.Position.State != "running" || d.Position.Week != 1 || d.Counts["planned"] != assigned.SessionsPlanned {
			t.Fatalf("program detail: %+v", d)
		}
		for _, x := range d.ThisWeek {
			if x.ProgramID == nil || *x.ProgramID != assigned.ID {
				t.Fatalf("thisWeek holds a session of another program: %+v", d.ThisWeek)
			}
		}
		// The same figures as the active program's.
		var active struct {
			Counts map[string]int `json:"counts"`
		}
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/programs/active", nil)).Into(t, &active)
		if active.Counts["planned"] != d.Counts["planned"] {
			t.Fatalf("active counts %v, detail counts %v", active.Counts, d.Counts)
		}
		// The replaced fixture program has no structure.
		e.OK(200, e.Call(f.Key, "GET", "/programs/"+f.Program.ID, nil)).Into(t, &d)
		if d.Program.Status != "replaced" || d.Structure != nil || d.Position != nil {
			t.Fatalf("the replaced program: %+v", d)
		}
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/programs/"+assigned.ID, nil))

		// Another trainee's program is not found through a trainee's connection.
		var other domain.Trainee
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "Omer", "lastName": "Other", "phone": "050-765-4321"})).Into(t, &other)
		var theirs domain.Program
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+other.ID+"/programs/assign", map[string]any{"templateId": tmpl.ID})).Into(t, &theirs)
		e.Fails(404, "NOT_FOUND", e.Call(e.TraineeToken(f), "GET", "/programs/"+theirs.ID, nil))
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "GET", "/programs/prg_notanid", nil))
	})
}

type resourcesOut struct {
	Items []struct {
		Kind       string   `json:"kind"`
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Sport      string   `json:"sport"`
		Summary    string   `json:"summary"`
		Principles []string `json:"principles"`
		Muscles    []string `json:"muscles"`
	} `json:"items"`
	Total      int  `json:"total"`
	NextOffset *int `json:"nextOffset"`
}

func TestTrainingResources(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("res")
		k := f.Key

		var r resourcesOut
		a := e.OK(200, e.Call(k, "GET", "/training-resources?q=sweet+spot", nil))
		a.Into(t, &r)
		if r.Total == 0 || r.Items[0].ID != "cycling-sweet-spot" || r.Items[0].Kind != "methodology" || r.Items[0].Summary == "" || r.Items[0].Principles != nil {
			t.Fatalf("sweet spot, summary view: %s", a.Data)
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?q=sweet+spot&view=full", nil)).Into(t, &r)
		if len(r.Items[0].Principles) == 0 {
			t.Fatalf("view=full lacks principles: %+v", r.Items[0])
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?q=squat&kind=exercise&view=full", nil)).Into(t, &r)
		if r.Total == 0 || r.Items[0].Kind != "exercise" || !strings.Contains(strings.ToLower(r.Items[0].Name), "squat") || len(r.Items[0].Muscles) == 0 {
			t.Fatalf("squat exercises: %+v", r)
		}
		for _, it := range r.Items {
			if it.Kind != "exercise" {
				t.Fatalf("kind=exercise answered a %s", it.Kind)
			}
		}
		// Both kinds, methodologies first; summary rows page.
		e.OK(200, e.Call(k, "GET", "/training-resources", nil)).Into(t, &r)
		if len(r.Items) != 10 || r.Items[0].Kind != "methodology" || r.NextOffset == nil || *r.NextOffset != 10 || r.Total <= 28 {
			t.Fatalf("everything, first page: total %d, %d items, next %v", r.Total, len(r.Items), r.NextOffset)
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?sport=swimming&limit=50", nil)).Into(t, &r)
		if r.Total != 4 {
			t.Fatalf("swimming: %d resources", r.Total)
		}
		for _, it := range r.Items {
			if it.Kind != "methodology" || it.Sport != "swimming" {
				t.Fatalf("sport=swimming answered %+v", it)
			}
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?q=zzqqxx", nil)).Into(t, &r)
		if r.Total != 0 || r.Items == nil {
			t.Fatalf("no match: %+v", r)
		}
		for _, q := range []string{"limit=51", "kind=video", "sport=golf", "view=all", "q=" + strings.Repeat("a", 201)} {
			e.Fails(422, "VALIDATION", e.Call(k, "GET", "/training-resources?"+q, nil))
		}
		// A trainee's connection reads the shared library.
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/training-resources?q=deload", nil))

		var m struct {
			Items []struct {
				ID     string `json:"id"`
				Sport  string `json:"sport"`
				Phases []struct {
					Name string `json:"name"`
				} `json:"phases"`
			} `json:"items"`
			Total int `json:"total"`
		}
		e.OK(200, e.Call(k, "GET", "/methodologies", nil)).Into(t, &m)
		if m.Total != 28 || len(m.Items) != 28 || len(m.Items[0].Phases) == 0 {
			t.Fatalf("methodologies: %d of %d", len(m.Items), m.Total)
		}
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/methodologies?sport=mobility", nil)).Into(t, &m)
		if m.Total != 4 || m.Items[0].Sport != "mobility" {
			t.Fatalf("mobility: %+v", m)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "GET", "/methodologies?sport=golf", nil))
	})
}

type personaOut struct {
	Name         string   `json:"name"`
	Tone         string   `json:"tone"`
	Avoid        []string `json:"avoid"`
	AnswerFormat string   `json:"answerFormat"`
	Examples     []struct {
		Situation string `json:"situation"`
		Reply     string `json:"reply"`
	} `json:"examples"`
	Custom    bool    `json:"custom"`
	UpdatedAt *string `json:"updatedAt"`
}

func TestPersona(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("pera")
		b := e.Seed("perb")

		var p personaOut
		e.OK(200, e.Call(f.Key, "GET", "/studio/persona", nil)).Into(t, &p)
		def := catalog.DefaultPersona()
		if p.Custom || p.UpdatedAt != nil || p.Name != def.Name || p.Tone != def.Tone || len(p.Avoid) != len(def.Avoid) || len(p.Examples) != len(def.Examples) {
			t.Fatalf("default persona: %+v", p)
		}
		mine := map[string]any{"name": "Coach Ari", "tone": "Calm and precise.", "avoid": []string{"  jargon  ", "jargon", "emoji"}, "answerFormat": "Two sentences, then numbers.",
			"examples": []map[string]any{{"situation": "Missed a week", "reply": "Start again with one short session."}}}
		// Only the studio's own apps set it.
		e.Fails(403, "FORBIDDEN", e.Call(e.KeyWith(f.Studio.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite), "PUT", "/studio/persona", mine))
		e.Fails(403, "FORBIDDEN", e.Call(e.TraineeToken(f), "PUT", "/studio/persona", mine))

		for _, c := range []struct {
			change map[string]any
			field  string
		}{
			{map[string]any{"tone": "   "}, "tone"},
			{map[string]any{"tone": strings.Repeat("t", 1001)}, "tone"},
			{map[string]any{"name": nil}, "name"},
			{map[string]any{"answerFormat": strings.Repeat("a", 1501)}, "answerFormat"},
			{map[string]any{"avoid": make([]string, 21)}, "avoid"},
			{map[string]any{"examples": []map[string]any{{"situation": "x", "reply": " "}}}, "examples[0]"},
			{map[string]any{"examples": []map[string]any{{"situation": "x"}}}, "examples[0].reply"},
		} {
			body := map[string]any{}
			for k, v := range mine {
				body[k] = v
			}
			for k, v := range c.change {
				if v == nil {
					delete(body, k)
				} else {
					body[k] = v
				}
			}
			a := e.Fails(422, "VALIDATION", e.Call(f.Key, "PUT", "/studio/persona", body))
			if !slices.ContainsFunc(a.Fields(), func(s string) bool { return strings.HasPrefix(s, c.field) }) {
				t.Errorf("%v: fields %v: %s", c.change, a.Fields(), a.Message())
			}
		}

		e.OK(200, e.Call(f.Key, "PUT", "/studio/persona", mine)).Into(t, &p)
		if !p.Custom || p.UpdatedAt == nil || p.Name != "Coach Ari" || !slices.Equal(p.Avoid, []string{"jargon", "emoji"}) {
			t.Fatalf("PUT answered %+v", p)
		}
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/studio/persona", nil)).Into(t, &p)
		if !p.Custom || p.Tone != "Calm and precise." || len(p.Examples) != 1 {
			t.Fatalf("the trainee reads %+v", p)
		}
		// Another studio keeps the default.
		e.OK(200, e.Call(b.Key, "GET", "/studio/persona", nil)).Into(t, &p)
		if p.Custom || p.Name != def.Name {
			t.Fatalf("studio b reads %+v", p)
		}
		e.OK(200, e.Call(f.Key, "DELETE", "/studio/persona", nil)).Into(t, &p)
		e.OK(200, e.Call(f.Key, "GET", "/studio/persona", nil)).Into(t, &p)
		if p.Custom || p.Name != def.Name {
			t.Fatalf("after DELETE: %+v", p)
		}
	})
}

// The default persona is written to be used: every part present and bounded
// as a studio's own would be.
func TestDefaultPersonaFitsItsOwnRules(t *testing.T) {
	p := catalog.DefaultPersona()
	raw, _ := json.Marshal(p)
	if p.Name == "" || p.Tone == "" || p.AnswerFormat == "" || len(p.Avoid) == 0 || len(p.Examples) == 0 || len(raw) > 6000 {
		t.Fatalf("default persona: %d bytes, %+v", len(raw), p)
	}
	if len(p.Tone) > 1000 || len(p.AnswerFormat) > 1500 || len(p.Avoid) > 20 || len(p.Examples) > 8 {
		t.Fatalf("the default breaks the PUT limits")
	}
	for _, ex := range p.Examples {
		if len(ex.Situation) > 300 || len(ex.Reply) > 1500 {
			t.Fatalf("example too long: %+v", ex)
		}
	}
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

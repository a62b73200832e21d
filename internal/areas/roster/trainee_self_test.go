package roster_test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

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

package roster_test

import (
	"context"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

type groupAnswer struct {
	Summary string
	DryRun  bool
	Items   []struct {
		TraineeID, Name, Result, ID, Message string
	}
}

// A form, a plan or a task to a tag or a list in one call: each trainee's
// write is the one-trainee route's, with its own audit row, dry run and
// Idempotency-Key, and the answer says per trainee what was done or why not.
func TestGroupWrites(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("gp")
		k := f.Key
		var other struct{ ID string }
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "Tagged", "phone": "050-765-4331", "tags": []string{f.Tag.Name}})).Into(t, &other)
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Not", "lastName": "Tagged", "phone": "050-765-4332"}))

		var got groupAnswer
		e.OK(200, e.Call(k, "POST", "/groups/forms", map[string]any{"tag": "VIP-GP", "formTemplateId": "check-in gp", "notify": false}, "Idempotency-Key", "g1")).Into(t, &got)
		if len(got.Items) != 2 || got.Items[0].Result != "done" || got.Items[1].Result != "done" || !strings.HasPrefix(got.Items[0].ID, "fas_") || !strings.Contains(got.Summary, "2 done") {
			t.Fatalf("forms to a tag: %+v", got)
		}
		// Each trainee's write was audited on its own route.
		e.Audit.Flush()
		l, err := st.ListAudit(context.Background(), f.Studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		sends := 0
		for _, ev := range l.Items {
			if ev.Route == "POST /v1/automation/trainees/{id}/forms/assign" && ev.Status == 201 && (ev.ResourceID == f.Trainee.ID || ev.ResourceID == other.ID || strings.HasPrefix(ev.ResourceID, "fas_")) {
				sends++
			}
		}
		if sends < 3 { // the seed's own send and the group's two
			t.Errorf("audited sends: %d", sends)
		}

		// A dry run keeps nothing; each item says what it would do.
		var subs struct{ Total int }
		e.OK(200, e.Call(k, "GET", "/trainees/"+other.ID+"/subscriptions", nil)).Into(t, &subs)
		before := subs.Total
		dry := e.OK(200, e.Call(k, "POST", "/groups/subscriptions", map[string]any{"traineeIds": []string{"Noa Tagged", f.Trainee.ID}, "productId": "Monthly gp"}, "Prefer", "dry-run"))
		dry.Into(t, &got)
		e.OK(200, e.Call(k, "GET", "/trainees/"+other.ID+"/subscriptions", nil)).Into(t, &subs)
		if len(got.Items) != 2 || got.Items[0].Result != "done" || subs.Total != before || !strings.Contains(string(dry.Raw), "Dry run") {
			t.Errorf("dry run: %s; subscriptions %d then %d", dry.Raw, before, subs.Total)
		}
		// Refused per trainee, with the one-trainee route's sentence.
		e.OK(200, e.Call(k, "POST", "/groups/subscriptions", map[string]any{"tag": f.Tag.Name, "productId": f.OpenProduct.ID})).Into(t, &got)
		if len(got.Items) != 2 || got.Items[0].Result != "refused" || !strings.Contains(got.Items[0].Message, "price") {
			t.Errorf("refusals: %+v", got)
		}
		// Tasks about each, the same key twice: the second is the first's answer.
		first := e.OK(200, e.Call(k, "POST", "/groups/tasks", map[string]any{"traineeIds": []string{other.ID}, "title": "Call about the plan"}, "Idempotency-Key", "t1"))
		again := e.OK(200, e.Call(k, "POST", "/groups/tasks", map[string]any{"traineeIds": []string{other.ID}, "title": "Call about the plan"}, "Idempotency-Key", "t1"))
		if string(first.Data) != string(again.Data) || !strings.Contains(string(first.Data), `"result":"done"`) {
			t.Errorf("tasks: %s then %s", first.Data, again.Data)
		}
		// No group, both, or too large a list.
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/groups/tasks", map[string]any{"title": "x"}))
		e.Fails(422, "VALIDATION", e.Call(k, "POST", "/groups/tasks", map[string]any{"title": "x", "tag": f.Tag.Name, "traineeIds": []string{other.ID}}))
	})
}

// One change over a trainee's days: every planned session between from and
// to loses the exercise for the replacement, by their names, and the
// answer warns where the replacement was there already.
func TestSwapExerciseOverDays(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("swp")
		tp := "/trainees/" + f.Trainee.ID
		e.OK(201, e.Call(f.Key, "POST", tp+"/sessions", map[string]any{"date": kit.AddDays(kit.Today(), 2), "sport": "strength", "title": "Legs",
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}, {"exerciseId": "leg-press", "sets": 3, "reps": 10}}}))
		e.OK(201, e.Call(f.Key, "POST", tp+"/sessions", map[string]any{"date": kit.AddDays(kit.Today(), 20), "sport": "strength", "title": "Later",
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}}}))
		var got struct {
			Summary string
			Changed []struct{ SessionID, Date, Warning string }
		}
		a := e.OK(200, e.Call(f.Key, "POST", "/trainees/Dana/sessions/swap", map[string]any{"exerciseId": "back squat", "replacementId": "לג פרס", "from": kit.Today(), "to": kit.AddDays(kit.Today(), 6)}))
		a.Into(t, &got)
		if len(got.Changed) != 2 || got.Changed[0].Warning != "" || !strings.Contains(got.Changed[1].Warning, "twice") || !strings.Contains(got.Summary, "Leg press") {
			t.Fatalf("swap: %s", a.Data)
		}
		var later struct{ Exercises []string }
		var rows struct {
			Items []struct {
				Date      string
				Exercises []string
			}
		}
		e.OK(200, e.Call(f.Key, "GET", tp+"/sessions?status=planned", nil)).Into(t, &rows)
		for _, r := range rows.Items {
			if r.Date == kit.AddDays(kit.Today(), 20) {
				later.Exercises = r.Exercises
			}
		}
		if len(later.Exercises) != 1 || !strings.HasPrefix(later.Exercises[0], "Back squat") {
			t.Errorf("a session after to changed: %v", later.Exercises)
		}
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", tp+"/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "back squat", "from": kit.Today(), "to": kit.Today()}))
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", tp+"/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "leg-press", "from": kit.Today(), "to": kit.AddDays(kit.Today(), 200)}))
	})
}

// A drafted message is the studio's language, a wa.me link to the
// trainee's number with the text, audited, and sent to no one.
func TestDraftMessage(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("msg")
		before := len(e.Notifications(f.Studio.ID))
		var d struct {
			Language, Text, Link string
			Sent                 bool
		}
		e.OK(200, e.Call(f.Key, "POST", "/trainees/Dana/message-drafts", map[string]any{"purpose": "payment_due"})).Into(t, &d)
		if d.Sent || !strings.HasPrefix(d.Link, "https://wa.me/972501234567?text=") || !strings.Contains(d.Text, "Dana") || !strings.Contains(d.Link, "%20") {
			t.Errorf("draft: %+v", d)
		}
		e.OK(200, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/message-drafts", map[string]any{"purpose": "custom", "text": "שלום & להתראות?"})).Into(t, &d)
		if !strings.HasSuffix(d.Link, "?text=%D7%A9%D7%9C%D7%95%D7%9D%20%26%20%D7%9C%D7%94%D7%AA%D7%A8%D7%90%D7%95%D7%AA%3F") {
			t.Errorf("custom link: %s", d.Link)
		}
		e.Fails(422, "VALIDATION", e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/message-drafts", map[string]any{"purpose": "custom"}))
		if after := len(e.Notifications(f.Studio.ID)); after != before {
			t.Errorf("a draft reached the outbox: %d then %d", before, after)
		}
		e.Audit.Flush()
		l, _ := st.ListAudit(context.Background(), f.Studio.ID, store.Page{Limit: 200})
		audited := false
		for _, ev := range l.Items {
			audited = audited || ev.Route == "POST /v1/automation/trainees/{id}/message-drafts" && ev.ResourceID == f.Trainee.ID
		}
		if !audited {
			t.Error("the draft was not audited")
		}
	})
}

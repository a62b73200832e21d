package lane_test

import (
	"context"
	"strings"
	"testing"

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
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("gp")
		k := f.key
		var other struct{ ID string }
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Noa", "lastName": "Tagged", "phone": "050-765-4331", "tags": []string{f.tag.Name}})).into(t, &other)
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Not", "lastName": "Tagged", "phone": "050-765-4332"}))

		var got groupAnswer
		e.ok(200, e.call(k, "POST", "/groups/forms", map[string]any{"tag": "VIP-GP", "formTemplateId": "check-in gp", "notify": false}, "Idempotency-Key", "g1")).into(t, &got)
		if len(got.Items) != 2 || got.Items[0].Result != "done" || got.Items[1].Result != "done" || !strings.HasPrefix(got.Items[0].ID, "fas_") || !strings.Contains(got.Summary, "2 done") {
			t.Fatalf("forms to a tag: %+v", got)
		}
		// Each trainee's write was audited on its own route.
		e.audit.Flush()
		l, err := st.ListAudit(context.Background(), f.studio.ID, store.Page{Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		sends := 0
		for _, ev := range l.Items {
			if ev.Route == "POST /v1/automation/trainees/{id}/forms/assign" && ev.Status == 201 && (ev.ResourceID == f.trainee.ID || ev.ResourceID == other.ID || strings.HasPrefix(ev.ResourceID, "fas_")) {
				sends++
			}
		}
		if sends < 3 { // the seed's own send and the group's two
			t.Errorf("audited sends: %d", sends)
		}

		// A dry run keeps nothing; each item says what it would do.
		var subs struct{ Total int }
		e.ok(200, e.call(k, "GET", "/trainees/"+other.ID+"/subscriptions", nil)).into(t, &subs)
		before := subs.Total
		dry := e.ok(200, e.call(k, "POST", "/groups/subscriptions", map[string]any{"traineeIds": []string{"Noa Tagged", f.trainee.ID}, "productId": "Monthly gp"}, "Prefer", "dry-run"))
		dry.into(t, &got)
		e.ok(200, e.call(k, "GET", "/trainees/"+other.ID+"/subscriptions", nil)).into(t, &subs)
		if len(got.Items) != 2 || got.Items[0].Result != "done" || subs.Total != before || !strings.Contains(string(dry.Raw), "Dry run") {
			t.Errorf("dry run: %s; subscriptions %d then %d", dry.Raw, before, subs.Total)
		}
		// Refused per trainee, with the one-trainee route's sentence.
		e.ok(200, e.call(k, "POST", "/groups/subscriptions", map[string]any{"tag": f.tag.Name, "productId": f.openProduct.ID})).into(t, &got)
		if len(got.Items) != 2 || got.Items[0].Result != "refused" || !strings.Contains(got.Items[0].Message, "price") {
			t.Errorf("refusals: %+v", got)
		}
		// Tasks about each, the same key twice: the second is the first's answer.
		first := e.ok(200, e.call(k, "POST", "/groups/tasks", map[string]any{"traineeIds": []string{other.ID}, "title": "Call about the plan"}, "Idempotency-Key", "t1"))
		again := e.ok(200, e.call(k, "POST", "/groups/tasks", map[string]any{"traineeIds": []string{other.ID}, "title": "Call about the plan"}, "Idempotency-Key", "t1"))
		if string(first.Data) != string(again.Data) || !strings.Contains(string(first.Data), `"result":"done"`) {
			t.Errorf("tasks: %s then %s", first.Data, again.Data)
		}
		// No group, both, or too large a list.
		e.fails(422, "VALIDATION", e.call(k, "POST", "/groups/tasks", map[string]any{"title": "x"}))
		e.fails(422, "VALIDATION", e.call(k, "POST", "/groups/tasks", map[string]any{"title": "x", "tag": f.tag.Name, "traineeIds": []string{other.ID}}))
	})
}

// One change over a trainee's days: every planned session between from and
// to loses the exercise for the replacement, by their names, and the
// answer warns where the replacement was there already.
func TestSwapExerciseOverDays(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("swp")
		tp := "/trainees/" + f.trainee.ID
		e.ok(201, e.call(f.key, "POST", tp+"/sessions", map[string]any{"date": AddDays(today(), 2), "sport": "strength", "title": "Legs",
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}, {"exerciseId": "leg-press", "sets": 3, "reps": 10}}}))
		e.ok(201, e.call(f.key, "POST", tp+"/sessions", map[string]any{"date": AddDays(today(), 20), "sport": "strength", "title": "Later",
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}}}))
		var got struct {
			Summary string
			Changed []struct{ SessionID, Date, Warning string }
		}
		a := e.ok(200, e.call(f.key, "POST", "/trainees/Dana/sessions/swap", map[string]any{"exerciseId": "back squat", "replacementId": "לג פרס", "from": today(), "to": AddDays(today(), 6)}))
		a.into(t, &got)
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
		e.ok(200, e.call(f.key, "GET", tp+"/sessions?status=planned", nil)).into(t, &rows)
		for _, r := range rows.Items {
			if r.Date == AddDays(today(), 20) {
				later.Exercises = r.Exercises
			}
		}
		if len(later.Exercises) != 1 || !strings.HasPrefix(later.Exercises[0], "Back squat") {
			t.Errorf("a session after to changed: %v", later.Exercises)
		}
		e.fails(422, "VALIDATION", e.call(f.key, "POST", tp+"/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "back squat", "from": today(), "to": today()}))
		e.fails(422, "VALIDATION", e.call(f.key, "POST", tp+"/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "leg-press", "from": today(), "to": AddDays(today(), 200)}))
	})
}

// A drafted message is the studio's language, a wa.me link to the
// trainee's number with the text, audited, and sent to no one.
func TestDraftMessage(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("msg")
		before := len(e.notifications(f.studio.ID))
		var d struct {
			Language, Text, Link string
			Sent                 bool
		}
		e.ok(200, e.call(f.key, "POST", "/trainees/Dana/message-drafts", map[string]any{"purpose": "payment_due"})).into(t, &d)
		if d.Sent || !strings.HasPrefix(d.Link, "https://wa.me/972501234567?text=") || !strings.Contains(d.Text, "Dana") || !strings.Contains(d.Link, "%20") {
			t.Errorf("draft: %+v", d)
		}
		e.ok(200, e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/message-drafts", map[string]any{"purpose": "custom", "text": "שלום & להתראות?"})).into(t, &d)
		if !strings.HasSuffix(d.Link, "?text=%D7%A9%D7%9C%D7%95%D7%9D%20%26%20%D7%9C%D7%94%D7%AA%D7%A8%D7%90%D7%95%D7%AA%3F") {
			t.Errorf("custom link: %s", d.Link)
		}
		e.fails(422, "VALIDATION", e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/message-drafts", map[string]any{"purpose": "custom"}))
		if after := len(e.notifications(f.studio.ID)); after != before {
			t.Errorf("a draft reached the outbox: %d then %d", before, after)
		}
		e.audit.Flush()
		l, _ := st.ListAudit(context.Background(), f.studio.ID, store.Page{Limit: 200})
		audited := false
		for _, ev := range l.Items {
			audited = audited || ev.Route == "POST /v1/automation/trainees/{id}/message-drafts" && ev.ResourceID == f.trainee.ID
		}
		if !audited {
			t.Error("the draft was not audited")
		}
	})
}

package roster_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas/roster"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// Writes with notify false, or absent where absent means silent, leave the
// outbox untouched; notify true writes exactly the rows asked for, with the
// request's source.
func TestOutboxOnlyWhatWasAskedFor(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		// The lane's clock steps a millisecond between readings, so the
		// newest row is unambiguous without sleeping.
		e := lanetest.New(t, st, kit.Options{Now: storetest.StepClock()})
		f := e.Seed("outbox") // the seed itself notifies no one
		k, tp := f.Key, "/trainees/"+f.Trainee.ID
		if n := e.Notifications(f.Studio.ID); len(n) != 0 {
			t.Fatalf("seeding wrote outbox rows: %+v", n)
		}

		silent := []struct {
			method, path string
			body         any
		}{
			{"POST", "/trainees", map[string]any{"firstName": "S", "lastName": "One", "phone": "0541230001", "productId": f.Product.ID}},
			{"POST", "/trainees", map[string]any{"firstName": "S", "lastName": "Two", "phone": "0541230002", "notify": false, "sendWhatsappInvite": false}},
			{"POST", tp + "/subscription", map[string]any{"productId": f.Product.ID}},
			{"POST", tp + "/subscription", map[string]any{"productId": f.Product.ID, "notify": false}},
			{"POST", tp + "/programs/assign", map[string]any{"templateId": f.Template.ID}},
			{"POST", tp + "/programs/assign", map[string]any{"templateId": f.Template.ID, "notify": false, "replaceExisting": false}},
			{"POST", tp + "/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false}},
			{"POST", "/tasks", map[string]any{"title": "Silent", "clientId": f.Trainee.ID}},
			{"PATCH", tp, map[string]any{"goal": "quiet"}},
			{"POST", tp + "/weights", map[string]any{"weightKg": 70}},
			{"POST", "/subscriptions/" + f.Subscription.ID + "/cancel", nil},
		}
		for _, p := range silent {
			a := e.Call(k, p.method, p.path, p.body, "X-Perform-Source", "mcp")
			if !a.OK {
				t.Fatalf("%s %s: %s", p.method, p.path, a.Raw)
			}
		}
		if n := e.Notifications(f.Studio.ID); len(n) != 0 {
			t.Fatalf("silent writes reached the outbox: %+v", n)
		}

		// A form with notify omitted waits for the announcer; the request writes nothing.
		var pending domain.FormAssignment
		e.OK(201, e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID})).Into(t, &pending)
		if n := e.Notifications(f.Studio.ID); len(n) != 0 {
			t.Fatalf("a form with notify omitted was announced by the request: %+v", n)
		}

		// notify true: exactly the rows asked for, with the source.
		var loud struct {
			domain.Trainee
		}
		e.OK(201, e.CallAs("agent", k, "POST", "/trainees", map[string]any{"firstName": "L", "lastName": "Oud", "phone": "0541230003", "notify": true, "sendWhatsappInvite": true})).Into(t, &loud)
		e.OK(201, e.CallAs("mcp", k, "POST", tp+"/subscription", map[string]any{"productId": f.Product.ID, "notify": true}))
		e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.Template.ID, "notify": true}))
		e.OK(201, e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": true}))
		e.OK(201, e.Call(k, "POST", tp+"/messages", map[string]any{"text": "See you Monday"}))
		e.OK(201, e.Call(k, "POST", tp+"/whatsapp-invite", nil))

		var got []string
		for _, n := range e.Notifications(f.Studio.ID) {
			got = append(got, n.Kind+"/"+n.Source+"/"+map[bool]string{true: "new", false: "seeded"}[n.TraineeID == loud.ID])
		}
		slices.Sort(got)
		want := []string{
			"form_assigned/api/seeded", "message/api/seeded", "plan_assigned/mcp/seeded", "program_assigned/api/seeded",
			"welcome/agent/new", "whatsapp_invite/agent/new", "whatsapp_invite/api/seeded",
		}
		if !slices.Equal(got, want) {
			t.Errorf("outbox rows:\n got %v\nwant %v", got, want)
		}

		// GET /notifications: newest first, trainee, kind, source, time.
		var notes kit.List[domain.Notification]
		e.OK(200, e.Call(k, "GET", "/notifications?limit=2", nil)).Into(t, &notes)
		if notes.Total != 7 || len(notes.Items) != 2 || notes.Items[0].Kind != domain.NotifyWhatsAppInvite || notes.Items[0].CreatedAt.IsZero() || notes.Items[0].TraineeID != f.Trainee.ID {
			t.Errorf("notifications: %+v", notes)
		}

		// The announcer tells the trainee about the pending form, once, as a job.
		before := len(e.Notifications(f.Studio.ID))
		n, err := roster.AnnounceDueForms(context.Background(), st, time.Now().Add(time.Second))
		if err != nil || n != 1 {
			t.Fatalf("announced %d, err %v", n, err)
		}
		ns := e.Notifications(f.Studio.ID)
		if len(ns) != before+1 || ns[0].Kind != domain.NotifyFormAssigned || ns[0].Source != domain.SourceJob {
			t.Errorf("announcement row: %+v", ns[0])
		}
		if n, err := roster.AnnounceDueForms(context.Background(), st, time.Now().Add(time.Second)); err != nil || n != 0 {
			t.Errorf("second run announced %d, err %v", n, err)
		}
	})
}

// The announcer as River runs it: the periodic job fires on start and the
// worker writes the outbox row.
func TestFormAnnouncerUnderRiver(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		// The lane's clock steps a millisecond between readings, so the
		// newest row is unambiguous without sleeping.
		e := lanetest.New(t, st, kit.Options{Now: storetest.StepClock()})
		f := e.Seed("river")
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID}))

		workers := river.NewWorkers()
		river.AddWorker(workers, &roster.FormAnnouncer{Store: st})
		client, err := jobs.NewClient(st, jobs.Config{Workers: workers, PeriodicJobs: []*river.PeriodicJob{roster.FormAnnouncerPeriodicJob()}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := client.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() {
			stopCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
			defer stop()
			_ = client.Stop(stopCtx)
		}()
		deadline := time.Now().Add(15 * time.Second)
		for {
			ns := e.Notifications(f.Studio.ID)
			if len(ns) == 1 && ns[0].Kind == domain.NotifyFormAssigned && ns[0].Source == domain.SourceJob {
				break
			}
			if len(ns) > 1 || time.Now().After(deadline) {
				t.Fatalf("outbox after the announcer: %+v", ns)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

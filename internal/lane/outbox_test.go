package lane_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/areas/roster"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/jobs"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// Writes with notify false, or absent where absent means silent, leave the
// outbox untouched; notify true writes exactly the rows asked for, with the
// request's source.
func TestOutboxOnlyWhatWasAskedFor(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		// The lane's clock steps a millisecond between readings, so the
		// newest row is unambiguous without sleeping.
		e := newEnv(t, st, envOptions{now: storetest.StepClock()})
		f := e.seed("outbox") // the seed itself notifies no one
		k, tp := f.key, "/trainees/"+f.trainee.ID
		if n := e.notifications(f.studio.ID); len(n) != 0 {
			t.Fatalf("seeding wrote outbox rows: %+v", n)
		}

		silent := []probe{
			{"POST", "/trainees", map[string]any{"firstName": "S", "lastName": "One", "phone": "0541230001", "productId": f.product.ID}},
			{"POST", "/trainees", map[string]any{"firstName": "S", "lastName": "Two", "phone": "0541230002", "notify": false, "sendWhatsappInvite": false}},
			{"POST", tp + "/subscription", map[string]any{"productId": f.product.ID}},
			{"POST", tp + "/subscription", map[string]any{"productId": f.product.ID, "notify": false}},
			{"POST", tp + "/programs/assign", map[string]any{"templateId": f.template.ID}},
			{"POST", tp + "/programs/assign", map[string]any{"templateId": f.template.ID, "notify": false, "replaceExisting": false}},
			{"POST", tp + "/forms/assign", map[string]any{"formTemplateId": f.form.ID, "notify": false}},
			{"POST", "/tasks", map[string]any{"title": "Silent", "clientId": f.trainee.ID}},
			{"PATCH", tp, map[string]any{"goal": "quiet"}},
			{"POST", tp + "/weights", map[string]any{"weightKg": 70}},
			{"POST", "/subscriptions/" + f.subscription.ID + "/cancel", nil},
		}
		for _, p := range silent {
			a := e.call(k, p.method, p.path, p.body, "X-Perform-Source", "mcp")
			if !a.OK {
				t.Fatalf("%s %s: %s", p.method, p.path, a.Raw)
			}
		}
		if n := e.notifications(f.studio.ID); len(n) != 0 {
			t.Fatalf("silent writes reached the outbox: %+v", n)
		}

		// A form with notify omitted waits for the announcer; the request writes nothing.
		var pending domain.FormAssignment
		e.ok(201, e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.form.ID})).into(t, &pending)
		if n := e.notifications(f.studio.ID); len(n) != 0 {
			t.Fatalf("a form with notify omitted was announced by the request: %+v", n)
		}

		// notify true: exactly the rows asked for, with the source.
		var loud struct {
			domain.Trainee
		}
		e.ok(201, e.callAs("agent", k, "POST", "/trainees", map[string]any{"firstName": "L", "lastName": "Oud", "phone": "0541230003", "notify": true, "sendWhatsappInvite": true})).into(t, &loud)
		e.ok(201, e.callAs("mcp", k, "POST", tp+"/subscription", map[string]any{"productId": f.product.ID, "notify": true}))
		e.ok(201, e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": f.template.ID, "notify": true}))
		e.ok(201, e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "notify": true}))
		e.ok(201, e.call(k, "POST", tp+"/messages", map[string]any{"text": "See you Monday"}))
		e.ok(201, e.call(k, "POST", tp+"/whatsapp-invite", nil))

		var got []string
		for _, n := range e.notifications(f.studio.ID) {
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
		var notes list[domain.Notification]
		e.ok(200, e.call(k, "GET", "/notifications?limit=2", nil)).into(t, &notes)
		if notes.Total != 7 || len(notes.Items) != 2 || notes.Items[0].Kind != domain.NotifyWhatsAppInvite || notes.Items[0].CreatedAt.IsZero() || notes.Items[0].TraineeID != f.trainee.ID {
			t.Errorf("notifications: %+v", notes)
		}

		// The announcer tells the trainee about the pending form, once, as a job.
		before := len(e.notifications(f.studio.ID))
		n, err := roster.AnnounceDueForms(context.Background(), st, time.Now().Add(time.Second))
		if err != nil || n != 1 {
			t.Fatalf("announced %d, err %v", n, err)
		}
		ns := e.notifications(f.studio.ID)
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
	eachEngine(t, func(t *testing.T, st store.Store) {
		// The lane's clock steps a millisecond between readings, so the
		// newest row is unambiguous without sleeping.
		e := newEnv(t, st, envOptions{now: storetest.StepClock()})
		f := e.seed("river")
		e.ok(201, e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.form.ID}))

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
			ns := e.notifications(f.studio.ID)
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

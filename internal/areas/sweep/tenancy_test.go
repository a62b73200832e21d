package sweep_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// probe is one request with studio A's key that names studio B's data.
type probe struct {
	method, path string
	body         any
}

// tenancyProbes covers every endpoint that takes an id in its path, and
// every body field that names another row, each given studio B's ids.
func tenancyProbes(a, b kit.Fixture, bOnlyPhone string) []probe {
	at := "/trainees/" + a.Trainee.ID
	bt := "/trainees/" + b.Trainee.ID
	return []probe{
		{"GET", bt, nil},
		{"PATCH", bt, map[string]any{"goal": "taken over"}},
		{"DELETE", bt, nil},
		{"GET", bt + "/programs", nil},
		{"GET", bt + "/form-responses", nil},
		{"GET", bt + "/weights", nil},
		{"GET", bt + "/subscriptions", nil},
		{"GET", bt + "/overview", nil},
		{"GET", bt + "/debrief", nil},
		{"GET", bt + "/insights", nil},
		{"POST", bt + "/subscription", map[string]any{"productId": a.Product.ID}},
		{"POST", bt + "/programs/assign", map[string]any{"templateId": a.Template.ID}},
		{"POST", bt + "/forms/assign", map[string]any{"formTemplateId": a.Form.ID, "notify": true}},
		{"POST", bt + "/form-responses", map[string]any{"formTemplateId": a.Form.ID, "answers": map[string]any{"sleep": 1}}},
		{"POST", bt + "/weights", map[string]any{"weightKg": 70}},
		{"POST", bt + "/messages", map[string]any{"text": "hello"}},
		{"POST", bt + "/whatsapp-invite", nil},
		{"POST", bt + "/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "leg-press", "from": kit.Today(), "to": kit.Today()}},
		{"POST", bt + "/message-drafts", map[string]any{"purpose": "payment_due"}},
		{"GET", bt + "/billing", nil},
		{"POST", bt + "/payments", map[string]any{"amount": 10, "method": "cash"}},
		{"POST", "/payments/" + b.Payment.ID + "/refund", nil},
		{"GET", "/trainees/Only%20InB", nil}, // another studio's trainee by name
		{"POST", at + "/subscription", map[string]any{"productId": b.Product.Name}},
		{"GET", "/trainees/by-phone/" + bOnlyPhone, nil},
		{"POST", "/subscriptions/" + b.Subscription.ID + "/freeze", nil},
		{"POST", "/subscriptions/" + b.Subscription.ID + "/cancel", nil},
		{"PATCH", "/products/" + b.Product.ID, map[string]any{"name": "taken over"}},
		{"PATCH", "/coaches/" + b.Coach.ID, map[string]any{"name": "taken over"}},
		{"GET", "/coaches/" + b.Coach.ID + "/digest", nil},
		{"PUT", "/coaches/" + b.Coach.ID + "/digest", map[string]any{"enabled": true, "hour": 5}},
		{"DELETE", "/tags/" + b.Tag.ID, nil},
		{"PATCH", "/tasks/" + b.Task.ID, map[string]any{"status": "done"}},
		{"PATCH", "/keys/" + b.KeyID, map[string]any{"remove": []string{"studio:admin"}}},
		{"DELETE", "/keys/" + b.KeyID, nil},
		{"GET", "/exercises/" + b.Exercise.ID, nil},
		{"GET", "/program-templates/" + b.Template.ID, nil},
		{"PUT", "/program-templates/" + b.Template.ID + "/structure", map[string]any{"phases": []map[string]any{{"name": "Base", "weeks": []map[string]any{{"days": []any{}}}}}}},
		{"GET", bt + "/programs/active", nil},
		{"GET", bt + "/sessions", nil},
		{"POST", bt + "/sessions", map[string]any{"date": kit.Today(), "sport": "strength"}},
		{"POST", bt + "/workouts", map[string]any{"sport": "running", "durationMin": 30}},
		{"GET", "/sessions/" + b.Session.ID, nil},
		{"PATCH", "/sessions/" + b.Session.ID, map[string]any{"notes": "taken over"}},
		{"POST", "/sessions/" + b.Session.ID + "/modify", map[string]any{"operation": "reduce_volume", "percent": 20}},
		{"GET", "/plan-drafts/" + b.Draft.ID, nil},
		{"POST", "/plan-drafts/" + b.Draft.ID + "/apply", nil},
		{"POST", "/trainees/" + b.Trainee.ID + "/plan-drafts", map[string]any{"days": []int{1, 3}}},
		{"GET", bt + "/benchmarks", nil},
		{"POST", bt + "/benchmarks", map[string]any{"name": "Max pull-ups", "value": 20}},
		{"GET", "/benchmarks/" + b.Benchmark.ID, nil},
		{"GET", bt + "/measurements", nil},
		{"POST", bt + "/measurements", map[string]any{"waistCm": 80}},
		{"GET", bt + "/body-analysis", nil},
		{"GET", bt + "/check-ins", nil},
		{"POST", bt + "/check-ins", map[string]any{"readiness": 5}},
		{"GET", bt + "/injuries", nil},
		{"POST", bt + "/injuries", map[string]any{"area": "knee", "severity": 2}},
		{"PATCH", "/injuries/" + b.Injury.ID, map[string]any{"severity": 1}},
		{"GET", bt + "/goals", nil},
		{"POST", bt + "/goals", map[string]any{"title": "x", "kind": "text"}},
		{"PATCH", "/goals/" + b.Goal.ID, map[string]any{"status": "abandoned"}},
		{"GET", bt + "/training-profile", nil},
		{"PUT", bt + "/training-profile", map[string]any{"units": "imperial"}},
		{"PATCH", bt + "/training-profile", map[string]any{"units": "imperial"}},
		{"POST", bt + "/goals/manage", map[string]any{"action": "list"}},
		{"POST", bt + "/feedback", map[string]any{"text": "taken over"}},
		{"POST", bt + "/withdraw", map[string]any{"recordId": b.Weight.ID}},
		// B's fresh weigh-in through A's own trainee.
		{"POST", at + "/withdraw", map[string]any{"recordId": b.Weight.ID}},
		{"GET", bt + "/plan", nil},
		{"GET", bt + "/forms", nil},
		{"GET", "/programs/" + b.Program.ID, nil},
		// B's goal through A's own trainee.
		{"POST", at + "/goals/manage", map[string]any{"action": "complete", "goalId": b.Goal.ID}},
		// Ids of B inside A's writes.
		{"POST", "/trainees", map[string]any{"firstName": "X", "lastName": "Y", "phone": "0549990001", "coachIds": []string{b.Coach.ID}}},
		{"POST", "/trainees", map[string]any{"firstName": "X", "lastName": "Y", "phone": "0549990002", "productId": b.Product.ID}},
		{"PATCH", at, map[string]any{"coachIds": []string{b.Coach.ID}}},
		{"POST", at + "/subscription", map[string]any{"productId": b.Product.ID}},
		{"POST", at + "/programs/assign", map[string]any{"templateId": b.Template.ID}},
		{"POST", at + "/forms/assign", map[string]any{"formTemplateId": b.Form.ID}},
		{"POST", at + "/form-responses", map[string]any{"formTemplateId": b.Form.ID, "answers": map[string]any{"sleep": 1}}},
		{"POST", at + "/form-responses", map[string]any{"assignmentId": b.Assignment.ID, "answers": map[string]any{"sleep": 1}}},
		{"POST", "/tasks", map[string]any{"title": "x", "clientId": b.Trainee.ID}},
		{"POST", "/tasks", map[string]any{"title": "x", "coachId": b.Coach.ID}},
		{"POST", "/exercises", map[string]any{"name": "Mine", "category": "strength", "primaryMuscles": []string{"glutes"}, "equipment": []string{"none"}, "measure": "reps", "loadsAreas": []string{"hip"}, "alternatives": []string{b.Exercise.ID}}},
		{"POST", at + "/workouts", map[string]any{"sessionId": b.Session.ID}},
		{"POST", at + "/benchmarks", map[string]any{"benchmarkId": b.Benchmark.ID, "value": 20}},
		// Appointments.
		{"GET", "/appointments/" + b.Appointment.ID, nil},
		{"POST", "/appointments/" + b.Appointment.ID + "/cancel", nil},
		{"POST", "/appointments/" + b.Appointment.ID + "/mark", map[string]any{"status": "no_show"}},
		{"POST", "/appointments/" + b.Appointment.ID + "/move", map[string]any{"slotId": a.Slot.ID}},
		{"POST", "/appointments/" + a.Appointment.ID + "/move", map[string]any{"slotId": b.Slot.ID}},
		{"GET", bt + "/appointments", nil},
		{"POST", bt + "/appointments", map[string]any{"slotId": a.Slot.ID}},
		{"POST", at + "/appointments", map[string]any{"slotId": b.Slot.ID}},
		{"POST", at + "/appointments", map[string]any{"coachId": b.Coach.ID, "day": "tomorrow", "time": "10:00"}},
		{"GET", "/coaches/" + b.Coach.ID + "/hours", nil},
		{"PUT", "/coaches/" + b.Coach.ID + "/hours", map[string]any{"hours": []map[string]any{{"day": "monday", "from": "08:00", "to": "12:00"}}}},
		{"POST", "/coaches/" + b.Coach.ID + "/calendar-feed", nil},
		{"DELETE", "/coaches/" + b.Coach.ID + "/calendar-feed", nil},
		{"POST", "/appointment-slots", map[string]any{"coachId": b.Coach.ID, "day": "tomorrow", "time": "10:00"}},
		{"GET", "/products/" + b.Product.ID + "/payment-link", nil},
		{"PUT", "/products/" + b.Product.ID + "/payment-link", map[string]any{"url": "https://buy.stripe.com/taken_over"}},
		{"DELETE", "/products/" + b.Product.ID + "/payment-link", nil},
		// B's unmatched payment event (addPaymentEvent), matched to A's trainee.
		{"POST", "/payment-events/" + bPaymentEvent + "/match", map[string]any{"traineeId": a.Trainee.ID}},
	}
}

// bPaymentEvent is the unmatched payment event TestTenancy gives studio B.
const bPaymentEvent = "pev_0000000000000000000000000b"

// addPaymentEvent keeps an unmatched event of a processor's webhook in
// studio B, as the webhook would (internal/areas/payhook).
func addPaymentEvent(t *testing.T, st store.Store, b kit.Fixture) {
	t.Helper()
	now := time.Now()
	e := store.PaymentEvent{ID: bPaymentEvent, StudioID: b.Studio.ID, Processor: "stripe", EventID: "evt_tenancy", Type: "invoice.paid", ObjectID: "in_tenancy",
		ExternalID: "in_tenancy", AmountMinor: 35000, Currency: "ILS", Outcome: store.PaymentEventUnmatched, OccurredAt: now, ReceivedAt: now}
	if kept, err := st.PaymentHooks().AddPaymentEvent(context.Background(), &e); err != nil || !kept {
		t.Fatalf("B's payment event: %v, %v", kept, err)
	}
}

// listProbes read lists filtered by B's ids: they answer, with nothing of B.
// filterProbes filter A's lists by B's ids and tag: not found, like any
// other id of B.
func filterProbes(b kit.Fixture) []probe {
	return []probe{
		{"GET", "/trainees/search?coachId=" + b.Coach.ID, nil},
		{"GET", "/trainees/search?tag=" + url.QueryEscape(b.Tag.Name), nil},
		{"GET", "/tasks?clientId=" + b.Trainee.ID, nil},
		{"GET", "/tasks?coachId=" + b.Coach.ID, nil},
		{"GET", "/feedback?traineeId=" + b.Trainee.ID, nil},
		{"GET", "/payments?traineeId=" + b.Trainee.ID, nil},
		{"GET", "/charges?traineeId=" + b.Trainee.ID, nil},
		{"GET", "/appointments?coachId=" + b.Coach.ID, nil},
		{"GET", "/appointments?traineeId=" + b.Trainee.ID, nil},
		{"GET", "/appointment-slots?coachId=" + b.Coach.ID, nil},
	}
}

func listProbes(b kit.Fixture) []probe {
	return []probe{
		{"GET", "/trainees/search?q=" + url.QueryEscape(strings.ToLower(b.Trainee.LastName)), nil},
		{"GET", "/products?search=" + url.QueryEscape(strings.ToLower(b.Product.Name)), nil},
		{"GET", "/program-templates", nil},
		{"GET", "/forms", nil},
		{"GET", "/rpc/coaches", nil},
		{"GET", "/rpc/tags", nil},
		{"GET", "/keys", nil},
		{"GET", "/notifications", nil},
		{"GET", "/payments", nil},
		{"GET", "/charges", nil},
	}
}

// secretsOf are strings only studio B's data contains.
func secretsOf(b kit.Fixture) []string {
	return []string{b.Trainee.LastName, b.Coach.Name, b.Product.Name, b.Template.Name, b.Form.Name, b.Tag.Name,
		b.Studio.ID, b.KeyID, b.Subscription.ID, b.Program.ID, b.Assignment.ID, b.Response.ID, b.Weight.ID, b.Task.ID, b.Exercise.ID, b.Exercise.Name, b.Session.ID, b.Benchmark.ID, b.Session.Title, b.Injury.ID, b.Goal.ID, b.Payment.ID}
}

// check runs one probe and explains what is wrong, or "".
func check(e *kit.Env, key string, p probe, wantStatus int, secrets []string) string {
	a, err := e.Try(key, p.method, p.path, p.body)
	if err != nil {
		return err.Error()
	}
	if a.Status != wantStatus || (wantStatus == 404 && a.Code() != "NOT_FOUND") {
		return fmt.Sprintf("%s %s: want %d, got %d %s", p.method, p.path, wantStatus, a.Status, a.Raw)
	}
	// The answer may repeat the id the caller sent, nothing else of B.
	sent, _ := json.Marshal(p.body)
	for _, s := range secrets {
		if strings.Contains(a.Raw, s) && !strings.Contains(p.path, s) && !strings.Contains(string(sent), s) {
			return fmt.Sprintf("%s %s: the answer leaks %q: %s", p.method, p.path, s, a.Raw)
		}
	}
	return ""
}

func TestTenancy(t *testing.T) {
	kit.EachSweepEngine(t, kit.ConcurrentEngines, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		a := e.Seed("tena")
		b := e.Seed("tenb")
		var bOnly domain.Trainee
		e.OK(201, e.Call(b.Key, "POST", "/trainees", map[string]any{"firstName": "Only", "lastName": "InB", "phone": "053-333-3333"})).Into(t, &bOnly)
		addPaymentEvent(t, st, b)
		bNotes := len(e.Notifications(b.Studio.ID))
		secrets := append(secretsOf(b), bOnly.ID, "InB")

		probes := tenancyProbes(a, b, "053-333-3333")
		assertCoversEveryIDRoute(t, e.Lane, probes)

		t.Run("sequential", func(t *testing.T) {
			for _, p := range append(probes, filterProbes(b)...) {
				if msg := check(e, a.Key, p, 404, secrets); msg != "" {
					t.Error(msg)
				}
			}
			for _, p := range listProbes(b) {
				if msg := check(e, a.Key, p, 200, secrets); msg != "" {
					t.Error(msg)
				}
			}
		})

		t.Run("64 concurrent clients", func(t *testing.T) {
			notFound := append(tenancyProbes(a, b, "053-333-3333"), filterProbes(b)...)
			all := append(notFound, listProbes(b)...)
			var wg sync.WaitGroup
			errs := make(chan string, 64*len(all))
			for c := range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range all {
						p := all[(i+c)%len(all)] // each client in its own order
						want := 404
						if (i+c)%len(all) >= len(notFound) {
							want = 200
						}
						if msg := check(e, a.Key, p, want, secrets); msg != "" {
							errs <- msg
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			n := 0
			for msg := range errs {
				if n++; n <= 10 {
					t.Error(msg)
				}
			}
		})

		// B is untouched: its data, its key, its outbox.
		var got domain.Trainee
		e.OK(200, e.Call(b.Key, "GET", "/trainees/"+b.Trainee.ID, nil)).Into(t, &got)
		if got.Goal != nil || len(got.CoachIDs) != 1 {
			t.Errorf("B's trainee changed: %+v", got)
		}
		var subs kit.List[domain.Subscription]
		e.OK(200, e.Call(b.Key, "GET", "/trainees/"+b.Trainee.ID+"/subscriptions", nil)).Into(t, &subs)
		if subs.Total != 1 || subs.Items[0].Status != "live" {
			t.Errorf("B's plan changed: %+v", subs)
		}
		var tags kit.List[domain.Tag]
		e.OK(200, e.Call(b.Key, "GET", "/rpc/tags", nil)).Into(t, &tags)
		if tags.Total != 1 {
			t.Errorf("B's tag was deleted")
		}
		if n := len(e.Notifications(b.Studio.ID)); n != bNotes {
			t.Errorf("B's outbox grew from %d to %d", bNotes, n)
		}
		if p, err := st.Studio(b.Studio.ID).GetProduct(context.Background(), b.Product.ID); err != nil || p.Name != b.Product.Name {
			t.Errorf("B's product changed: %+v %v", p, err)
		}
	})
}

// assertCoversEveryIDRoute fails when an endpoint with an {id} in its path
// has no tenancy probe, so a new endpoint cannot skip the test.
func assertCoversEveryIDRoute(r reporter, l *lane.Lane, probes []probe) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(l.OpenAPI(), &doc); err != nil {
		r.Errorf("the OpenAPI document: %v", err)
		return
	}
	for path, ops := range doc.Paths {
		if !strings.Contains(path, "{") {
			continue
		}
		for method := range ops {
			covered := false
			for _, p := range probes {
				if strings.EqualFold(p.method, method) && matches(path, p.path) {
					covered = true
				}
			}
			if !covered {
				r.Errorf("no tenancy probe for %s %s", strings.ToUpper(method), path)
			}
		}
	}
}

// matches reports whether a concrete path fits a pattern with {wildcards}.
func matches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if !strings.HasPrefix(ps[i], "{") && ps[i] != xs[i] {
			return false
		}
	}
	return true
}

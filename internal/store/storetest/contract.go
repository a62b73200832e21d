package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// Run is the contract every engine passes. open is called once; each
// subtest works in studios of its own, so they share the database the way
// studios do in production.
func Run(t *testing.T, open Opener) {
	t.Run("Clock", func(t *testing.T) { testClock(t, open) })
	st := open(t, store.WithClock(StepClock()))
	tests := []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"Studios", testStudios},
		{"APIKeys", testAPIKeys},
		{"CredentialsEpoch", testCredentialsEpoch},
		{"APIKeyScopes", testAPIKeyScopes},
		{"Audit", testAudit},
		{"Coaches", testCoaches},
		{"Tags", testTags},
		{"Trainees", testTrainees},
		{"TraineeSearch", testTraineeSearch},
		{"TraineeSearchWords", testTraineeSearchWords},
		{"TraineeSearchSounds", testTraineeSearchSounds},
		{"DeleteTraineeCascades", testDeleteTraineeCascades},
		{"Products", testProducts},
		{"Subscriptions", testSubscriptions},
		{"Programs", testPrograms},
		{"Forms", testForms},
		{"DueForms", testDueForms},
		{"Weights", testWeights},
		{"Tasks", testTasks},
		{"Notifications", testNotifications},
		{"Transactions", testTransactions},
		{"Tenancy", testTenancy},
		{"Idempotency", testIdempotency},
		{"PlanLimits", testPlanLimits},
		{"Agent", testAgent},
		{"AgentProposals", testAgentProposals},
		{"OAuth", testOAuth},
		{"Exercises", testExercises},
		{"Login", testLogin},
		{"Codes", testCodes},
		{"Sessions", testSessions},
		{"Health", testHealth},
		{"Roster", testRoster},
		{"LastCompleted", testLastCompleted},
		{"Text", testText},
		{"TraineeVoice", testTraineeVoice},
		{"PlanInputs", testPlanInputs},
		{"ModelBudget", testModelBudget},
		{"Withdraw", testWithdraw},
		{"Appointments", testAppointments},
		{"AppointmentRaces", testAppointmentRaces},
		{"Credits", testCredits},
		{"Billing", testBilling},
		{"PaymentHooks", testPaymentHooks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, st) })
	}
}

// Helpers.

var ctx = context.Background()

func newStudio(t *testing.T, st store.Store) domain.Studio {
	t.Helper()
	s := domain.Studio{Name: "Studio " + randomHex(3), Slug: "s-" + randomHex(6)}
	if err := st.CreateStudio(ctx, &s); err != nil {
		t.Fatalf("CreateStudio: %v", err)
	}
	return s
}

// newPhone returns a random Israeli mobile number (+97258…, a prefix the
// fixed numbers of these tests do not use).
func newPhone() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	n := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) % 10_000_000
	return fmt.Sprintf("+97258%07d", n)
}

func newTrainee(t *testing.T, ss store.StudioStore, first, last string) domain.Trainee {
	t.Helper()
	tr := domain.Trainee{FirstName: first, LastName: last, Phone: newPhone()}
	if err := ss.CreateTrainee(ctx, &tr); err != nil {
		t.Fatalf("CreateTrainee %s %s: %v", first, last, err)
	}
	return tr
}

func ptr[T any](v T) *T { return &v }

func mustNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: got %v, want ErrNotFound", what, err)
	}
}

func mustConflict(t *testing.T, what string, err error, existingID string) {
	t.Helper()
	var ce *store.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: got %v, want a ConflictError", what, err)
	}
	if existingID != "" && ce.ExistingID != existingID {
		t.Fatalf("%s: conflict names %q, want %q", what, ce.ExistingID, existingID)
	}
	if ce.Message == "" {
		t.Fatalf("%s: conflict has no message", what)
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func page(limit, offset int) store.Page { return store.Page{Limit: limit, Offset: offset} }

func sameTime(a, b time.Time) bool { return a.UnixMilli() == b.UnixMilli() }

// world is one of each row, all tied to one trainee.
type world struct {
	coach      domain.Coach
	tag        domain.Tag
	trainee    domain.Trainee
	product    domain.Product
	sub        domain.Subscription
	template   domain.ProgramTemplate
	program    domain.Program
	form       domain.FormTemplate
	assignment domain.FormAssignment
	response   domain.FormResponse
	weight     domain.Weight
	task       domain.Task
	note       domain.Notification
}

func seedWorld(t *testing.T, ss store.StudioStore) world {
	t.Helper()
	var w world
	w.coach = domain.Coach{Name: "Coach " + randomHex(2), Phone: ptr(newPhone()), Active: true}
	must(t, "CreateCoach", ss.CreateCoach(ctx, &w.coach))
	w.tag = domain.Tag{Name: "tag-" + randomHex(3)}
	must(t, "CreateTag", ss.CreateTag(ctx, &w.tag))
	w.trainee = domain.Trainee{FirstName: "World", LastName: "Trainee", Phone: newPhone(), Tags: []string{w.tag.Name}, CoachIDs: []string{w.coach.ID}}
	must(t, "CreateTrainee", ss.CreateTrainee(ctx, &w.trainee))
	w.product = domain.Product{Name: "Monthly", Price: &money.Money{Minor: 34990, Currency: "ILS"}, Currency: "ILS", DurationDays: ptr(30), Active: true}
	must(t, "CreateProduct", ss.CreateProduct(ctx, &w.product))
	w.sub = domain.Subscription{TraineeID: w.trainee.ID, ProductID: w.product.ID, StartedOn: "2026-01-01", EndsOn: ptr("2026-01-30"), Price: &money.Money{Minor: 34990, Currency: "ILS"}}
	must(t, "CreateSubscription", ss.CreateSubscription(ctx, &w.sub))
	w.template = domain.ProgramTemplate{Name: "Strength", Weeks: ptr(8)}
	must(t, "CreateProgramTemplate", ss.CreateProgramTemplate(ctx, &w.template))
	w.program = domain.Program{TraineeID: w.trainee.ID, TemplateID: w.template.ID, StartsOn: "2026-01-02"}
	must(t, "CreateProgram", ss.CreateProgram(ctx, &w.program))
	w.form = domain.FormTemplate{Name: "Check-in", Fields: []domain.FormField{{Key: "sleep", Label: "Sleep", Type: "scale"}}}
	must(t, "CreateFormTemplate", ss.CreateFormTemplate(ctx, &w.form))
	w.assignment = domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, Notify: ptr(false)}
	must(t, "CreateFormAssignment", ss.CreateFormAssignment(ctx, &w.assignment))
	w.response = domain.FormResponse{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, AssignmentID: &w.assignment.ID, Answers: json.RawMessage(`{"sleep":4}`)}
	must(t, "CreateFormResponse", ss.CreateFormResponse(ctx, &w.response))
	w.weight = domain.Weight{TraineeID: w.trainee.ID, WeightKg: 70.5}
	must(t, "CreateWeight", ss.CreateWeight(ctx, &w.weight))
	w.task = domain.Task{Title: "Call", ClientID: &w.trainee.ID, CoachID: &w.coach.ID, Priority: 2}
	must(t, "CreateTask", ss.CreateTask(ctx, &w.task))
	w.note = domain.Notification{TraineeID: w.trainee.ID, Kind: domain.NotifyWelcome, Source: domain.SourceAPI}
	must(t, "AddNotification", ss.AddNotification(ctx, &w.note))
	return w
}

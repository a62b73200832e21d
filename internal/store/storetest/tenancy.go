package storetest

import (
	"slices"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// testTenancy gives studio A's store every id of studio B: each read and
// write answers not found, and no list of A holds anything of B's.
func testTenancy(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	sa := st.Studio(a.ID)
	wa := seedWorld(t, sa)
	wb := seedWorld(t, st.Studio(b.ID))

	reads := map[string]func() error{
		"GetCoach":             func() error { _, err := sa.GetCoach(ctx, wb.coach.ID); return err },
		"GetTrainee":           func() error { _, err := sa.GetTrainee(ctx, wb.trainee.ID); return err },
		"TraineeByPhone":       func() error { _, err := sa.TraineeByPhone(ctx, wb.trainee.Phone); return err },
		"GetProduct":           func() error { _, err := sa.GetProduct(ctx, wb.product.ID); return err },
		"ListSubscriptions":    func() error { _, err := sa.ListSubscriptions(ctx, wb.trainee.ID); return err },
		"GetSubscription":      func() error { _, err := sa.GetSubscription(ctx, wb.sub.ID); return err },
		"GetProgramTemplate":   func() error { _, err := sa.GetProgramTemplate(ctx, wb.template.ID); return err },
		"ListPrograms":         func() error { _, err := sa.ListPrograms(ctx, wb.trainee.ID); return err },
		"GetFormTemplate":      func() error { _, err := sa.GetFormTemplate(ctx, wb.form.ID); return err },
		"GetFormAssignment":    func() error { _, err := sa.GetFormAssignment(ctx, wb.assignment.ID); return err },
		"ListFormResponses":    func() error { _, err := sa.ListFormResponses(ctx, wb.trainee.ID, page(10, 0)); return err },
		"ListWeights":          func() error { _, err := sa.ListWeights(ctx, wb.trainee.ID, page(10, 0)); return err },
		"GetTask":              func() error { _, err := sa.GetTask(ctx, wb.task.ID); return err },
		"UpdateCoach":          func() error { c := wb.coach; c.Name = "x"; return sa.UpdateCoach(ctx, &c) },
		"DeleteTag":            func() error { return sa.DeleteTag(ctx, wb.tag.ID) },
		"UpdateTrainee":        func() error { tr := wb.trainee; tr.FirstName = "x"; return sa.UpdateTrainee(ctx, &tr) },
		"DeleteTrainee":        func() error { return sa.DeleteTrainee(ctx, wb.trainee.ID) },
		"UpdateProduct":        func() error { p := wb.product; p.Name = "x"; return sa.UpdateProduct(ctx, &p) },
		"SetSubscriptionState": func() error { return sa.SetSubscriptionState(ctx, wb.sub.ID, domain.SubCancelled) },
		"CreateSubscription": func() error {
			return sa.CreateSubscription(ctx, &domain.Subscription{TraineeID: wb.trainee.ID, ProductID: wb.product.ID, StartedOn: "2026-01-01"})
		},
		"CreateProgram": func() error {
			return sa.CreateProgram(ctx, &domain.Program{TraineeID: wb.trainee.ID, TemplateID: wb.template.ID, StartsOn: "2026-01-01"})
		},
		"ReplaceActivePrograms": func() error { return sa.ReplaceActivePrograms(ctx, wb.trainee.ID) },
		"CreateFormAssignment": func() error {
			return sa.CreateFormAssignment(ctx, &domain.FormAssignment{TraineeID: wb.trainee.ID, FormTemplateID: wb.form.ID})
		},
		"CreateFormResponse": func() error {
			return sa.CreateFormResponse(ctx, &domain.FormResponse{TraineeID: wb.trainee.ID, FormTemplateID: wb.form.ID})
		},
		"CreateWeight": func() error { return sa.CreateWeight(ctx, &domain.Weight{TraineeID: wb.trainee.ID, WeightKg: 1}) },
		"CreateTask":   func() error { return sa.CreateTask(ctx, &domain.Task{Title: "x", ClientID: &wb.trainee.ID}) },
		"UpdateTask":   func() error { k := wb.task; k.Title = "x"; return sa.UpdateTask(ctx, &k) },
		"AddNotification": func() error {
			return sa.AddNotification(ctx, &domain.Notification{TraineeID: wb.trainee.ID, Kind: "message", Source: "api"})
		},
		"CreateTrainee with B's coach": func() error {
			return sa.CreateTrainee(ctx, &domain.Trainee{FirstName: "x", LastName: "y", Phone: newPhone(), CoachIDs: []string{wb.coach.ID}})
		},
	}
	for name, call := range reads {
		mustNotFound(t, name+" with studio B's id", call())
	}

	// B's world is intact.
	sb := st.Studio(b.ID)
	if tr, err := sb.GetTrainee(ctx, wb.trainee.ID); err != nil || tr.FirstName != "World" {
		t.Fatalf("studio B's trainee after A's attempts: %+v, %v", tr, err)
	}
	if sub, err := sb.GetSubscription(ctx, wb.sub.ID); err != nil || sub.Status != "active" {
		t.Fatalf("studio B's subscription after A's attempts: %+v, %v", sub, err)
	}
	if k, err := sb.GetTask(ctx, wb.task.ID); err != nil || k.Title != "Call" {
		t.Fatalf("studio B's task after A's attempts: %+v, %v", k, err)
	}

	// A's lists hold only A's rows.
	bIDs := map[string]bool{wb.coach.ID: true, wb.tag.ID: true, wb.trainee.ID: true, wb.product.ID: true, wb.template.ID: true,
		wb.form.ID: true, wb.task.ID: true, wb.note.ID: true}
	check := func(what string, ids []string) {
		t.Helper()
		for _, id := range ids {
			if bIDs[id] {
				t.Fatalf("%s of studio A lists studio B's %s", what, id)
			}
		}
	}
	coaches, _ := sa.ListCoaches(ctx, page(200, 0))
	check("ListCoaches", collect(coaches.Items, func(c domain.Coach) string { return c.ID }))
	tags, _ := sa.ListTags(ctx, page(200, 0))
	check("ListTags", collect(tags.Items, func(c domain.Tag) string { return c.ID }))
	trainees, _ := sa.SearchTrainees(ctx, store.TraineeFilter{Q: "world", Page: page(200, 0)})
	check("SearchTrainees", traineeIDs(trainees.Items))
	if trainees.Total != 1 || trainees.Items[0].ID != wa.trainee.ID {
		t.Fatalf("SearchTrainees(world) in A = %v", traineeIDs(trainees.Items))
	}
	products, _ := sa.ListProducts(ctx, "", page(200, 0))
	check("ListProducts", collect(products.Items, func(c domain.Product) string { return c.ID }))
	templates, _ := sa.ListProgramTemplates(ctx, "", page(200, 0))
	check("ListProgramTemplates", collect(templates.Items, func(c domain.ProgramTemplate) string { return c.ID }))
	forms, _ := sa.ListFormTemplates(ctx, "", page(200, 0))
	check("ListFormTemplates", collect(forms.Items, func(c domain.FormTemplate) string { return c.ID }))
	tasks, _ := sa.ListTasks(ctx, store.TaskFilter{Page: page(200, 0)})
	check("ListTasks", collect(tasks.Items, func(c domain.Task) string { return c.ID }))
	notes, _ := sa.ListNotifications(ctx, page(200, 0))
	check("ListNotifications", collect(notes.Items, func(c domain.Notification) string { return c.ID }))
	byCoach, _ := sa.SearchTrainees(ctx, store.TraineeFilter{CoachID: wb.coach.ID, Page: page(200, 0)})
	byTag, _ := sa.SearchTrainees(ctx, store.TraineeFilter{Tag: wb.tag.Name, Page: page(200, 0)})
	if byCoach.Total != 0 || byTag.Total != 0 {
		t.Fatalf("A's search by B's coach or tag found %d and %d", byCoach.Total, byTag.Total)
	}
	if n, _ := sa.CountActiveTrainees(ctx); n != 1 {
		t.Fatalf("CountActiveTrainees of A = %d, want 1", n)
	}
	if slices.Contains(traineeIDs(trainees.Items), wb.trainee.ID) {
		t.Fatal("unreachable")
	}
}

func collect[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = id(v)
	}
	return out
}

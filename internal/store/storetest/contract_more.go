package storetest

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

func testProducts(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	monthly := domain.Product{Name: "Monthly", Price: ptr(350.0), Currency: "ILS", DurationDays: ptr(30), Active: true}
	open := domain.Product{Name: "Open coaching", Currency: "ILS", Active: true} // per-trainee price, open-ended
	must(t, "CreateProduct", ss.CreateProduct(ctx, &monthly))
	must(t, "CreateProduct open", ss.CreateProduct(ctx, &open))
	got, err := ss.GetProduct(ctx, open.ID)
	must(t, "GetProduct", err)
	if got.Price != nil || got.DurationDays != nil || got.Name != "Open coaching" || !got.Active {
		t.Fatalf("GetProduct(open) = %+v, want nil price and duration", got)
	}
	got, _ = ss.GetProduct(ctx, monthly.ID)
	if *got.Price != 350 || *got.DurationDays != 30 || got.Currency != "ILS" {
		t.Fatalf("GetProduct(monthly) = %+v", got)
	}
	_, err = st.Studio(b.ID).GetProduct(ctx, monthly.ID)
	mustNotFound(t, "GetProduct from another studio", err)

	list, err := ss.ListProducts(ctx, "", page(50, 0))
	must(t, "ListProducts", err)
	if list.Total != 2 || list.Items[0].ID != monthly.ID {
		t.Fatalf("ListProducts = %+v", list)
	}
	list, _ = ss.ListProducts(ctx, "COACH", page(50, 0))
	if list.Total != 1 || list.Items[0].ID != open.ID {
		t.Fatalf("ListProducts(COACH) = %+v", list)
	}
	list, _ = ss.ListProducts(ctx, "_", page(50, 0))
	if list.Total != 0 {
		t.Fatalf("ListProducts(_) matched %d, want the underscore literal", list.Total)
	}
	monthly.Active = false
	monthly.Price = ptr(399.0)
	must(t, "UpdateProduct", ss.UpdateProduct(ctx, &monthly))
	got, _ = ss.GetProduct(ctx, monthly.ID)
	if got.Active || *got.Price != 399 {
		t.Fatalf("after UpdateProduct = %+v", got)
	}
	mustNotFound(t, "UpdateProduct from another studio", st.Studio(b.ID).UpdateProduct(ctx, &monthly))
}

func testSubscriptions(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	if w.sub.ProductName != "Monthly" || w.sub.Currency != "ILS" || w.sub.Status != "active" {
		t.Fatalf("CreateSubscription filled %+v, want the plan's name and currency, state active", w.sub)
	}
	later := domain.Subscription{TraineeID: w.trainee.ID, ProductID: w.product.ID, StartedOn: "2026-01-31", Currency: "USD"}
	must(t, "CreateSubscription open-ended", ss.CreateSubscription(ctx, &later))
	list, err := ss.ListSubscriptions(ctx, w.trainee.ID)
	must(t, "ListSubscriptions", err)
	if len(list) != 2 || list[0].ID != w.sub.ID || list[1].ID != later.ID || list[1].EndsOn != nil || list[1].Price != nil || list[1].Currency != "USD" {
		t.Fatalf("ListSubscriptions = %+v", list)
	}
	if *list[0].EndsOn != "2026-01-30" || *list[0].Price != 350 || list[0].ProductName != "Monthly" {
		t.Fatalf("first subscription = %+v", list[0])
	}
	_, err = ss.ListSubscriptions(ctx, wb.trainee.ID)
	mustNotFound(t, "ListSubscriptions of another studio's trainee", err)

	must(t, "SetSubscriptionState", ss.SetSubscriptionState(ctx, later.ID, domain.SubFrozen))
	got, err := ss.GetSubscription(ctx, later.ID)
	must(t, "GetSubscription", err)
	if got.Status != domain.SubFrozen {
		t.Fatalf("state = %s, want frozen", got.Status)
	}
	mustNotFound(t, "SetSubscriptionState from another studio", st.Studio(b.ID).SetSubscriptionState(ctx, later.ID, domain.SubCancelled))
	_, err = st.Studio(b.ID).GetSubscription(ctx, later.ID)
	mustNotFound(t, "GetSubscription from another studio", err)

	foreignPlan := domain.Subscription{TraineeID: w.trainee.ID, ProductID: wb.product.ID, StartedOn: "2026-02-01"}
	mustNotFound(t, "CreateSubscription with another studio's plan", ss.CreateSubscription(ctx, &foreignPlan))
	foreignTrainee := domain.Subscription{TraineeID: wb.trainee.ID, ProductID: w.product.ID, StartedOn: "2026-02-01"}
	mustNotFound(t, "CreateSubscription for another studio's trainee", ss.CreateSubscription(ctx, &foreignTrainee))
}

func testPrograms(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	mobility := domain.ProgramTemplate{Name: "Mobility", Description: ptr("daily 15 minutes")}
	must(t, "CreateProgramTemplate", ss.CreateProgramTemplate(ctx, &mobility))
	got, err := ss.GetProgramTemplate(ctx, mobility.ID)
	must(t, "GetProgramTemplate", err)
	if got.Name != "Mobility" || *got.Description != "daily 15 minutes" || got.Weeks != nil {
		t.Fatalf("GetProgramTemplate = %+v", got)
	}
	_, err = st.Studio(b.ID).GetProgramTemplate(ctx, mobility.ID)
	mustNotFound(t, "GetProgramTemplate from another studio", err)
	list, err := ss.ListProgramTemplates(ctx, "", page(50, 0))
	must(t, "ListProgramTemplates", err)
	if list.Total != 2 || list.Items[0].ID != mobility.ID || list.Items[1].ID != w.template.ID {
		t.Fatalf("ListProgramTemplates = %+v", list)
	}
	list, _ = ss.ListProgramTemplates(ctx, "streng", page(50, 0))
	if list.Total != 1 || list.Items[0].ID != w.template.ID {
		t.Fatalf("ListProgramTemplates(streng) = %+v", list)
	}

	if w.program.Name != "Strength" || w.program.Status != domain.ProgramActive {
		t.Fatalf("CreateProgram filled %+v, want the template's name, active", w.program)
	}
	must(t, "ReplaceActivePrograms", ss.ReplaceActivePrograms(ctx, w.trainee.ID))
	next := domain.Program{TraineeID: w.trainee.ID, TemplateID: mobility.ID, StartsOn: "2026-03-01"}
	must(t, "CreateProgram", ss.CreateProgram(ctx, &next))
	programs, err := ss.ListPrograms(ctx, w.trainee.ID)
	must(t, "ListPrograms", err)
	if len(programs) != 2 || programs[0].ID != next.ID || programs[0].Status != domain.ProgramActive ||
		programs[1].ID != w.program.ID || programs[1].Status != domain.ProgramReplaced {
		t.Fatalf("ListPrograms = %+v", programs)
	}
	_, err = ss.ListPrograms(ctx, wb.trainee.ID)
	mustNotFound(t, "ListPrograms of another studio's trainee", err)
	mustNotFound(t, "ReplaceActivePrograms of another studio's trainee", ss.ReplaceActivePrograms(ctx, wb.trainee.ID))
	foreign := domain.Program{TraineeID: w.trainee.ID, TemplateID: wb.template.ID, StartsOn: "2026-03-01"}
	mustNotFound(t, "CreateProgram from another studio's template", ss.CreateProgram(ctx, &foreign))
	// Other studio's programs were untouched by the replace above.
	theirs, _ := st.Studio(b.ID).ListPrograms(ctx, wb.trainee.ID)
	if len(theirs) != 1 || theirs[0].Status != domain.ProgramActive {
		t.Fatalf("studio b's programs = %+v", theirs)
	}
}

func testForms(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	got, err := ss.GetFormTemplate(ctx, w.form.ID)
	must(t, "GetFormTemplate", err)
	if got.Name != "Check-in" || len(got.Fields) != 1 || got.Fields[0].Key != "sleep" || got.Fields[0].Type != "scale" {
		t.Fatalf("GetFormTemplate = %+v", got)
	}
	_, err = st.Studio(b.ID).GetFormTemplate(ctx, w.form.ID)
	mustNotFound(t, "GetFormTemplate from another studio", err)
	intake := domain.FormTemplate{Name: "Intake", Description: ptr("first week")}
	must(t, "CreateFormTemplate without fields", ss.CreateFormTemplate(ctx, &intake))
	list, err := ss.ListFormTemplates(ctx, "", page(1, 1))
	must(t, "ListFormTemplates", err)
	if list.Total != 2 || len(list.Items) != 1 || list.Items[0].ID != intake.ID || list.Items[0].Fields == nil {
		t.Fatalf("ListFormTemplates page 2 = %+v", list)
	}
	list, _ = ss.ListFormTemplates(ctx, "check", page(50, 0))
	if list.Total != 1 || list.Items[0].ID != w.form.ID {
		t.Fatalf("ListFormTemplates(check) = %+v", list)
	}

	due := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Millisecond)
	asg := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: intake.ID, DueAt: &due, Prompt: ptr("Please fill"), FieldValues: json.RawMessage(`{"goal":"x"}`)}
	must(t, "CreateFormAssignment", ss.CreateFormAssignment(ctx, &asg))
	ga, err := ss.GetFormAssignment(ctx, asg.ID)
	must(t, "GetFormAssignment", err)
	if ga.FormName != "Intake" || ga.Status != "pending" || ga.Notify != nil || ga.DueAt == nil || !sameTime(*ga.DueAt, due) ||
		*ga.Prompt != "Please fill" || string(ga.FieldValues) != `{"goal":"x"}` || ga.AnnouncedAt != nil {
		t.Fatalf("GetFormAssignment = %+v", ga)
	}
	if w.assignment.Notify == nil || *w.assignment.Notify {
		t.Fatalf("notify false did not round-trip: %+v", w.assignment.Notify)
	}
	ga, _ = ss.GetFormAssignment(ctx, w.assignment.ID)
	if ga.Notify == nil || *ga.Notify || ga.Status != "completed" {
		t.Fatalf("seeded assignment = %+v, want notify false and completed by its response", ga)
	}
	_, err = st.Studio(b.ID).GetFormAssignment(ctx, asg.ID)
	mustNotFound(t, "GetFormAssignment from another studio", err)
	bad := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: wb.form.ID}
	mustNotFound(t, "CreateFormAssignment of another studio's form", ss.CreateFormAssignment(ctx, &bad))
	bad = domain.FormAssignment{TraineeID: wb.trainee.ID, FormTemplateID: w.form.ID}
	mustNotFound(t, "CreateFormAssignment for another studio's trainee", ss.CreateFormAssignment(ctx, &bad))

	// A response to an assignment completes it.
	resp := domain.FormResponse{TraineeID: w.trainee.ID, FormTemplateID: intake.ID, AssignmentID: &asg.ID, Answers: json.RawMessage(`{"goal":"lose 5kg"}`)}
	must(t, "CreateFormResponse", ss.CreateFormResponse(ctx, &resp))
	ga, _ = ss.GetFormAssignment(ctx, asg.ID)
	if ga.Status != "completed" {
		t.Fatalf("assignment status = %s, want completed", ga.Status)
	}
	responses, err := ss.ListFormResponses(ctx, w.trainee.ID, page(50, 0))
	must(t, "ListFormResponses", err)
	if responses.Total != 2 || responses.Items[0].ID != resp.ID || responses.Items[0].FormName != "Intake" ||
		string(responses.Items[0].Answers) != `{"goal":"lose 5kg"}` || *responses.Items[0].AssignmentID != asg.ID || responses.Items[1].ID != w.response.ID {
		t.Fatalf("ListFormResponses = %+v", responses)
	}
	_, err = ss.ListFormResponses(ctx, wb.trainee.ID, page(50, 0))
	mustNotFound(t, "ListFormResponses of another studio's trainee", err)
	badResp := domain.FormResponse{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, AssignmentID: &wb.assignment.ID}
	mustNotFound(t, "CreateFormResponse to another studio's assignment", ss.CreateFormResponse(ctx, &badResp))
	free := domain.FormResponse{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID}
	must(t, "CreateFormResponse without assignment", ss.CreateFormResponse(ctx, &free))
	if string(free.Answers) != `{}` {
		t.Fatalf("empty answers stored as %s, want {}", free.Answers)
	}
}

func testDueForms(t *testing.T, st store.Store) {
	a := newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	old := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Millisecond)
	waiting := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, CreatedAt: old}
	silent := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, Notify: ptr(false), CreatedAt: old}
	told := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, Notify: ptr(true), CreatedAt: old}
	fresh := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID}
	for _, asg := range []*domain.FormAssignment{&waiting, &silent, &told, &fresh} {
		must(t, "CreateFormAssignment", ss.CreateFormAssignment(ctx, asg))
	}
	cutoff := time.Now().UTC().Add(-time.Hour)
	due, err := st.DueForms(ctx, cutoff, 1000)
	must(t, "DueForms", err)
	var mine []store.DueForm
	for _, d := range due {
		if d.StudioID == a.ID {
			mine = append(mine, d)
		}
	}
	if len(mine) != 1 || mine[0].Assignment.ID != waiting.ID || mine[0].Assignment.FormName != "Check-in" || mine[0].Assignment.TraineeID != w.trainee.ID {
		t.Fatalf("DueForms for the studio = %+v, want only the waiting one", mine)
	}
	at := time.Now().UTC()
	won, err := st.MarkFormAnnounced(ctx, waiting.ID, at)
	must(t, "MarkFormAnnounced", err)
	again, err := st.MarkFormAnnounced(ctx, waiting.ID, at)
	must(t, "MarkFormAnnounced again", err)
	if !won || again {
		t.Fatalf("MarkFormAnnounced = %v then %v, want true then false", won, again)
	}
	due, _ = st.DueForms(ctx, cutoff, 1000)
	for _, d := range due {
		if d.Assignment.ID == waiting.ID {
			t.Fatal("an announced form is still due")
		}
	}
	_, err = st.MarkFormAnnounced(ctx, "fas_missing", at)
	mustNotFound(t, "MarkFormAnnounced(missing)", err)
}

func testWeights(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	tr := newTrainee(t, ss, "Heavy", "Lifter")
	other := newTrainee(t, st.Studio(b.ID), "Other", "Lifter")
	base := time.Date(2026, 1, 1, 7, 0, 0, 0, time.UTC)
	for i, kg := range []float64{80, 79.5, 79.1} {
		wt := domain.Weight{TraineeID: tr.ID, WeightKg: kg, RecordedAt: base.AddDate(0, 0, 7*i)}
		must(t, "CreateWeight", ss.CreateWeight(ctx, &wt))
	}
	list, err := ss.ListWeights(ctx, tr.ID, page(2, 0))
	must(t, "ListWeights", err)
	if list.Total != 3 || len(list.Items) != 2 || list.Items[0].WeightKg != 79.1 || !list.Items[0].RecordedAt.Equal(base.AddDate(0, 0, 14)) || list.Items[1].WeightKg != 79.5 {
		t.Fatalf("ListWeights = %+v", list)
	}
	wt := domain.Weight{TraineeID: other.ID, WeightKg: 60}
	mustNotFound(t, "CreateWeight for another studio's trainee", ss.CreateWeight(ctx, &wt))
	_, err = ss.ListWeights(ctx, other.ID, page(10, 0))
	mustNotFound(t, "ListWeights of another studio's trainee", err)
	now := domain.Weight{TraineeID: tr.ID, WeightKg: 78}
	must(t, "CreateWeight without recordedAt", ss.CreateWeight(ctx, &now))
	if now.RecordedAt.IsZero() || !now.RecordedAt.Equal(now.CreatedAt) {
		t.Fatalf("recordedAt defaults to createdAt: %+v", now)
	}
}

func testTasks(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))

	due := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Millisecond)
	call := domain.Task{Title: "Review diet", Detail: ptr("check macros"), DueAt: &due, Priority: 5, Source: domain.SourceMCP}
	must(t, "CreateTask", ss.CreateTask(ctx, &call))
	if call.Status != domain.TaskOpen || call.Source != domain.SourceMCP || !call.UpdatedAt.Equal(call.CreatedAt) {
		t.Fatalf("CreateTask filled %+v", call)
	}
	got, err := ss.GetTask(ctx, call.ID)
	must(t, "GetTask", err)
	if got.Title != "Review diet" || *got.Detail != "check macros" || !sameTime(*got.DueAt, due) || got.Priority != 5 || got.ClientID != nil || got.CoachID != nil {
		t.Fatalf("GetTask = %+v", got)
	}
	if w.task.Source != domain.SourceAPI {
		t.Fatalf("default source = %s, want api", w.task.Source)
	}

	all, err := ss.ListTasks(ctx, store.TaskFilter{Page: page(50, 0)})
	must(t, "ListTasks", err)
	if all.Total != 2 || all.Items[0].ID != call.ID || all.Items[1].ID != w.task.ID {
		t.Fatalf("ListTasks (newest first) = %+v", all)
	}
	byClient, _ := ss.ListTasks(ctx, store.TaskFilter{ClientID: w.trainee.ID, Page: page(50, 0)})
	byCoach, _ := ss.ListTasks(ctx, store.TaskFilter{CoachID: w.coach.ID, Page: page(50, 0)})
	if byClient.Total != 1 || byClient.Items[0].ID != w.task.ID || byCoach.Total != 1 || byCoach.Items[0].ID != w.task.ID {
		t.Fatalf("ListTasks by client %+v, by coach %+v", byClient, byCoach)
	}

	snooze := time.Now().UTC().Add(time.Hour).Truncate(time.Millisecond)
	got.Status = domain.TaskSnoozed
	got.SnoozeUntil = &snooze
	got.Priority = 1
	got.UpdatedAt = got.CreatedAt.Add(time.Second) // kept: the caller's clock
	must(t, "UpdateTask", ss.UpdateTask(ctx, &got))
	upd, _ := ss.GetTask(ctx, call.ID)
	if upd.Status != domain.TaskSnoozed || !sameTime(*upd.SnoozeUntil, snooze) || upd.Priority != 1 || !sameTime(upd.UpdatedAt, got.UpdatedAt) {
		t.Fatalf("after UpdateTask = %+v", upd)
	}
	snoozed, _ := ss.ListTasks(ctx, store.TaskFilter{Status: domain.TaskSnoozed, Page: page(50, 0)})
	if snoozed.Total != 1 || snoozed.Items[0].ID != call.ID {
		t.Fatalf("ListTasks(snoozed) = %+v", snoozed)
	}

	_, err = st.Studio(b.ID).GetTask(ctx, call.ID)
	mustNotFound(t, "GetTask from another studio", err)
	mustNotFound(t, "UpdateTask from another studio", st.Studio(b.ID).UpdateTask(ctx, &upd))
	bad := domain.Task{Title: "x", ClientID: &wb.trainee.ID}
	mustNotFound(t, "CreateTask about another studio's trainee", ss.CreateTask(ctx, &bad))
	bad = domain.Task{Title: "x", CoachID: &wb.coach.ID}
	mustNotFound(t, "CreateTask for another studio's coach", ss.CreateTask(ctx, &bad))
	upd.CoachID = &wb.coach.ID
	mustNotFound(t, "UpdateTask to another studio's coach", ss.UpdateTask(ctx, &upd))
}

func testNotifications(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))
	msg := domain.Notification{TraineeID: w.trainee.ID, Kind: domain.NotifyFormAssigned, Source: domain.SourceJob, Payload: json.RawMessage(`{"assignmentId":"fas_x"}`)}
	must(t, "AddNotification", ss.AddNotification(ctx, &msg))
	list, err := ss.ListNotifications(ctx, page(50, 0))
	must(t, "ListNotifications", err)
	if list.Total != 2 || list.Items[0].ID != msg.ID || list.Items[0].Kind != domain.NotifyFormAssigned || list.Items[0].Source != domain.SourceJob ||
		string(list.Items[0].Payload) != `{"assignmentId":"fas_x"}` || list.Items[1].ID != w.note.ID || list.Items[1].Payload != nil {
		t.Fatalf("ListNotifications = %+v", list)
	}
	bad := domain.Notification{TraineeID: wb.trainee.ID, Kind: domain.NotifyMessage, Source: domain.SourceAPI}
	mustNotFound(t, "AddNotification for another studio's trainee", ss.AddNotification(ctx, &bad))
	theirs, _ := st.Studio(b.ID).ListNotifications(ctx, page(50, 0))
	if theirs.Total != 1 || theirs.Items[0].ID != wb.note.ID {
		t.Fatalf("studio b's outbox = %+v", theirs)
	}
}

func testTransactions(t *testing.T, st store.Store) {
	a := newStudio(t, st)
	if st.SQLTx() != nil {
		t.Fatal("SQLTx outside a transaction is not nil")
	}
	errStop := errors.New("stop")
	var rolledBack domain.Trainee
	err := st.InTx(ctx, func(tx store.Store) error {
		if tx.SQLTx() == nil {
			t.Error("SQLTx inside InTx is nil")
		}
		rolledBack = domain.Trainee{FirstName: "Roll", LastName: "Back", Phone: newPhone(), Tags: []string{"tx-tag"}}
		if err := tx.Studio(a.ID).CreateTrainee(ctx, &rolledBack); err != nil {
			return err
		}
		// Reads inside the transaction see its writes.
		if _, err := tx.Studio(a.ID).GetTrainee(ctx, rolledBack.ID); err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("InTx = %v, want the function's error", err)
	}
	_, err = st.Studio(a.ID).GetTrainee(ctx, rolledBack.ID)
	mustNotFound(t, "a rolled-back trainee", err)
	tags, _ := st.Studio(a.ID).ListTags(ctx, page(50, 0))
	if tags.Total != 0 {
		t.Fatalf("a rolled-back tag survived: %+v", tags)
	}

	var kept domain.Trainee
	must(t, "InTx commit", st.InTx(ctx, func(tx store.Store) error {
		kept = domain.Trainee{FirstName: "Kept", LastName: "Trainee", Phone: newPhone()}
		if err := tx.Studio(a.ID).CreateTrainee(ctx, &kept); err != nil {
			return err
		}
		// A nested InTx joins the outer transaction.
		return tx.InTx(ctx, func(inner store.Store) error {
			if inner.SQLTx() != tx.SQLTx() {
				t.Error("nested InTx opened a second transaction")
			}
			w := domain.Weight{TraineeID: kept.ID, WeightKg: 70}
			return inner.Studio(a.ID).CreateWeight(ctx, &w)
		})
	}))
	weights, err := st.Studio(a.ID).ListWeights(ctx, kept.ID, page(10, 0))
	must(t, "ListWeights", err)
	if weights.Total != 1 {
		t.Fatalf("committed weight count = %d, want 1", weights.Total)
	}

	// A failed write inside a transaction rolls back the earlier ones.
	dupPhone := kept.Phone
	var first domain.Trainee
	err = st.InTx(ctx, func(tx store.Store) error {
		first = domain.Trainee{FirstName: "First", LastName: "Write", Phone: newPhone()}
		if err := tx.Studio(a.ID).CreateTrainee(ctx, &first); err != nil {
			return err
		}
		second := domain.Trainee{FirstName: "Dup", LastName: "Phone", Phone: dupPhone}
		return tx.Studio(a.ID).CreateTrainee(ctx, &second)
	})
	var ce *store.ConflictError
	if !errors.As(err, &ce) || ce.ExistingID != kept.ID {
		t.Fatalf("InTx with a duplicate phone = %v, want a conflict naming %s", err, kept.ID)
	}
	_, err = st.Studio(a.ID).GetTrainee(ctx, first.ID)
	mustNotFound(t, "the write before the conflict", err)
}

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

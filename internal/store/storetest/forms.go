package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

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

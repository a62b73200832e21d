package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// testTraineeVoice covers what trainees say (feedback), the studio's
// coaching persona and the forms waiting for a trainee's answer.
func testTraineeVoice(t *testing.T, st store.Store) {
	t.Run("Feedback", func(t *testing.T) { testFeedback(t, st) })
	t.Run("Persona", func(t *testing.T) { testPersona(t, st) })
	t.Run("PendingForms", func(t *testing.T) { testPendingForms(t, st) })
}

func testFeedback(t *testing.T, st store.Store) {
	ss, tr, ssB, other := healthPair(t, st)
	second := newTrainee(t, ss, "Second", "Voice")
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var made []string
	for i, f := range []domain.Feedback{
		{TraineeID: tr.ID, Text: "The session summaries are great", Rating: ptr(5), Topic: ptr("tools"), Source: "mcp"},
		{TraineeID: second.ID, Text: "Too many questions", Source: "api"},
		{TraineeID: tr.ID, Text: "Coach answers fast", Rating: ptr(4), Source: "mcp"},
	} {
		f.CreatedAt = base.Add(time.Duration(i) * time.Hour)
		must(t, "CreateFeedback", ss.CreateFeedback(ctx, &f))
		if !strings.HasPrefix(f.ID, "fbk_") {
			t.Fatalf("CreateFeedback id %q", f.ID)
		}
		made = append(made, f.ID)
	}
	all, err := ss.ListFeedback(ctx, "", page(2, 0))
	must(t, "ListFeedback", err)
	if all.Total != 3 || len(all.Items) != 2 || all.Items[0].ID != made[2] || all.Items[1].ID != made[1] {
		t.Fatalf("ListFeedback page 1 = %+v, want newest first of %v", all, made)
	}
	if got := all.Items[0]; got.Text != "Coach answers fast" || *got.Rating != 4 || got.Topic != nil || got.Source != "mcp" || !sameTime(got.CreatedAt, base.Add(2*time.Hour)) {
		t.Fatalf("ListFeedback row = %+v", got)
	}
	if got := all.Items[1]; got.Rating != nil || got.TraineeID != second.ID {
		t.Fatalf("ListFeedback row without rating = %+v", got)
	}
	mine, err := ss.ListFeedback(ctx, tr.ID, page(50, 0))
	must(t, "ListFeedback(trainee)", err)
	if mine.Total != 2 || mine.Items[1].ID != made[0] || *mine.Items[1].Topic != "tools" {
		t.Fatalf("ListFeedback(trainee) = %+v", mine)
	}

	foreign := domain.Feedback{TraineeID: other.ID, Text: "x", Source: "api"}
	mustNotFound(t, "CreateFeedback for another studio's trainee", ss.CreateFeedback(ctx, &foreign))
	_, err = ss.ListFeedback(ctx, other.ID, page(50, 0))
	mustNotFound(t, "ListFeedback of another studio's trainee", err)
	theirs, err := ssB.ListFeedback(ctx, "", page(50, 0))
	must(t, "ListFeedback of studio b", err)
	if theirs.Total != 0 {
		t.Fatalf("studio b sees %+v", theirs)
	}

	must(t, "DeleteTrainee", ss.DeleteTrainee(ctx, tr.ID))
	left, _ := ss.ListFeedback(ctx, "", page(50, 0))
	if left.Total != 1 || left.Items[0].ID != made[1] {
		t.Fatalf("after deleting the trainee: %+v", left)
	}
}

func testPersona(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss, ssB := st.Studio(a.ID), st.Studio(b.ID)
	_, _, err := ss.GetPersona(ctx)
	mustNotFound(t, "GetPersona before one is set", err)
	must(t, "DeletePersona with none", ss.DeletePersona(ctx))

	at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	p := domain.Persona{Name: "Coach Ari", Tone: "Warm and direct.", Avoid: []string{"shaming"}, AnswerFormat: "Short.",
		Examples: []domain.PersonaExample{{Situation: "Missed a week", Reply: "Let's restart small."}}}
	must(t, "PutPersona", ss.PutPersona(ctx, p, at))
	got, updated, err := ss.GetPersona(ctx)
	must(t, "GetPersona", err)
	if got.Name != "Coach Ari" || !slices.Equal(got.Avoid, p.Avoid) || len(got.Examples) != 1 || got.Examples[0].Reply != "Let's restart small." || !sameTime(updated, at) {
		t.Fatalf("GetPersona = %+v at %v", got, updated)
	}
	p.Tone = "Calm."
	must(t, "PutPersona again", ss.PutPersona(ctx, p, at.Add(time.Hour)))
	got, updated, _ = ss.GetPersona(ctx)
	if got.Tone != "Calm." || !sameTime(updated, at.Add(time.Hour)) {
		t.Fatalf("PutPersona did not replace: %+v at %v", got, updated)
	}
	_, _, err = ssB.GetPersona(ctx)
	mustNotFound(t, "GetPersona of another studio", err)
	must(t, "DeletePersona", ss.DeletePersona(ctx))
	_, _, err = ss.GetPersona(ctx)
	mustNotFound(t, "GetPersona after DeletePersona", err)
}

func testPendingForms(t *testing.T, st store.Store) {
	a, b := newStudio(t, st), newStudio(t, st)
	ss := st.Studio(a.ID)
	w := seedWorld(t, ss)
	wb := seedWorld(t, st.Studio(b.ID))
	soon, later := time.Now().UTC().Add(24*time.Hour).Truncate(time.Millisecond), time.Now().UTC().Add(72*time.Hour).Truncate(time.Millisecond)
	created := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	mk := func(due *time.Time, n int) domain.FormAssignment {
		asg := domain.FormAssignment{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, DueAt: due, Prompt: ptr("Please"), CreatedAt: created.Add(time.Duration(n) * time.Minute)}
		must(t, "CreateFormAssignment", ss.CreateFormAssignment(ctx, &asg))
		return asg
	}
	undated, dueLater, dueSoon, answered := mk(nil, 1), mk(&later, 2), mk(&soon, 3), mk(&soon, 4)
	resp := domain.FormResponse{TraineeID: w.trainee.ID, FormTemplateID: w.form.ID, AssignmentID: &answered.ID}
	must(t, "CreateFormResponse", ss.CreateFormResponse(ctx, &resp))

	list, err := ss.ListPendingForms(ctx, w.trainee.ID, page(50, 0))
	must(t, "ListPendingForms", err)
	var got []string
	for _, x := range list.Items {
		got = append(got, x.ID)
		if x.Status != "pending" || x.FormName != "Check-in" {
			t.Fatalf("ListPendingForms row %+v", x)
		}
	}
	// seedWorld's own assignment is answered, as is the fourth.
	if list.Total != 3 || len(got) != 3 || got[0] != dueSoon.ID || got[1] != dueLater.ID || got[2] != undated.ID {
		t.Fatalf("ListPendingForms = %v, want soonest due first: %s %s %s, then undated", got, dueSoon.ID, dueLater.ID, undated.ID)
	}
	one, _ := ss.ListPendingForms(ctx, w.trainee.ID, page(1, 1))
	if one.Total != 3 || len(one.Items) != 1 || one.Items[0].ID != dueLater.ID {
		t.Fatalf("ListPendingForms page 2 of 1 = %+v", one)
	}
	_, err = ss.ListPendingForms(ctx, wb.trainee.ID, page(50, 0))
	mustNotFound(t, "ListPendingForms of another studio's trainee", err)
}

package roster_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A trainee answers a form sent to her (answer_form), her answers checked
// against the form's field types as the coach's are; a form not sent to
// her, or sent to another trainee, is not hers to answer.
func TestATraineeAnswersAFormSentToHer(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("answer")
		k, tk := f.Key, e.TraineeToken(f)
		var mine, theirs struct {
			ID string `json:"id"`
		}
		e.OK(201, e.Call(k, "POST", "/trainees/"+f.Trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false})).Into(t, &mine)
		var other struct {
			ID string `json:"id"`
		}
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Other", "lastName": "Form", "phone": "054-333-4444"})).Into(t, &other)
		e.OK(201, e.Call(k, "POST", "/trainees/"+other.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false})).Into(t, &theirs)

		path := "/trainees/" + f.Trainee.ID + "/form-responses"
		a := e.Fails(422, "VALIDATION", e.Call(tk, "POST", path, map[string]any{"assignmentId": mine.ID, "answers": map[string]any{"sleep": "great"}}))
		if !slices.Equal(a.Fields(), []string{"answers.sleep"}) {
			t.Errorf("a wrong answer type: %s", a.Raw)
		}
		a = e.Fails(422, "VALIDATION", e.Call(tk, "POST", path, map[string]any{"formTemplateId": f.Form.ID, "answers": map[string]any{"sleep": 7}}))
		if !slices.Equal(a.Fields(), []string{"assignmentId"}) || !strings.Contains(a.Message(), "list_my_forms") {
			t.Errorf("a form not sent to her: %s", a.Raw)
		}
		e.Fails(404, "NOT_FOUND", e.Call(tk, "POST", path, map[string]any{"assignmentId": theirs.ID, "answers": map[string]any{"sleep": 7}}))
		e.Fails(404, "NOT_FOUND", e.Call(tk, "POST", "/trainees/"+other.ID+"/form-responses", map[string]any{"assignmentId": theirs.ID, "answers": map[string]any{"sleep": 7}}))
		var got map[string]any
		e.OK(201, e.Call(tk, "POST", path, map[string]any{"assignmentId": mine.ID, "answers": map[string]any{"sleep": 7, "notes": "fine"}})).Into(t, &got)
		if got["formName"] == nil || got["traineeId"] != nil {
			t.Errorf("her answer: %v", got)
		}
	})
}

package lane_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/store"
)

// A trainee answers a form sent to her (answer_form), her answers checked
// against the form's field types as the coach's are; a form not sent to
// her, or sent to another trainee, is not hers to answer.
func TestATraineeAnswersAFormSentToHer(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("answer")
		k, tk := f.key, e.traineeToken(f)
		var mine, theirs struct {
			ID string `json:"id"`
		}
		e.ok(201, e.call(k, "POST", "/trainees/"+f.trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "notify": false})).into(t, &mine)
		var other struct {
			ID string `json:"id"`
		}
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Other", "lastName": "Form", "phone": "054-333-4444"})).into(t, &other)
		e.ok(201, e.call(k, "POST", "/trainees/"+other.ID+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "notify": false})).into(t, &theirs)

		path := "/trainees/" + f.trainee.ID + "/form-responses"
		a := e.fails(422, "VALIDATION", e.call(tk, "POST", path, map[string]any{"assignmentId": mine.ID, "answers": map[string]any{"sleep": "great"}}))
		if !slices.Equal(a.fields(), []string{"answers.sleep"}) {
			t.Errorf("a wrong answer type: %s", a.Raw)
		}
		a = e.fails(422, "VALIDATION", e.call(tk, "POST", path, map[string]any{"formTemplateId": f.form.ID, "answers": map[string]any{"sleep": 7}}))
		if !slices.Equal(a.fields(), []string{"assignmentId"}) || !strings.Contains(a.message(), "list_my_forms") {
			t.Errorf("a form not sent to her: %s", a.Raw)
		}
		e.fails(404, "NOT_FOUND", e.call(tk, "POST", path, map[string]any{"assignmentId": theirs.ID, "answers": map[string]any{"sleep": 7}}))
		e.fails(404, "NOT_FOUND", e.call(tk, "POST", "/trainees/"+other.ID+"/form-responses", map[string]any{"assignmentId": theirs.ID, "answers": map[string]any{"sleep": 7}}))
		var got map[string]any
		e.ok(201, e.call(tk, "POST", path, map[string]any{"assignmentId": mine.ID, "answers": map[string]any{"sleep": 7, "notes": "fine"}})).into(t, &got)
		if got["formName"] == nil || got["traineeId"] != nil {
			t.Errorf("her answer: %v", got)
		}
	})
}

package lane_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// Pre-filled values of a sent form, and recorded answers, fit their field's
// type; a misfit is a 422 naming the field and what it takes.
func TestFormValuesFitTheirFieldTypes(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("frv")
		k := f.key
		var form domain.FormTemplate
		e.ok(201, e.call(k, "POST", "/forms", map[string]any{"name": "Typed", "fields": []map[string]any{
			{"key": "energy", "label": "Energy (1-10)", "type": "scale"},
			{"key": "kg", "label": "Weight", "type": "number"},
			{"key": "on", "label": "Day", "type": "date"},
			{"key": "level", "label": "Level", "type": "choice", "options": []string{"low", "high"}},
			{"key": "notes", "label": "Notes", "type": "text"},
		}})).into(t, &form)
		tp := "/trainees/" + f.trainee.ID
		bad := []struct {
			key  string
			v    any
			says string
		}{
			{"energy", "high", "whole number from 1 to 10"},
			{"energy", 99, "whole number from 1 to 10"},
			{"energy", 0, "whole number from 1 to 10"},
			{"energy", 4.5, "whole number from 1 to 10"},
			{"kg", "eighty", "number field"},
			{"on", "tomorrow", "YYYY-MM-DD"},
			{"level", "medium", "one of low, high"},
			{"notes", 12, "text field"},
		}
		for _, route := range []struct{ path, field string }{{tp + "/forms/assign", "fieldValues"}, {tp + "/form-responses", "answers"}} {
			for _, b := range bad {
				body := map[string]any{"formTemplateId": form.ID, "notify": false, route.field: map[string]any{b.key: b.v}}
				if route.field == "answers" {
					delete(body, "notify")
				}
				a := e.fails(422, "VALIDATION", e.call(k, "POST", route.path, body))
				want := route.field + "." + b.key
				if len(a.fields()) != 1 || a.fields()[0] != want || !strings.Contains(a.message(), b.says) {
					t.Errorf("%s %s=%v: fields %v, %q; want %s and %q", route.path, want, b.v, a.fields(), a.message(), want, b.says)
				}
			}
			good := map[string]any{"energy": 7, "kg": 81.4, "on": "2026-03-01", "level": "high", "notes": nil}
			body := map[string]any{"formTemplateId": form.ID, route.field: good}
			if route.field == "fieldValues" {
				body["notify"] = false
			}
			e.ok(201, e.call(k, "POST", route.path, body))
		}
	})
}

package roster_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// Pre-filled values of a sent form, and recorded answers, fit their field's
// type; a misfit is a 422 naming the field and what it takes.
func TestFormValuesFitTheirFieldTypes(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("frv")
		k := f.Key
		var form domain.FormTemplate
		e.OK(201, e.Call(k, "POST", "/forms", map[string]any{"name": "Typed", "fields": []map[string]any{
			{"key": "energy", "label": "Energy (1-10)", "type": "scale"},
			{"key": "kg", "label": "Weight", "type": "number"},
			{"key": "on", "label": "Day", "type": "date"},
			{"key": "level", "label": "Level", "type": "choice", "options": []string{"low", "high"}},
			{"key": "notes", "label": "Notes", "type": "text"},
		}})).Into(t, &form)
		tp := "/trainees/" + f.Trainee.ID
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
				a := e.Fails(422, "VALIDATION", e.Call(k, "POST", route.path, body))
				want := route.field + "." + b.key
				if len(a.Fields()) != 1 || a.Fields()[0] != want || !strings.Contains(a.Message(), b.says) {
					t.Errorf("%s %s=%v: fields %v, %q; want %s and %q", route.path, want, b.v, a.Fields(), a.Message(), want, b.says)
				}
			}
			good := map[string]any{"energy": 7, "kg": 81.4, "on": "2026-03-01", "level": "high", "notes": nil}
			body := map[string]any{"formTemplateId": form.ID, route.field: good}
			if route.field == "fieldValues" {
				body["notify"] = false
			}
			e.OK(201, e.Call(k, "POST", route.path, body))
		}
	})
}

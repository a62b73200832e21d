package sweep_test

import (
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// Every dated field of every write refuses an implausible value with a 422
// naming the field and stating the range, and takes a plausible one.
func TestImplausibleDatesAreRefused(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("dat")
		k := f.Key
		now := time.Now().UTC()
		inst := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
		day := func(years, days int) string { return now.AddDate(years, 0, days).Format(time.DateOnly) }
		tp := "/trainees/" + f.Trainee.ID
		cases := []struct {
			method, path, field string
			bad, good           any
			says                string
			extra               map[string]any
		}{
			{"POST", tp + "/weights", "recordedAt", "2030-01-01T07:00:00Z", inst(-time.Hour), "in the last 10 years, not in the future", map[string]any{"weightKg": 80}},
			{"POST", tp + "/weights", "recordedAt", inst(10 * time.Minute), inst(time.Minute), "not in the future", map[string]any{"weightKg": 80}},
			{"POST", tp + "/weights", "recordedAt", "2001-01-01T07:00:00Z", inst(-24 * 365 * time.Hour), "in the last 10 years", map[string]any{"weightKg": 80}},
			{"PATCH", tp, "birthDate", "2030-05-01", "1990-05-01", "from 1900-01-01 to today", nil},
			{"PATCH", tp, "birthDate", "1899-12-31", "1900-01-01", "from 1900-01-01 to today", nil},
			{"POST", "/trainees", "birthDate", "2030-05-01", "1985-02-03", "from 1900-01-01 to today", map[string]any{"firstName": "A", "lastName": "B", "phone": "054-777-0001"}},
			{"PATCH", "/tasks/" + f.Task.ID, "snoozeUntil", "2020-01-01T09:00:00Z", inst(2 * time.Hour), "from today to 5 years ahead", nil},
			{"POST", "/tasks", "dueAt", "2020-01-01T09:00:00Z", inst(-time.Hour), "from today to 5 years ahead", map[string]any{"title": "x"}},
			{"POST", tp + "/forms/assign", "dueAt", "2020-01-01T09:00:00Z", inst(48 * time.Hour), "from today to 5 years ahead", map[string]any{"formTemplateId": f.Form.ID, "notify": false}},
			{"POST", tp + "/forms/assign", "dueAt", inst(6 * 366 * 24 * time.Hour), inst(48 * time.Hour), "from today to 5 years ahead", map[string]any{"formTemplateId": f.Form.ID, "notify": false}},
			{"POST", tp + "/form-responses", "submittedAt", "2030-01-01T09:00:00Z", inst(-time.Hour), "not in the future", map[string]any{"formTemplateId": f.Form.ID, "answers": map[string]any{"sleep": 3}}},
			{"POST", tp + "/subscription", "startedOn", day(2, 0), day(0, 0), "from 10 years ago to 1 year ahead", map[string]any{"productId": f.OpenProduct.ID, "price": 90}},
			{"POST", tp + "/subscription", "startedOn", "1999-01-01", day(-1, 0), "from 10 years ago to 1 year ahead", map[string]any{"productId": f.OpenProduct.ID, "price": 90}},
			{"POST", tp + "/programs/assign", "startsOn", day(3, 0), day(0, 7), "from 10 years ago to 1 year ahead", map[string]any{"templateId": f.Template.ID}},
			{"PATCH", tp, "startedOn", "1990-01-01", day(-2, 0), "from 10 years ago to 1 year ahead", nil},
			{"POST", "/trainees", "startedOn", day(5, 0), day(0, 0), "from 10 years ago to 1 year ahead", map[string]any{"firstName": "C", "lastName": "D", "phone": "054-777-0002"}},
		}
		for _, c := range cases {
			body := func(v any) map[string]any {
				b := map[string]any{c.field: v}
				for k, x := range c.extra {
					b[k] = x
				}
				return b
			}
			a := e.Fails(422, "VALIDATION", e.Call(k, c.method, c.path, body(c.bad)))
			if len(a.Fields()) != 1 || a.Fields()[0] != c.field || !strings.HasPrefix(a.Message(), c.field+" must be ") || !strings.Contains(a.Message(), c.says) {
				t.Errorf("%s %s %s=%v: fields %v, %q; want it to name %s and say %q", c.method, c.path, c.field, c.bad, a.Fields(), a.Message(), c.field, c.says)
			}
			if g := e.Call(k, c.method, c.path, body(c.good)); g.Status >= 300 {
				t.Errorf("%s %s %s=%v: want success, got %d %s", c.method, c.path, c.field, c.good, g.Status, g.Raw)
			}
		}

		// The range is in the OpenAPI document, where a client reads it.
		if doc := string(e.Lane.OpenAPI()); !strings.Contains(doc, "Must be from 1900-01-01 to today.") {
			t.Error("the OpenAPI document does not state birthDate's range")
		}
	})
}

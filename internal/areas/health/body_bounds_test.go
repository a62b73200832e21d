package health_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/store/storetest"
)

// Body figures outside a person's plausible range are refused naming the
// field and its range: a height in metres, a weight in grams.
func TestImplausibleBodyFiguresAreRefused(t *testing.T) {
	e := lanetest.New(t, storetest.OpenSQLite(t))
	f := e.Seed("body")
	k, tp := f.Key, "/trainees/"+f.Trainee.ID
	for _, c := range []struct {
		method, path, field string
		body                map[string]any
		bound, hint         string
	}{
		{"POST", "/trainees", "heightCm", map[string]any{"firstName": "Tall", "lastName": "One", "phone": "054-888-1111", "heightCm": 1.8}, "100", "did you mean 180?"},
		{"PATCH", tp, "heightCm", map[string]any{"heightCm": 1.8}, "100", "did you mean 180?"},
		{"PATCH", tp, "heightCm", map[string]any{"heightCm": 280}, "250", ""},
		{"PATCH", tp, "weightKg", map[string]any{"weightKg": 7}, "20", ""},
		{"POST", tp + "/weights", "weightKg", map[string]any{"weightKg": 7}, "20", ""},
		{"POST", tp + "/weights", "weightKg", map[string]any{"weightKg": 72500}, "350", "did you mean 72.5?"},
		{"POST", tp + "/measurements", "bodyFatPct", map[string]any{"bodyFatPct": 0.2}, "2", "did you mean 20?"},
		{"POST", tp + "/measurements", "waistCm", map[string]any{"waistCm": 0.8}, "30", "did you mean 80?"},
	} {
		a := e.Fails(422, "VALIDATION", e.Call(k, c.method, c.path, c.body))
		if !slices.Equal(a.Fields(), []string{c.field}) || !strings.Contains(a.Message(), c.field) || !strings.Contains(a.Message(), c.bound) ||
			(c.hint != "" && !strings.Contains(a.Message(), c.hint)) || (c.hint == "" && strings.Contains(a.Message(), "did you mean")) {
			t.Errorf("%s %s %v: %s", c.method, c.path, c.body, a.Raw)
		}
	}
}

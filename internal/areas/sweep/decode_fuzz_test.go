package sweep_test

import (
	"encoding/json"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/text"
)

// FuzzDecodeBody feeds arbitrary bodies to the request decoder of several
// write endpoints. It must never panic; an accepted body must decode to a
// value that, encoded again, is accepted again; a refusal must be a 400 or
// a 422 that names its fields.
func FuzzDecodeBody(f *testing.F) {
	seeds := []string{
		`{"firstName":"Dana","lastName":"Levi","phone":"050-123-4567"}`,
		`{"firstName":"","weightKg":600,"email":"x","tags":["a",""],"extra":1}`,
		`{"formTemplateId":"frm_1","prompt":"hi","notify":null,"fieldValues":{"a":[1,{"b":null}]}}`,
		`{"title":"Call","priority":5,"dueAt":"2026-03-01T09:00:00Z"}`,
		`{"status":"snoozed","snoozeUntil":"2026-03-01T09:00:00+02:00","priority":0}`,
		`{"weightKg":1e400}`, `{"priority":1.5}`, `{"heightCm":-0}`,
		`{"name":"Check-in","fields":[{"key":"a","label":"A","type":"choice","options":["x"]},7,{"key":"b"}]}`,
		`null`, `[]`, `""`, `{`, `{"a":`, `{"firstName":"\ud800"}`, ``, `   `, `{"tags":null}`,
		`{"action":"update","goalId":"gol_1","targetDate":null,"limit":3}`, `{"text":"great","rating":5,"topic":"tools"}`,
		`{"name":"Coach","tone":"calm","answerFormat":"short","avoid":["x"],"examples":[{"situation":"s","reply":"r"},{}]}`,
		`{"title":"a\u0000b"}`, "{\"title\":\"a\xffb\"}", `{"tags":["ok","\u001b[2J"]}`, `{"fieldValues":{"a\u0000":"\ud83d\ude00"}}`,
	}
	for i, s := range seeds {
		f.Add(s, uint8(i))
	}
	routes := [][2]string{
		{"POST", "/trainees"}, {"PATCH", "/trainees/{id}"}, {"POST", "/trainees/{id}/forms/assign"}, {"POST", "/tasks"},
		{"PATCH", "/tasks/{id}"}, {"POST", "/trainees/{id}/weights"}, {"POST", "/forms"}, {"POST", "/trainees/{id}/goals/manage"},
		{"POST", "/trainees/{id}/feedback"}, {"PUT", "/studio/persona"},
	}
	l := areas.Lane(lane.Options{})
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		rt := routes[int(which)%len(routes)]
		dst, _, e := l.DecodeInput(rt[0], rt[1], body)
		if e != nil {
			if (e.Status != 400 && e.Status != 422) || e.Message == "" {
				t.Fatalf("refusal %d %q for %q", e.Status, e.Message, body)
			}
			if e.Status == 422 && e.Code == lane.CodeValidation && len(e.Fields) == 0 && e.Message == "" {
				t.Fatalf("a 422 without fields for %q", body)
			}
			return
		}
		// Nothing the text rule refuses is accepted, at any depth.
		if _, bad := text.JSONProblem([]byte(body)); bad != "" && json.Valid([]byte(body)) {
			t.Fatalf("accepted %q, whose text %s", body, bad)
		}
		again, err := json.Marshal(dst)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", body, err)
		}
		if _, _, e := l.DecodeInput(rt[0], rt[1], string(again)); e != nil {
			t.Fatalf("accepted %q, re-encoded as %s, then refused: %s", body, again, e.Message)
		}
	})
}

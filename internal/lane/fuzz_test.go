package lane

import (
	"encoding/json"
	"net/url"
	"testing"

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
	schemas := []func() (*inputSchema, any){
		func() (*inputSchema, any) { return schemaFor[createTraineeInput](), new(createTraineeInput) },
		func() (*inputSchema, any) { return schemaFor[updateTraineeInput](), new(updateTraineeInput) },
		func() (*inputSchema, any) { return schemaFor[assignFormInput](), new(assignFormInput) },
		func() (*inputSchema, any) { return schemaFor[createTaskInput](), new(createTaskInput) },
		func() (*inputSchema, any) { return schemaFor[updateTaskInput](), new(updateTaskInput) },
		func() (*inputSchema, any) { return schemaFor[logWeightInput](), new(logWeightInput) },
		func() (*inputSchema, any) { return schemaFor[createFormTemplateInput](), new(createFormTemplateInput) },
		func() (*inputSchema, any) { return schemaFor[manageGoalsInput](), new(manageGoalsInput) },
		func() (*inputSchema, any) { return schemaFor[feedbackInput](), new(feedbackInput) },
		func() (*inputSchema, any) { return schemaFor[personaInput](), new(personaInput) },
	}
	built := make([]struct {
		s   *inputSchema
		new func() any
	}, len(schemas))
	for i, mk := range schemas {
		s, _ := mk()
		built[i].s = s
		built[i].new = func() any { _, v := mk(); return v }
	}
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		b := built[int(which)%len(built)]
		dst := b.new()
		_, e := b.s.decodeBody([]byte(body), dst)
		if e != nil {
			if (e.Status != 400 && e.Status != 422) || e.Message == "" {
				t.Fatalf("refusal %d %q for %q", e.Status, e.Message, body)
			}
			if e.Status == 422 && e.Code == CodeValidation && len(e.Fields) == 0 && e.Message == "" {
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
		if _, e := b.s.decodeBody(again, b.new()); e != nil {
			t.Fatalf("accepted %q, re-encoded as %s, then refused: %s", body, again, e.Message)
		}
	})
}

// FuzzDecodeQuery feeds arbitrary query strings to the search decoder: no
// panic, and an accepted query always has a limit in range.
func FuzzDecodeQuery(f *testing.F) {
	for _, s := range []string{"limit=50&offset=0", "limit=0", "limit=201", "limit=ten", "q=dana&status=active", "q=ab%00", "q=%00", "tag=%FF", "coachId=%1B", "q=%ED%A0%80", "createdAfter=2026-01-01T00:00:00Z", "x=1", "limit=1&limit=2", "%zz", "offset=9223372036854775808"} {
		f.Add(s)
	}
	s := schemaFor[searchTraineesQuery]()
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		var q searchTraineesQuery
		if e := s.decodeQuery(vals, &q); e != nil {
			if e.Status != 422 || len(e.Fields) == 0 {
				t.Fatalf("refusal %d %+v for %q", e.Status, e, raw)
			}
			return
		}
		if p := q.Page(); p.Limit < 1 || p.Limit > 200 || p.Offset < 0 {
			t.Fatalf("accepted %q with page %+v", raw, p)
		}
		for name, vs := range vals {
			for _, v := range vs {
				if bad := text.Problem(v); bad != "" {
					t.Fatalf("accepted %q, whose %s %s", raw, name, bad)
				}
			}
		}
	})
}

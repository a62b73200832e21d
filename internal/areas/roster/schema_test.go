package roster

import (
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/text"
)

func TestQueryValidationNamesEveryBadField(t *testing.T) {
	s := lane.DecoderOf(new(searchTraineesQuery))
	var q searchTraineesQuery
	e := s.Query(url.Values{"limit": {"500"}, "offset": {"-1"}, "status": {"gone"}, "colour": {"red"}, "createdAfter": {"yesterday"}}, &q)
	if e == nil {
		t.Fatal("expected a validation error")
	}
	if e.Status != 422 || e.Code != lane.CodeValidation {
		t.Fatalf("status %d code %s", e.Status, e.Code)
	}
	got := map[string]string{}
	for _, f := range e.Fields {
		got[f.Field] = f.Message
	}
	want := map[string]string{
		"limit":        "limit must be a whole number from 1 to 200; got 500.",
		"offset":       "offset must be a whole number of at least 0; got -1.",
		"status":       `status must be one of "active", "paused", "archived"; got "gone".`,
		"createdAfter": `createdAfter must be a date and time in RFC 3339 form, like 2026-03-01T09:00:00Z; got "yesterday".`,
	}
	for f, msg := range want {
		if got[f] != msg {
			t.Errorf("%s: got %q, want %q", f, got[f], msg)
		}
	}
	if !strings.HasPrefix(got["colour"], "colour is not a field of this request") {
		t.Errorf("unknown field: %q", got["colour"])
	}
}

func TestQueryConversion(t *testing.T) {
	s := lane.DecoderOf(new(searchTraineesQuery))
	var q searchTraineesQuery
	if e := s.Query(url.Values{"limit": {"7"}, "offset": {"14"}, "q": {"dana"}, "createdAfter": {"2026-01-02T03:04:05Z"}}, &q); e != nil {
		t.Fatal(e)
	}
	if q.Limit != 7 || q.Offset != 14 || q.Q != "dana" || q.CreatedAfter == nil || q.CreatedAfter.Year() != 2026 {
		t.Fatalf("decoded %+v", q)
	}
	if e := s.Query(url.Values{"limit": {"abc"}}, &q); e == nil || e.Fields[0].Message != `limit must be a whole number from 1 to 200; got "abc".` {
		t.Fatalf("got %+v", e)
	}
}

func TestBodyValidation(t *testing.T) {
	s := lane.DecoderOf(new(createTraineeInput))
	var in createTraineeInput
	_, e := s.Body([]byte(`{"firstName":"","weightKg":0,"email":"nope","gender":"x","birthDate":"2026-13-01","tags":["a",""],"extra":1}`), &in)
	if e == nil {
		t.Fatal("expected errors")
	}
	fields := map[string]string{}
	for _, f := range e.Fields {
		fields[f.Field] = f.Message
	}
	for _, f := range []string{"firstName", "lastName", "phone", "weightKg", "email", "gender", "birthDate", "tags", "extra"} {
		if fields[f] == "" {
			t.Errorf("no error for %s; got %v", f, fields)
		}
	}
	if fields["weightKg"] != "weightKg must be a number from 20 to 350; got 0." {
		t.Errorf("weightKg: %q", fields["weightKg"])
	}
	if fields["lastName"] != "lastName is required; it must be a string of 1 to 100 characters." {
		t.Errorf("lastName: %q", fields["lastName"])
	}
	if _, e := s.Body([]byte(`{"firstName":`), &in); e == nil || e.Status != 400 {
		t.Errorf("malformed JSON: %+v", e)
	}
	if _, e := s.Body([]byte(`[1,2]`), &in); e == nil || e.Status != 400 {
		t.Errorf("array body: %+v", e)
	}
	present, e := s.Body([]byte(`{"firstName":"Dana","lastName":"Levi","phone":"050-123-4567","gender":null,"tags":["vip"]}`), &in)
	if e != nil {
		t.Fatal(e)
	}
	if in.FirstName != "Dana" || len(in.Tags) != 1 || present["gender"] == nil {
		t.Fatalf("decoded %+v present %v", in, present)
	}
}

func TestNullFalse(t *testing.T) {
	s := lane.DecoderOf(new(updateTraineeInput))
	var in updateTraineeInput
	if _, e := s.Body([]byte(`{"firstName":null}`), &in); e == nil {
		t.Fatal("firstName null must be refused")
	}
	if _, e := s.Body([]byte(`{"email":null,"gender":null}`), &in); e != nil {
		t.Fatalf("clearing email and gender: %v", e)
	}
}

// FuzzDecodeQuery feeds arbitrary query strings to the search decoder: no
// panic, and an accepted query always has a limit in range.
func FuzzDecodeQuery(f *testing.F) {
	for _, s := range []string{"limit=50&offset=0", "limit=0", "limit=201", "limit=ten", "q=dana&status=active", "q=ab%00", "q=%00", "tag=%FF", "coachId=%1B", "q=%ED%A0%80", "createdAfter=2026-01-01T00:00:00Z", "x=1", "limit=1&limit=2", "%zz", "offset=9223372036854775808"} {
		f.Add(s)
	}
	s := lane.DecoderOf(new(searchTraineesQuery))
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		var q searchTraineesQuery
		if e := s.Query(vals, &q); e != nil {
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

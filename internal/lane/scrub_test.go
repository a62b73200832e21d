package lane

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/otherwise/perform/internal/orderedjson"
	"github.com/otherwise/perform/internal/redaction"
)

func TestRedactIdentifierFields(t *testing.T) {
	in := `{"summary":"Dana trained 3 times","id":"ses_1","phone":"050-123-4567","coachPhone":"+972 52 000 0001",
		"Emails":["a@b.example","c@d.example"],"firstName":"Dana","lastName":"Levi","displayName":"D","fullName":"Dana Levi",
		"coaches":[{"id":"coa_1","name":"Coach Yael"}],"coachIds":["coa_1","coa_2"],"coachName":"Yael","createdBy":"coa_1",
		"credentialId":"key_1","keyId":"key_2","nested":{"list":[{"email":"x@y.example","weightKg":71.5,"date":"2026-07-01"}]},
		"birthDate":null,"title":"Lower body"}`
	out := redactOnly(t, in)
	want := `{"summary":"Dana trained 3 times","id":"ses_1","phone":"[REDACTED]","coachPhone":"[REDACTED]",` +
		`"Emails":["[REDACTED]","[REDACTED]"],"firstName":"[REDACTED]","lastName":"[REDACTED]","displayName":"[REDACTED]","fullName":"[REDACTED]",` +
		`"coaches":[{"id":"[REDACTED]","name":"[REDACTED]"}],"coachIds":["[REDACTED]","[REDACTED]"],"coachName":"[REDACTED]","createdBy":"[REDACTED]",` +
		`"credentialId":"[REDACTED]","keyId":"[REDACTED]","nested":{"list":[{"email":"[REDACTED]","weightKg":71.5,"date":"2026-07-01"}]},` +
		`"birthDate":null,"title":"Lower body"}`
	if out != want {
		t.Errorf("redacted\n got %s\nwant %s", out, want)
	}
}

// An id field keeps the one id it holds, unless it is a coach's or a
// credential's; any other string, and anything else in an id field, is
// text and loses its ids.
func TestRedactKeepsIDFields(t *testing.T) {
	const trn, ses, coa, key = "trn_06h346y008j1ak8jzerevqemb0", "ses_06h346y008j1ak8jzerevqemb1", "coa_06h346y008j1ak8jzerevqemb2", "key_06h346y008j1ak8jzerevqemb3"
	in := `{"id":"` + ses + `","traineeId":"` + trn + `","exerciseIds":["` + ses + `","` + coa + `"],"ownerID":"` + key + `",` +
		`"notes":"` + ses + `","title":"see ` + trn + `","ids":["x ` + ses + `"],"session":{"id":"` + trn + ` or ` + ses + `"}}`
	v, err := orderedjson.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := orderedjson.Write(&buf, redact(v, redaction.Text)); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + ses + `","traineeId":"` + trn + `","exerciseIds":["` + ses + `","[REDACTED]"],"ownerID":"[REDACTED]",` +
		`"notes":"[REDACTED]","title":"see [REDACTED]","ids":["x [REDACTED]"],"session":{"id":"[REDACTED] or [REDACTED]"}}`
	if buf.String() != want {
		t.Errorf("redacted\n got %s\nwant %s", buf.String(), want)
	}
}

func TestAllowList(t *testing.T) {
	in := `{"summary":"s","id":"ses_1","traineeId":"trn_1","createdAt":"x",
		"exercises":[{"name":"Squat","sets":[{"reps":5,"loadKg":80,"internal":1}],"notes":"n"},{"name":"Row","sets":[]}],
		"position":null,"program":{"id":"prg_1","templateId":"ptm_1","phase":{"name":"Base","week":2}},
		"matrix":[[{"a":1,"b":2}],[{"a":3}]],"scalarWhereObject":7}`
	allow := []string{"summary", "id", "exercises.name", "exercises.sets.reps", "position.week", "program.id", "program.phase", "matrix.a", "scalarWhereObject.x"}
	want := `{"summary":"s","id":"ses_1","exercises":[{"name":"Squat","sets":[{"reps":5}]},{"name":"Row","sets":[]}],` +
		`"position":null,"program":{"id":"prg_1","phase":{"name":"Base","week":2}},"matrix":[[{"a":1}],[{"a":3}]]}`
	if got := mustScrub(t, in, allow); got != want {
		t.Errorf("allowed\n got %s\nwant %s", got, want)
	}
	// An empty list keeps nothing of an object, and a list stays a list.
	if got := mustScrub(t, `{"a":1}`, nil); got != `{}` {
		t.Errorf("no allow list: %s", got)
	}
	if got := mustScrub(t, `[{"a":1,"b":2}]`, []string{"a"}); got != `[{"a":1}]` {
		t.Errorf("top-level list: %s", got)
	}
}

// The passes run in order: an allowed field that names a person is still
// redacted, and redaction reaches into allowed subtrees.
func TestScrubRedactsBeforeAllowing(t *testing.T) {
	in := `{"trainee":{"firstName":"Dana","goal":"call 050-123-4567","coach":{"name":"Yael"}},"drop":"me@x.example"}`
	got := mustScrub(t, in, []string{"trainee"})
	want := `{"trainee":{"firstName":"[REDACTED]","goal":"call [REDACTED]","coach":{"name":"[REDACTED]"}}}`
	if got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestScrubEnvelope(t *testing.T) {
	body := []byte(`{"ok":true,"data":{"id":"ses_1","phone":"050-123-4567","createdAt":"x"},"requestId":"req_1"}` + "\n")
	got, err := scrubEnvelope(body, []string{"id", "phone"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ok":true,"data":{"id":"ses_1","phone":"[REDACTED]"},"requestId":"req_1"}` + "\n"; string(got) != want {
		t.Errorf("got %s want %s", got, want)
	}
	failed := []byte(`{"ok":false,"error":{"code":"NOT_FOUND","message":"No session"},"requestId":"req_2"}`)
	if got, err := scrubEnvelope(failed, nil, nil); err != nil || string(got) != string(failed) {
		t.Errorf("error envelope changed: %s %v", got, err)
	}
}

func mustScrub(t *testing.T, in string, allow []string) string {
	t.Helper()
	out, err := scrubJSON([]byte(in), allow)
	if err != nil {
		t.Fatalf("scrub %s: %v", in, err)
	}
	if !json.Valid(out) {
		t.Fatalf("scrub answered invalid JSON %s", out)
	}
	return string(out)
}

// redactOnly runs the first pass alone.
func redactOnly(t *testing.T, in string) string {
	t.Helper()
	v, err := orderedjson.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := orderedjson.Write(&buf, redact(v, redaction.Text)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestRedactCoachNamesInText(t *testing.T) {
	in := `{"notes":"Yael Cohen said: ask yael? No, ask YAEL, and your coach; Al and Ben-Cohen too. יעל אמרה","summary":"Cohenson stays"}`
	got := mustScrubWith(t, in, []string{"notes", "summary"}, "Yael Cohen", "Al B", "יעל")
	want := `{"notes":"[REDACTED] [REDACTED] said: ask yael? No, ask [REDACTED], and your coach; Al and Ben-[REDACTED] too. [REDACTED] אמרה","summary":"Cohenson stays"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func mustScrubWith(t *testing.T, in string, allow []string, people ...string) string {
	t.Helper()
	out, err := scrubJSON([]byte(in), allow, people...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// BenchmarkScrubSessionList is the scrubber's cost on a trainee's list of
// 50 session rows (about 14 KB), with two coaches' names to look for.
func BenchmarkScrubSessionList(b *testing.B) {
	var rows []map[string]any
	for i := range 50 {
		rows = append(rows, map[string]any{"id": "ses_06h346y008j1ak8jzerevqemb0", "traineeId": "trn_06h346y008j1ak8jzerevqemb0",
			"date": "2026-07-01", "startTime": "08:30", "sport": "strength", "title": "Lower body " + string(rune('A'+i%26)), "status": "completed",
			"source": "coach", "durationMin": 55, "rpe": 7, "programId": nil, "createdAt": "2026-07-01T08:30:00Z",
			"totals": map[string]any{"volumeKg": 5400.5, "sets": 15, "reps": 75, "seconds": 0, "metres": 0}})
	}
	raw, _ := json.Marshal(map[string]any{"items": rows, "total": 50, "nextOffset": nil})
	allow := append(Under("items", "id", "date", "startTime", "sport", "title", "status", "source", "durationMin", "rpe", "programId", "totals"), "total", "nextOffset")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scrubJSON(raw, allow, "Yael Cohen", "Avi Levi"); err != nil {
			b.Fatal(err)
		}
	}
}

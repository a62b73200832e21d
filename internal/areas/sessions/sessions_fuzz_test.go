package sessions

import (
	"encoding/json"
	"testing"

	"github.com/otherwise/perform/internal/lane"
)

// FuzzSessionBodies feeds arbitrary bodies to the decoders of the training
// writes (nested lists of exercises and sets, a program's phases): no
// panic; a refusal is a 400 or a 422 with a sentence; an accepted body,
// encoded again, is accepted again; and checkRange and checkClock answer a
// sentence or nothing for whatever dates and times were accepted.
func FuzzSessionBodies(f *testing.F) {
	seeds := []string{
		`{"sport":"strength","durationMin":60,"exercises":[{"exerciseId":"back-squat","sets":[{"reps":5,"loadKg":100},{"reps":3,"loadKg":110,"done":false}]}]}`,
		`{"sessionId":"ses_1","exercises":[{"exerciseId":"x","sets":[{"reps":-1}]},7,{"sets":null}]}`,
		`{"name":"P","phases":[{"name":"Base","weeks":[{"days":[{"title":"A","weekday":8,"exercises":[{"exerciseId":"back-squat","sets":0}]}]}]}]}`,
		`{"operation":"reschedule","date":"2026-13-01","startTime":"25:61"}`,
		`{"operation":"reduce_volume","percent":1e400}`,
		`{"name":"5 km","unit":"s","direction":"lower","value":1500,"recordedAt":"2026-03-01T07:00:00Z"}`,
		`{"date":"2026-03-01","sport":"running","exercises":[{"exerciseId":"running","seconds":1800,"metres":5000}]}`,
		`null`, `[]`, `{`, `{"exercises":[{"exerciseId":"a\u0000"}]}`, `{"phases":[{"weeks":[{"days":[{"title":"\ud800"}]}]}]}`,
	}
	for i, s := range seeds {
		f.Add(s, uint8(i))
	}
	built := []lane.Decoder{
		lane.DecoderOf(new(logWorkoutInput)), lane.DecoderOf(new(plannedSessionInput)),
		lane.DecoderOf(new(modifySessionInput)), lane.DecoderOf(new(recordBenchmarkInput)), lane.DecoderOf(new(updateSessionInput)),
	}
	fresh := []func() any{
		func() any { return new(logWorkoutInput) }, func() any { return new(plannedSessionInput) },
		func() any { return new(modifySessionInput) },
		func() any { return new(recordBenchmarkInput) }, func() any { return new(updateSessionInput) },
	}
	f.Fuzz(func(t *testing.T, body string, which uint8) {
		i := int(which) % len(built)
		dst := fresh[i]()
		_, e := built[i].Body([]byte(body), dst)
		if e != nil {
			if (e.Status != 400 && e.Status != 422) || e.Message == "" {
				t.Fatalf("refusal %d %q for %q", e.Status, e.Message, body)
			}
			return
		}
		again, err := json.Marshal(dst)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", body, err)
		}
		if _, e := built[i].Body(again, fresh[i]()); e != nil {
			t.Fatalf("accepted %q, re-encoded as %s, then refused: %s", body, again, e.Message)
		}
		if in, ok := dst.(*logWorkoutInput); ok {
			if e := checkClock("startTime", in.StartTime); e != nil && (e.Status != 422 || len(e.Fields) != 1) {
				t.Fatalf("checkClock %+v", e)
			}
			if e := checkRange(in.Date, in.Date); e != nil {
				t.Fatalf("a one-day range refused: %+v", e)
			}
		}
	})
}

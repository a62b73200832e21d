package sweep_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store/storetest"
)

// traineeBodies are the bodies a trainee's writes are tried with; a write
// route opened to trainees that is not here is tried with {}.
var traineeBodies = map[string]any{
	"POST /trainees/{id}/sessions":          map[string]any{"date": kit.Today(), "sport": "running", "title": "Tempo run"},
	"POST /trainees/{id}/workouts":          map[string]any{"sport": "running", "durationMin": 31, "notes": "felt good, text me on 050-123-4567 or dana@own.example"},
	"POST /sessions/{id}/modify":            map[string]any{"operation": "reduce_volume", "percent": 20},
	"POST /trainees/{id}/benchmarks":        map[string]any{"name": "Max pull-ups", "value": 9},
	"POST /trainees/{id}/measurements":      map[string]any{"waistCm": 80, "notes": "measured by Coach own, 052-000-0001"},
	"POST /trainees/{id}/weights":           map[string]any{"weightKg": 72.5},
	"POST /trainees/{id}/check-ins":         map[string]any{"readiness": 4, "note": "slept badly, call 052-000-0001"},
	"POST /trainees/{id}/injuries":          map[string]any{"area": "knee", "severity": 3, "notes": "coach@own.example knows"},
	"PATCH /goals/{id}":                     map[string]any{"title": "Train 3 times a week"},
	"POST /trainees/{id}/feedback":          map[string]any{"text": "Coach own was great, reach me on 050-123-4567", "rating": 5},
	"POST /trainees/{id}/goals/manage":      map[string]any{"action": "list"},
	"PATCH /trainees/{id}/training-profile": map[string]any{"units": "metric"},
	"POST /trainees/{id}/plan-drafts":       map[string]any{"days": []int{1, 4}, "fresh": true},
}

// traineeBody is the body of route for f's trainee, where it needs the fixture.
func traineeBody(f kit.Fixture, route string) any {
	if route == "POST /trainees/{id}/appointments" {
		return map[string]any{"slotId": f.Slot.ID}
	}
	return traineeBodies[route]
}

// Every route opened to trainees, called by a trainee on rich data, answers
// no phone number, no email and no other person's name: the routes are
// read from the lane, so a route marked later is covered too.
func TestEveryTraineeAnswerIsScrubbed(t *testing.T) {
	e := lanetest.NewTrainee(t, storetest.OpenSQLite(t), lanetest.TraineeOptions{})
	f := e.Seed("own")
	e.SecondTrainee(f)
	k := f.Key
	// Text that names people, written by the studio.
	e.OK(200, e.Call(k, "PATCH", "/sessions/"+f.Session.ID, map[string]any{"notes": "Coach own says: ring me on 050-765-4321 or write to noa@other.example; ask " + f.Coach.ID + " (key " + f.KeyID + ", " + f.Key + ")", "feedback": "great"}))
	tok := e.TraineeToken(f)
	var sent struct {
		ID string `json:"id"`
	}
	e.OK(201, e.Call(k, "POST", "/trainees/"+f.Trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false})).Into(t, &sent)

	own := map[ids.Kind]string{ids.Trainee: lane.Me, ids.Session: f.Session.ID, ids.Goal: f.Goal.ID, ids.Benchmark: f.Benchmark.ID, ids.Program: f.Program.ID,
		ids.PlanDraft: f.Draft.ID, ids.Appointment: f.Appointment.ID}
	// Her week is drafted from her training profile.
	e.OK(200, e.Call(k, "PATCH", "/trainees/"+f.Trainee.ID+"/training-profile", map[string]any{"equipment": []string{"dumbbell", "bench"}}))
	leaks := []string{"050-123-4567", "052-000-0001", "050-765-4321", "0501234567", "@own.example", "@other.example", "dana@",
		"Coach own", "Noa", "Other", "Dana", "Levi", f.Coach.ID, f.KeyID, f.Key, "coa_", "key_", "pf_live_"}
	tried := 0
	for _, c := range e.Lane.Contracts() {
		if c.TraineeScope == "" {
			continue
		}
		route := c.Method + " " + c.Path
		path := c.Path
		if c.IDKind != "" {
			id, ok := own[c.IDKind]
			if !ok {
				t.Errorf("%s: no record of kind %s to call it with; add one", route, c.IDKind)
				continue
			}
			path = strings.Replace(path, "{id}", id, 1)
		}
		var body any
		if c.Method != "GET" && c.Method != "DELETE" {
			body = traineeBody(f, route)
			switch route {
			case "POST /trainees/{id}/form-responses":
				body = map[string]any{"assignmentId": sent.ID, "answers": map[string]any{"notes": "ask Coach own, 050-123-4567"}}
			case "POST /appointments/{id}/move":
				// A place of her own to move, into the fixture's slot.
				var slot, fresh struct {
					ID string `json:"id"`
				}
				e.OK(201, e.Call(k, "POST", "/appointment-slots", map[string]any{"coachId": f.Coach.ID, "day": kit.AddDays(kit.Today(), 3), "time": "10:00"})).Into(t, &slot)
				e.OK(201, e.Call(k, "POST", "/trainees/"+f.Trainee.ID+"/appointments", map[string]any{"slotId": slot.ID})).Into(t, &fresh)
				path = "/appointments/" + fresh.ID + "/move"
				body = map[string]any{"slotId": f.Slot.ID}
			case "POST /trainees/{id}/withdraw":
				var fresh struct {
					ID string `json:"id"`
				}
				e.OK(201, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70.1})).Into(t, &fresh)
				body = map[string]any{"recordId": fresh.ID}
			}
			if body == nil {
				body = map[string]any{}
			}
		}
		a := e.Call(tok, c.Method, path, body)
		if !a.OK {
			t.Errorf("%s: a trainee's call failed (%d %s); give it a body in traineeBodies", route, a.Status, a.Message())
			continue
		}
		tried++
		data := string(a.Data)
		for _, leak := range leaks {
			if strings.Contains(data, leak) {
				t.Errorf("%s: the answer holds %q: %s", route, leak, data)
			}
		}
		for _, field := range []string{`"phone"`, `"email"`, `"firstName"`, `"lastName"`, `"coachIds"`, `"createdAt"`, `"updatedAt"`} {
			if strings.Contains(data, field) {
				t.Errorf("%s: the answer keeps %s: %s", route, field, data)
			}
		}
		// The same call by the studio key is not scrubbed.
		if c.Method == "GET" && c.IDKind == ids.Trainee {
			sk := e.OK(200, e.Call(k, "GET", strings.Replace(c.Path, "{id}", f.Trainee.ID, 1), nil))
			if len(sk.Data) < len(a.Data) {
				t.Errorf("%s: the studio key's answer (%d bytes) is smaller than the trainee's (%d)", route, len(sk.Data), len(a.Data))
			}
		}
	}
	if tried < 20 {
		t.Errorf("only %d trainee routes answered", tried)
	}
	// The studio key still sees the notes as written.
	var s struct{ Notes string }
	e.OK(200, e.Call(k, "GET", "/sessions/"+f.Session.ID, nil)).Into(t, &s)
	if !strings.Contains(s.Notes, "050-765-4321") {
		t.Errorf("studio key's session notes %q", s.Notes)
	}
}

// A trainee replaying a write by its Idempotency-Key gets the scrubbed answer.
func TestTraineeReplayIsScrubbed(t *testing.T) {
	e := lanetest.NewTrainee(t, storetest.OpenSQLite(t), lanetest.TraineeOptions{})
	f := e.Seed("replay")
	tok := e.TraineeToken(f)
	body := map[string]any{"readiness": 3, "note": "call 052-000-0001"}
	first := e.OK(201, e.Call(tok, "POST", "/trainees/me/check-ins", body, "Idempotency-Key", "chk-1"))
	again := e.OK(201, e.Call(tok, "POST", "/trainees/me/check-ins", body, "Idempotency-Key", "chk-1"))
	if again.Header.Get(lane.ReplayedHeader) != "true" || string(again.Data) != string(first.Data) {
		t.Fatalf("replay %s %s, first %s", again.Header.Get(lane.ReplayedHeader), again.Data, first.Data)
	}
	if strings.Contains(string(again.Data), "052-000-0001") || strings.Contains(string(again.Data), "createdAt") {
		t.Errorf("replay not scrubbed: %s", again.Data)
	}
}

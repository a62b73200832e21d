package lane_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// dryRunCase is one write route's requests: one the lane accepts and one
// it refuses, each a path and a body, built on the seeded fixture.
type dryRunCase struct {
	good func(f fixture) (string, any)
	bad  func(f fixture) (string, any)
	// prepare, when set, makes the record the write changes.
	prepare func(e *env, f fixture)
}

// noSuch are ids of the right kind that name nothing.
const (
	noTrainee = "trn_00000000000000000000000000"
	noSession = "ses_00000000000000000000000000"
)

// dryRunCases has one entry per write route; a write route without one
// fails TestDryRunOnEveryWrite.
// dryRunExempt are the write routes this test cannot call, each with why:
// an agent platform's verification routes need the conversation that /mcp
// carries to the lane in process, which a network call cannot; their tests
// are in internal/mcpserver (verify_test.go).
var dryRunExempt = map[string]string{
	"POST /public/verification/start":    "needs an agent platform's conversation",
	"POST /public/verification/confirm":  "needs an agent platform's conversation",
	"POST /public/verification/sign-out": "needs an agent platform's conversation",
}

var dryRunCases = map[string]dryRunCase{
	"POST /trainees/{id}/message-drafts": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/message-drafts", map[string]any{"purpose": "payment_due"}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/message-drafts", map[string]any{"purpose": "custom"}
		},
	},
	"POST /trainees/{id}/sessions/swap": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "leg press", "from": today(), "to": today()}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "nope", "from": today(), "to": today()}
		},
	},
	"POST /groups/forms": {
		good: func(f fixture) (string, any) {
			return "/groups/forms", map[string]any{"tag": f.tag.Name, "formTemplateId": f.form.Name, "notify": false}
		},
		bad: func(f fixture) (string, any) { return "/groups/forms", map[string]any{"formTemplateId": f.form.ID} },
	},
	"POST /groups/subscriptions": {
		good: func(f fixture) (string, any) {
			return "/groups/subscriptions", map[string]any{"traineeIds": []string{f.trainee.ID}, "productId": f.product.ID}
		},
		bad: func(f fixture) (string, any) {
			return "/groups/subscriptions", map[string]any{"tag": "nope", "productId": f.product.ID}
		},
	},
	"POST /groups/tasks": {
		good: func(f fixture) (string, any) {
			return "/groups/tasks", map[string]any{"traineeIds": []string{"Dana"}, "title": "Call each"}
		},
		bad: func(f fixture) (string, any) {
			return "/groups/tasks", map[string]any{"traineeIds": []string{noTrainee}, "title": "x"}
		},
	},
	"POST /coaches": {
		good: func(f fixture) (string, any) { return "/coaches", map[string]any{"name": "Second coach"} },
		bad:  func(f fixture) (string, any) { return "/coaches", map[string]any{"name": ""} },
	},
	"PATCH /coaches/{id}": {
		good: func(f fixture) (string, any) { return "/coaches/" + f.coach.ID, map[string]any{"name": "Renamed"} },
		bad: func(f fixture) (string, any) {
			return "/coaches/coa_00000000000000000000000000", map[string]any{"name": "x"}
		},
	},
	"POST /exercises": {
		good: func(f fixture) (string, any) {
			return "/exercises", map[string]any{"name": "Farmer carry dry", "category": "conditioning", "primaryMuscles": []string{"forearms"},
				"equipment": []string{"dumbbell"}, "measure": "distance", "loadsAreas": []string{"wrist"}}
		},
		bad: func(f fixture) (string, any) { return "/exercises", map[string]any{"name": "x"} },
	},
	"POST /forms": {
		good: func(f fixture) (string, any) {
			return "/forms", map[string]any{"name": "Weekly", "fields": []map[string]any{{"key": "mood", "label": "Mood?", "type": "scale"}}}
		},
		bad: func(f fixture) (string, any) {
			return "/forms", map[string]any{"name": "Weekly", "fields": []map[string]any{}}
		},
	},
	"PATCH /goals/{id}": {
		good: func(f fixture) (string, any) { return "/goals/" + f.goal.ID, map[string]any{"targetValue": 4} },
		bad:  func(f fixture) (string, any) { return "/goals/" + f.goal.ID, map[string]any{"status": "nonsense"} },
	},
	"PATCH /injuries/{id}": {
		good: func(f fixture) (string, any) { return "/injuries/" + f.injury.ID, map[string]any{"severity": 3} },
		bad:  func(f fixture) (string, any) { return "/injuries/" + f.injury.ID, map[string]any{"severity": 99} },
	},
	"POST /keys": {
		good: func(f fixture) (string, any) { return "/keys", map[string]any{"name": "Zapier"} },
		bad: func(f fixture) (string, any) {
			return "/keys", map[string]any{"name": "Zapier", "scopes": []string{"everything"}}
		},
	},
	"DELETE /keys/{id}": {
		good: func(f fixture) (string, any) { return "/keys/" + f.otherKeyID, nil },
		bad:  func(f fixture) (string, any) { return "/keys/key_00000000000000000000000000", nil },
	},
	"POST /products": {
		good: func(f fixture) (string, any) { return "/products", map[string]any{"name": "Yearly", "price": 3000} },
		bad:  func(f fixture) (string, any) { return "/products", map[string]any{"name": "Yearly", "price": -1} },
	},
	"PATCH /products/{id}": {
		good: func(f fixture) (string, any) { return "/products/" + f.product.ID, map[string]any{"price": 320} },
		bad:  func(f fixture) (string, any) { return "/products/" + f.product.ID, map[string]any{"durationDays": 0} },
	},
	"POST /program-templates": {
		good: func(f fixture) (string, any) {
			return "/program-templates", map[string]any{"name": "Hypertrophy", "weeks": 6}
		},
		bad: func(f fixture) (string, any) {
			return "/program-templates", map[string]any{"name": "Hypertrophy", "weeks": -2}
		},
	},
	"PUT /program-templates/{id}/structure": {
		good: func(f fixture) (string, any) {
			return "/program-templates/" + f.template.ID + "/structure", map[string]any{"phases": []map[string]any{{"name": "Base", "weeks": []map[string]any{{"days": []map[string]any{
				{"weekday": 1, "title": "Lower", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}}}}}}}}}
		},
		bad: func(f fixture) (string, any) {
			return "/program-templates/ptm_00000000000000000000000000/structure", map[string]any{"phases": []map[string]any{}}
		},
	},
	"PATCH /sessions/{id}": {
		good: func(f fixture) (string, any) {
			return "/sessions/" + f.session.ID, map[string]any{"title": "Lower, lighter"}
		},
		bad: func(f fixture) (string, any) { return "/sessions/" + f.session.ID, map[string]any{"rpe": 42} },
	},
	"POST /sessions/{id}/modify": {
		good: func(f fixture) (string, any) {
			return "/sessions/" + f.session.ID + "/modify", map[string]any{"operation": "reschedule", "date": AddDays(today(), 2)}
		},
		bad: func(f fixture) (string, any) {
			return "/sessions/" + noSession + "/modify", map[string]any{"operation": "reschedule", "date": AddDays(today(), 2)}
		},
	},
	"POST /trainees/{id}/plan-drafts": {
		prepare: func(e *env, f fixture) {
			e.ok(200, e.call(f.key, "PATCH", "/trainees/"+f.trainee.ID+"/training-profile", map[string]any{"equipment": []string{"dumbbell", "bench"}}))
		},
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/plan-drafts", map[string]any{"days": []int{1, 3, 5}, "fresh": true}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/plan-drafts", map[string]any{"days": []int{1, 3, 5}, "week": "2020-01-06"}
		},
	},
	"POST /plan-drafts/{id}/apply": {
		good: func(f fixture) (string, any) { return "/plan-drafts/" + f.draft.ID + "/apply", nil },
		bad:  func(f fixture) (string, any) { return "/plan-drafts/pld_00000000000000000000000000/apply", nil },
	},
	"PATCH /studio/settings": {
		good: func(f fixture) (string, any) {
			return "/studio/settings", map[string]any{"timeZone": "Europe/London", "digestTemplate": "morning_digest"}
		},
		bad: func(f fixture) (string, any) { return "/studio/settings", map[string]any{"timeZone": "Mars/Olympus"} },
	},
	"PUT /coaches/{id}/digest": {
		good: func(f fixture) (string, any) {
			return "/coaches/" + f.coach.ID + "/digest", map[string]any{"enabled": true, "hour": 6}
		},
		bad: func(f fixture) (string, any) {
			return "/coaches/" + f.coach.ID + "/digest", map[string]any{"enabled": true, "hour": 24}
		},
	},
	"POST /subscriptions/{id}/cancel": {
		good: func(f fixture) (string, any) { return "/subscriptions/" + f.subscription.ID + "/cancel", nil },
		bad:  func(f fixture) (string, any) { return "/subscriptions/sub_00000000000000000000000000/cancel", nil },
	},
	"POST /subscriptions/{id}/freeze": {
		good: func(f fixture) (string, any) { return "/subscriptions/" + f.subscription.ID + "/freeze", nil },
		bad:  func(f fixture) (string, any) { return "/subscriptions/sub_00000000000000000000000000/freeze", nil },
	},
	"POST /tags": {
		good: func(f fixture) (string, any) { return "/tags", map[string]any{"name": "morning"} },
		bad:  func(f fixture) (string, any) { return "/tags", map[string]any{"name": ""} },
	},
	"DELETE /tags/{id}": {
		good: func(f fixture) (string, any) { return "/tags/" + f.tag.ID, nil },
		bad:  func(f fixture) (string, any) { return "/tags/tag_00000000000000000000000000", nil },
	},
	"POST /tasks": {
		good: func(f fixture) (string, any) {
			return "/tasks", map[string]any{"title": "Call back", "clientId": f.trainee.ID}
		},
		bad: func(f fixture) (string, any) {
			return "/tasks", map[string]any{"title": "Call back", "clientId": noTrainee}
		},
	},
	"PATCH /tasks/{id}": {
		good: func(f fixture) (string, any) { return "/tasks/" + f.task.ID, map[string]any{"status": "done"} },
		bad:  func(f fixture) (string, any) { return "/tasks/" + f.task.ID, map[string]any{"status": "snoozed"} },
	},
	"POST /trainees": {
		good: func(f fixture) (string, any) {
			return "/trainees", map[string]any{"firstName": "Noa", "lastName": "Bar", "phone": "050-765-4321", "productId": f.product.ID}
		},
		// The phone is Dana's: the uniqueness check answers the same sentence.
		bad: func(f fixture) (string, any) {
			return "/trainees", map[string]any{"firstName": "Noa", "lastName": "Bar", "phone": "050-123-4567"}
		},
	},
	"DELETE /trainees/{id}": {
		good: func(f fixture) (string, any) { return "/trainees/" + f.trainee.ID, nil },
		bad:  func(f fixture) (string, any) { return "/trainees/" + noTrainee, nil },
	},
	"PATCH /trainees/{id}": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID, map[string]any{"firstName": "Danah", "tags": []string{}}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID, map[string]any{"coachIds": []string{"coa_00000000000000000000000000"}}
		},
	},
	"POST /trainees/{id}/benchmarks": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/benchmarks", map[string]any{"benchmarkId": f.benchmark.ID, "value": 10}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/benchmarks", map[string]any{"benchmarkId": "bmk_00000000000000000000000000", "value": 10}
		},
	},
	"POST /trainees/{id}/check-ins": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/check-ins", map[string]any{"readiness": 7}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/check-ins", map[string]any{"readiness": 70}
		},
	},
	"POST /trainees/{id}/form-responses": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/form-responses", map[string]any{"formTemplateId": f.form.ID, "answers": map[string]any{"sleep": 5}}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/form-responses", map[string]any{"formTemplateId": f.form.ID, "answers": map[string]any{"sleep": 50}}
		},
	},
	"POST /trainees/{id}/forms/assign": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/forms/assign", map[string]any{"formTemplateId": f.form.ID}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/forms/assign", map[string]any{"formTemplateId": "frm_00000000000000000000000000"}
		},
	},
	"POST /trainees/{id}/goals": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/goals", map[string]any{"title": "Pull-ups to 12", "kind": "benchmark", "benchmarkId": f.benchmark.ID, "targetValue": 12}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/goals", map[string]any{"title": "Pull-ups to 12", "kind": "benchmark", "benchmarkId": "bmk_00000000000000000000000000", "targetValue": 12}
		},
	},
	"POST /trainees/{id}/injuries": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/injuries", map[string]any{"area": "shoulder", "severity": 1}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/injuries", map[string]any{"area": "shoulder", "severity": 9}
		},
	},
	"POST /trainees/{id}/measurements": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/measurements", map[string]any{"waistCm": 74}
		},
		bad: func(f fixture) (string, any) { return "/trainees/" + f.trainee.ID + "/measurements", map[string]any{} },
	},
	"POST /trainees/{id}/messages": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/messages", map[string]any{"text": "See you at 7"}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + noTrainee + "/messages", map[string]any{"text": "See you at 7"}
		},
	},
	"POST /trainees/{id}/programs/assign": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/programs/assign", map[string]any{"templateId": f.template.ID, "notify": true}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/programs/assign", map[string]any{"templateId": "ptm_00000000000000000000000000"}
		},
	},
	"POST /trainees/{id}/sessions": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/sessions", map[string]any{"date": AddDays(today(), 3), "sport": "running", "durationMin": 40}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/sessions", map[string]any{"date": "next tuesday", "sport": "running"}
		},
	},
	"POST /trainees/{id}/subscription": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/subscription", map[string]any{"productId": f.product.ID, "notify": true}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/subscription", map[string]any{"productId": "prd_00000000000000000000000000"}
		},
	},
	"PUT /studio/persona": {
		good: func(f fixture) (string, any) {
			return "/studio/persona", map[string]any{"name": "Coach", "tone": "Warm and direct.", "answerFormat": "Numbers first."}
		},
		bad: func(f fixture) (string, any) { return "/studio/persona", map[string]any{"name": "Coach"} },
	},
	"DELETE /studio/persona": {
		prepare: func(e *env, f fixture) {
			e.ok(200, e.call(f.key, "PUT", "/studio/persona", map[string]any{"name": "Coach", "tone": "Warm and direct.", "answerFormat": "Numbers first."}))
		},
		good: func(f fixture) (string, any) { return "/studio/persona", nil },
		bad:  func(f fixture) (string, any) { return "/studio/persona?force=1", nil },
	},
	"POST /trainees/{id}/feedback": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/feedback", map[string]any{"text": "The weekly summary helps", "rating": 5}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/feedback", map[string]any{"text": "x", "rating": 9}
		},
	},
	"POST /trainees/{id}/goals/manage": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/goals/manage", map[string]any{"action": "create", "title": "Feel strong", "kind": "text"}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/goals/manage", map[string]any{"action": "explode"}
		},
	},
	"PATCH /trainees/{id}/training-profile": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/training-profile", map[string]any{"units": "imperial"}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/training-profile", map[string]any{"sessionMinutes": 5}
		},
	},
	"PUT /trainees/{id}/training-profile": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/training-profile", map[string]any{"experience": "intermediate", "sessionMinutes": 60}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/training-profile", map[string]any{"sessionMinutes": 5}
		},
	},
	"POST /trainees/{id}/weights": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/weights", map[string]any{"weightKg": 72.4}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/weights", map[string]any{"weightKg": -3}
		},
	},
	"POST /trainees/{id}/withdraw": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/withdraw", map[string]any{"recordId": f.weight.ID}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/withdraw", map[string]any{"recordId": noSession}
		},
	},
	"POST /trainees/{id}/whatsapp-invite": {
		good: func(f fixture) (string, any) { return "/trainees/" + f.trainee.ID + "/whatsapp-invite", nil },
		bad:  func(f fixture) (string, any) { return "/trainees/" + noTrainee + "/whatsapp-invite", nil },
	},
	"POST /trainees/{id}/workouts": {
		good: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/workouts", map[string]any{"sport": "strength", "durationMin": 50,
				"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 100}}}}}
		},
		bad: func(f fixture) (string, any) {
			return "/trainees/" + f.trainee.ID + "/workouts", map[string]any{"sessionId": noSession}
		},
	},
}

// TestDryRunOnEveryWrite runs each write route of the lane as a dry run
// and for real: the dry run writes nothing (every table but the audit as
// it was, no Idempotency-Key kept), answers what the real call then
// answers, and refuses a bad request with the real call's very answer.
//
// Each route runs on a store of its own (storetest's pooled copies), so a
// fingerprint reads one small fixture: the test grows with the number of
// routes, not with its square, and the routes run in parallel.
//
// It sweeps the routes on SQLite (not under -race, as every heavy route
// sweep); TestDryRunOnPostgres runs a sample on PostgreSQL, whose side of a
// dry run is the same store.InTx rolled back.
func TestDryRunOnEveryWrite(t *testing.T) {
	open := sweepEngines(t)[store.EngineSQLite]
	dryRunWrites(t, open, nil)
}

// pgDryRunSample are the writes TestDryRunOnPostgres runs: a create, a
// patch, a put and a delete, and the writes whose rows fire triggers
// (a workout keeps last_completed_on) or touch several tables at once.
var pgDryRunSample = []string{
	"POST /trainees",
	"PATCH /trainees/{id}/training-profile",
	"PUT /trainees/{id}/training-profile",
	"DELETE /studio/persona",
	"POST /trainees/{id}/workouts",
	"POST /trainees/{id}/withdraw",
	"POST /trainees/{id}/subscription",
}

// TestDryRunOnPostgres is TestDryRunOnEveryWrite's check, on PostgreSQL,
// for the writes of pgDryRunSample.
func TestDryRunOnPostgres(t *testing.T) {
	t.Parallel()
	dryRunWrites(t, storetest.Engines(t)[store.EnginePostgres], pgDryRunSample)
}

// dryRunWrites runs the dry-run check on every write route, or on only
// those named in sample.
func dryRunWrites(t *testing.T, open func(*testing.T) store.Store, sample []string) {
	var writes []string
	for _, c := range areas.Lane(lane.Options{}).Contracts() {
		if c.Method != "GET" {
			writes = append(writes, c.Method+" "+c.Path)
		}
	}
	for name := range dryRunCases {
		if !slices.Contains(writes, name) {
			t.Errorf("dryRunCases has %s, which is no write route", name)
		}
	}
	for _, name := range sample {
		if _, ok := dryRunCases[name]; !ok {
			t.Errorf("the sample names %s, which has no dry-run case", name)
		}
	}
	for i, name := range writes {
		if sample != nil && !slices.Contains(sample, name) {
			continue
		}
		if reason, ok := dryRunExempt[name]; ok {
			t.Logf("%s: no dry-run case: %s", name, reason)
			continue
		}
		tc, ok := dryRunCases[name]
		if !ok {
			t.Errorf("write route %s has no dry-run case in dryRunCases", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			e := newEnv(t, st)
			f := e.seed(fmt.Sprintf("dry%d", i))
			f.otherKeyID = e.otherKey(f)
			if tc.prepare != nil {
				tc.prepare(e, f)
			}
			method, _, _ := strings.Cut(name, " ")
			dry := []string{lane.PreferHeader, "return=minimal, dry-run", lane.IdempotencyHeader, fmt.Sprintf("dry-%d", i)}

			path, body := tc.bad(f)
			before := fingerprint(t, st)
			dryBad := e.call(f.key, method, path, body, dry...)
			if got := fingerprint(t, st); got != before {
				t.Fatalf("a refused dry run changed the database:\n%s", diffLines(before, got))
			}
			realBad := e.call(f.key, method, path, body)
			if dryBad.OK || dryBad.Status != realBad.Status || dryBad.message() != realBad.message() || dryBad.code() != realBad.code() {
				t.Fatalf("bad request: dry run %d %s %q, real call %d %s %q", dryBad.Status, dryBad.code(), dryBad.message(), realBad.Status, realBad.code(), realBad.message())
			}

			path, body = tc.good(f)
			before = fingerprint(t, st)
			a := e.ok(200, e.call(f.key, method, path, body, dry...))
			if got := fingerprint(t, st); got != before {
				t.Fatalf("a dry run changed the database:\n%s", diffLines(before, got))
			}
			if a.Header.Get(lane.PreferenceAppliedHeader) != "dry-run" {
				t.Errorf("Preference-Applied = %q", a.Header.Get(lane.PreferenceAppliedHeader))
			}
			var d struct {
				DryRun bool              `json:"dryRun"`
				Status int               `json:"status"`
				Data   json.RawMessage   `json:"data"`
				Names  map[string]string `json:"names"`
			}
			a.into(t, &d)
			if !d.DryRun || len(d.Data) == 0 {
				t.Fatalf("dry run answer %s", a.Raw)
			}
			if strings.HasPrefix(path, "/trainees/"+f.trainee.ID) && d.Names[f.trainee.ID] != f.trainee.FirstName+" "+f.trainee.LastName {
				t.Errorf("names %v lack the trainee", d.Names)
			}
			// The same key, used for real, runs: the dry run kept no record of it.
			real := e.call(f.key, method, path, body, lane.IdempotencyHeader, fmt.Sprintf("dry-%d", i))
			if !real.OK || real.Status != d.Status || real.Header.Get(lane.ReplayedHeader) != "" {
				t.Fatalf("real call after the dry run: %d %s (dry run said %d)", real.Status, real.Raw, d.Status)
			}
			if fingerprint(t, st) == before {
				t.Fatalf("the real call changed nothing; the case proves nothing")
			}
			e.audit.Flush()
			if !auditedDryRun(t, st, f.studio.ID, method) {
				t.Errorf("no dry-run audit event")
			}
		})
	}
}

// TestDryRunAnswersChosenDates: a plan assigned without startedOn starts,
// in the dry run, on the day the real call then chooses, with the names
// of the trainee and the plan.
func TestDryRunAnswersChosenDates(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("dates")
		path := "/trainees/" + f.trainee.ID + "/subscription"
		a := e.ok(200, e.call(f.key, "POST", path, map[string]any{"productId": f.product.ID}, lane.PreferHeader, "dry-run"))
		var d struct {
			Data struct {
				StartedOn string `json:"startedOn"`
			} `json:"data"`
			Names map[string]string `json:"names"`
		}
		a.into(t, &d)
		if want := AddDays(f.subscription.StartedOn, 30); d.Data.StartedOn != want {
			t.Errorf("dry run starts %s, want the day after the live plan ends, %s", d.Data.StartedOn, want)
		}
		if d.Names[f.product.ID] != f.product.Name || d.Names[f.trainee.ID] == "" {
			t.Errorf("names %v", d.Names)
		}
		var real struct {
			StartedOn string `json:"startedOn"`
		}
		e.ok(201, e.call(f.key, "POST", path, map[string]any{"productId": f.product.ID})).into(t, &real)
		if real.StartedOn != d.Data.StartedOn {
			t.Errorf("real call started %s, dry run said %s", real.StartedOn, d.Data.StartedOn)
		}
		// A read ignores the preference.
		g := e.ok(200, e.call(f.key, "GET", "/trainees/"+f.trainee.ID, nil, lane.PreferHeader, "dry-run"))
		if g.Header.Get(lane.PreferenceAppliedHeader) != "" {
			t.Errorf("a read applied the dry run")
		}
	})
}

// otherKey mints a second key, so revoking one leaves the test's own.
func (e *env) otherKey(f fixture) string {
	_, id := e.newKey(f.studio.ID, "other")
	return id
}

func auditedDryRun(t *testing.T, st store.Store, studioID, method string) bool {
	l, err := st.ListAudit(context.Background(), studioID, store.Page{Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range l.Items {
		if ev.Method == method && strings.HasSuffix(ev.Route, " (dry run)") {
			return true
		}
	}
	return false
}

// fingerprint is a line per table but the audit and River's: its name,
// its row count and a hash of its rows (a key's last_used_at left out, as
// every call sets it). On PostgreSQL the database hashes every table in
// one query; SQLite, in process, is read row by row.
func fingerprint(t *testing.T, st store.Store) string {
	t.Helper()
	names := fingerprintTables(t, st)
	if st.Engine() == "postgres" {
		parts := make([]string, len(names))
		for i, name := range names {
			parts[i] = fmt.Sprintf(`SELECT %d AS n, '%s' AS name, count(*) AS c, md5(coalesce(string_agg((to_jsonb(r) - 'last_used_at')::text, E'\n' ORDER BY (to_jsonb(r) - 'last_used_at')::text), '')) AS h FROM %s r`, i, name, name)
		}
		rows, err := st.DB().QueryContext(context.Background(), strings.Join(parts, " UNION ALL ")+" ORDER BY n")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n, c int
			var name, h string
			if err := rows.Scan(&n, &name, &c, &h); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d %s", name, c, h[:12]))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n")
	}
	db := st.DB()
	var out []string
	for _, name := range names {
		rows, err := db.QueryContext(context.Background(), `SELECT * FROM `+name)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if cols[i] == "last_used_at" {
					continue
				}
				if raw, ok := v.([]byte); ok {
					v = string(raw)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			lines = append(lines, b.String())
		}
		rows.Close()
		slices.Sort(lines)
		h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		out = append(out, fmt.Sprintf("%s %d %s", name, len(lines), hex.EncodeToString(h[:6])))
	}
	return strings.Join(out, "\n")
}

// fingerprintTables are the tables fingerprint reads, sorted: the same in
// every store of an engine, so read once per engine.
func fingerprintTables(t *testing.T, st store.Store) []string {
	t.Helper()
	fpTables.Lock()
	defer fpTables.Unlock()
	if names, ok := fpTables.byEngine[st.Engine()]; ok {
		return names
	}
	q := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if st.Engine() == "postgres" {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	var names []string
	for _, name := range queryStrings(t, st.DB(), q) {
		if name == "audit_events" || strings.HasPrefix(name, "river_") || strings.HasPrefix(name, "sqlite_") {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	fpTables.byEngine[st.Engine()] = names
	return names
}

var fpTables = struct {
	sync.Mutex
	byEngine map[string][]string
}{byEngine: map[string][]string{}}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			out = append(out, al[i]+" -> "+bl[i])
		}
	}
	return strings.Join(out, "\n")
}

func TestOpenAPIDocumentsDryRun(t *testing.T) {
	doc := openAPIDoc(t)
	for path, ops := range doc.Paths {
		for method, op := range ops {
			has := false
			for _, p := range op.Parameters {
				has = has || (p.Name == lane.PreferHeader && p.In == "header" && strings.Contains(p.Description, "dry-run"))
			}
			if write := method != "get"; write != has {
				t.Errorf("%s %s: Prefer: dry-run documented %v", method, path, has)
			}
		}
	}
}

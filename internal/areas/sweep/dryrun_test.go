package sweep_test

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
	"time"

	"github.com/otherwise/perform/internal/areas"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/store/storetest"
)

// dryRunCase is one write route's requests: one the lane accepts and one
// it refuses, each a path and a body, built on the seeded fixture.
type dryRunCase struct {
	good func(f kit.Fixture) (string, any)
	bad  func(f kit.Fixture) (string, any)
	// prepare, when set, makes the record the write changes.
	prepare func(e *kit.Env, f kit.Fixture)
}

// dryPaymentEvent is the unmatched payment event the match's case keeps.
const dryPaymentEvent = "pev_000000000000000000000000dr"

// noSuch are ids of the right kind that name nothing.
const (
	noTrainee = "trn_00000000000000000000000000"
	noSession = "ses_00000000000000000000000000"
)

// dryRunWritesOf lists the write routes of a lane of list, reporting each
// write that has neither a dry-run case nor an exemption, and each case
// that names no write.
func dryRunWritesOf(r reporter, list []lane.Area) []string {
	var writes []string
	for _, c := range lane.New(lane.Options{Areas: list}).Contracts() {
		if c.Method == "GET" {
			continue
		}
		name := c.Method + " " + c.Path
		writes = append(writes, name)
		if _, ok := dryRunCases[name]; !ok && dryRunExempt[name] == "" {
			r.Errorf("write route %s has no dry-run case in dryRunCases", name)
		}
	}
	for name := range dryRunCases {
		if !slices.Contains(writes, name) {
			r.Errorf("dryRunCases has %s, which is no write route", name)
		}
	}
	return writes
}

// allHours gives the fixture's coach every hour of every day.
func allHours(e *kit.Env, f kit.Fixture) {
	var hours []map[string]any
	for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		hours = append(hours, map[string]any{"day": d, "from": "00:00", "to": "24:00"})
	}
	e.OK(200, e.Call(f.Key, "PUT", "/coaches/"+f.Coach.ID+"/hours", map[string]any{"hours": hours}))
}

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
	"POST /payments-webhook":             "needs PERFORM_SECRET_KEY, which the sweep's lane has not; internal/areas/payhook runs its dry run",
	"POST /payments-webhook/rotate":      "needs PERFORM_SECRET_KEY, which the sweep's lane has not; internal/areas/payhook runs its dry run",
}

var dryRunCases = map[string]dryRunCase{
	"PUT /coaches/{id}/hours": {
		good: func(f kit.Fixture) (string, any) {
			return "/coaches/" + f.Coach.ID + "/hours", map[string]any{"hours": []map[string]any{{"day": "sunday", "from": "08:00", "to": "20:00"}}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/coaches/" + f.Coach.ID + "/hours", map[string]any{"hours": []map[string]any{{"day": "sunday", "from": "20:00", "to": "08:00"}}}
		},
	},
	"POST /appointment-slots": {
		good: func(f kit.Fixture) (string, any) {
			return "/appointment-slots", map[string]any{"coachId": f.Coach.ID, "day": kit.AddDays(kit.Today(), 3), "time": "09:00", "capacity": 4}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/appointment-slots", map[string]any{"coachId": f.Coach.ID, "day": kit.AddDays(kit.Today(), 2), "time": "10:30"} // overlaps the fixture's slot
		},
	},
	"POST /trainees/{id}/appointments": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/appointments", map[string]any{"coachId": f.Coach.ID, "day": kit.AddDays(kit.Today(), 4), "time": "10:00"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/appointments", map[string]any{"day": "someday", "time": "10:00"}
		},
		prepare: allHours,
	},
	"POST /appointments/{id}/move": {
		good: func(f kit.Fixture) (string, any) {
			return "/appointments/" + f.Appointment.ID + "/move", map[string]any{"day": kit.AddDays(kit.Today(), 5), "time": "10:00"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/appointments/" + f.Appointment.ID + "/move", map[string]any{"day": "someday", "time": "10:00"}
		},
		prepare: allHours,
	},
	"POST /appointments/{id}/cancel": {
		good: func(f kit.Fixture) (string, any) { return "/appointments/" + f.Appointment.ID + "/cancel", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/appointments/apt_00000000000000000000000000/cancel", nil },
	},
	"POST /appointments/{id}/mark": {
		good: func(f kit.Fixture) (string, any) {
			return "/appointments/" + f.Appointment.ID + "/mark", map[string]any{"status": "attended", "sessionId": f.Session.ID}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/appointments/" + f.Appointment.ID + "/mark", map[string]any{"status": "no_show", "sessionId": f.Session.ID}
		},
		prepare: func(e *kit.Env, f kit.Fixture) { // marked once begun: the fixture's, moved three days back
			back := int64(3 * 24 * 3600 * 1000)
			if _, err := e.St.DB().Exec(e.St.Rebind(`UPDATE appointments SET starts_at = starts_at - ?, ends_at = ends_at - ? WHERE id = ?`), back, back, f.Appointment.ID); err != nil {
				e.T.Fatal(err)
			}
		},
	},
	"PATCH /appointment-settings": {
		good: func(f kit.Fixture) (string, any) {
			return "/appointment-settings", map[string]any{"lateCancelHours": 24}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/appointment-settings", map[string]any{"lateCancelHours": -1}
		},
	},
	"POST /coaches/{id}/calendar-feed": {
		good: func(f kit.Fixture) (string, any) { return "/coaches/" + f.Coach.ID + "/calendar-feed", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/coaches/coa_00000000000000000000000000/calendar-feed", nil },
	},
	"DELETE /coaches/{id}/calendar-feed": {
		good: func(f kit.Fixture) (string, any) { return "/coaches/" + f.Coach.ID + "/calendar-feed", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/coaches/coa_00000000000000000000000000/calendar-feed", nil },
		prepare: func(e *kit.Env, f kit.Fixture) {
			e.OK(201, e.Call(f.Key, "POST", "/coaches/"+f.Coach.ID+"/calendar-feed", nil))
		},
	},
	"POST /trainees/{id}/message-drafts": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/message-drafts", map[string]any{"purpose": "payment_due"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/message-drafts", map[string]any{"purpose": "custom"}
		},
	},
	"POST /trainees/{id}/sessions/swap": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "leg press", "from": kit.Today(), "to": kit.Today()}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/sessions/swap", map[string]any{"exerciseId": "back-squat", "replacementId": "nope", "from": kit.Today(), "to": kit.Today()}
		},
	},
	"POST /groups/forms": {
		good: func(f kit.Fixture) (string, any) {
			return "/groups/forms", map[string]any{"tag": f.Tag.Name, "formTemplateId": f.Form.Name, "notify": false}
		},
		bad: func(f kit.Fixture) (string, any) { return "/groups/forms", map[string]any{"formTemplateId": f.Form.ID} },
	},
	"POST /groups/subscriptions": {
		good: func(f kit.Fixture) (string, any) {
			return "/groups/subscriptions", map[string]any{"traineeIds": []string{f.Trainee.ID}, "productId": f.Product.ID}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/groups/subscriptions", map[string]any{"tag": "nope", "productId": f.Product.ID}
		},
	},
	"POST /groups/tasks": {
		good: func(f kit.Fixture) (string, any) {
			return "/groups/tasks", map[string]any{"traineeIds": []string{"Dana"}, "title": "Call each"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/groups/tasks", map[string]any{"traineeIds": []string{noTrainee}, "title": "x"}
		},
	},
	"POST /coaches": {
		good: func(f kit.Fixture) (string, any) { return "/coaches", map[string]any{"name": "Second coach"} },
		bad:  func(f kit.Fixture) (string, any) { return "/coaches", map[string]any{"name": ""} },
	},
	"PATCH /coaches/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/coaches/" + f.Coach.ID, map[string]any{"name": "Renamed"} },
		bad: func(f kit.Fixture) (string, any) {
			return "/coaches/coa_00000000000000000000000000", map[string]any{"name": "x"}
		},
	},
	"POST /exercises": {
		good: func(f kit.Fixture) (string, any) {
			return "/exercises", map[string]any{"name": "Farmer carry dry", "category": "conditioning", "primaryMuscles": []string{"forearms"},
				"equipment": []string{"dumbbell"}, "measure": "distance", "loadsAreas": []string{"wrist"}}
		},
		bad: func(f kit.Fixture) (string, any) { return "/exercises", map[string]any{"name": "x"} },
	},
	"POST /forms": {
		good: func(f kit.Fixture) (string, any) {
			return "/forms", map[string]any{"name": "Weekly", "fields": []map[string]any{{"key": "mood", "label": "Mood?", "type": "scale"}}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/forms", map[string]any{"name": "Weekly", "fields": []map[string]any{}}
		},
	},
	"PATCH /goals/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/goals/" + f.Goal.ID, map[string]any{"targetValue": 4} },
		bad:  func(f kit.Fixture) (string, any) { return "/goals/" + f.Goal.ID, map[string]any{"status": "nonsense"} },
	},
	"PATCH /injuries/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/injuries/" + f.Injury.ID, map[string]any{"severity": 3} },
		bad:  func(f kit.Fixture) (string, any) { return "/injuries/" + f.Injury.ID, map[string]any{"severity": 99} },
	},
	"POST /keys": {
		good: func(f kit.Fixture) (string, any) { return "/keys", map[string]any{"name": "Zapier"} },
		bad: func(f kit.Fixture) (string, any) {
			return "/keys", map[string]any{"name": "Zapier", "scopes": []string{"everything"}}
		},
	},
	"PATCH /keys/{id}": {
		good: func(f kit.Fixture) (string, any) {
			return "/keys/" + f.OtherKeyID, map[string]any{"remove": []string{"studio:admin"}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/keys/" + f.OtherKeyID, map[string]any{"add": []string{"everything"}}
		},
	},
	"DELETE /keys/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/keys/" + f.OtherKeyID, nil },
		bad:  func(f kit.Fixture) (string, any) { return "/keys/key_00000000000000000000000000", nil },
	},
	"POST /products": {
		good: func(f kit.Fixture) (string, any) { return "/products", map[string]any{"name": "Yearly", "price": 3000} },
		bad:  func(f kit.Fixture) (string, any) { return "/products", map[string]any{"name": "Yearly", "price": -1} },
	},
	"PATCH /products/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/products/" + f.Product.ID, map[string]any{"price": 320} },
		bad: func(f kit.Fixture) (string, any) {
			return "/products/" + f.Product.ID, map[string]any{"durationDays": 0}
		},
	},
	"POST /program-templates": {
		good: func(f kit.Fixture) (string, any) {
			return "/program-templates", map[string]any{"name": "Hypertrophy", "weeks": 6}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/program-templates", map[string]any{"name": "Hypertrophy", "weeks": -2}
		},
	},
	"PUT /program-templates/{id}/structure": {
		good: func(f kit.Fixture) (string, any) {
			return "/program-templates/" + f.Template.ID + "/structure", map[string]any{"phases": []map[string]any{{"name": "Base", "weeks": []map[string]any{{"days": []map[string]any{
				{"weekday": 1, "title": "Lower", "exercises": []map[string]any{{"exerciseId": "back-squat", "sets": 3, "reps": 5}}}}}}}}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/program-templates/ptm_00000000000000000000000000/structure", map[string]any{"phases": []map[string]any{}}
		},
	},
	"PATCH /sessions/{id}": {
		good: func(f kit.Fixture) (string, any) {
			return "/sessions/" + f.Session.ID, map[string]any{"title": "Lower, lighter"}
		},
		bad: func(f kit.Fixture) (string, any) { return "/sessions/" + f.Session.ID, map[string]any{"rpe": 42} },
	},
	"POST /sessions/{id}/modify": {
		good: func(f kit.Fixture) (string, any) {
			return "/sessions/" + f.Session.ID + "/modify", map[string]any{"operation": "reschedule", "date": kit.AddDays(kit.Today(), 2)}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/sessions/" + noSession + "/modify", map[string]any{"operation": "reschedule", "date": kit.AddDays(kit.Today(), 2)}
		},
	},
	"POST /trainees/{id}/plan-drafts": {
		prepare: func(e *kit.Env, f kit.Fixture) {
			e.OK(200, e.Call(f.Key, "PATCH", "/trainees/"+f.Trainee.ID+"/training-profile", map[string]any{"equipment": []string{"dumbbell", "bench"}}))
		},
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/plan-drafts", map[string]any{"days": []int{1, 3, 5}, "fresh": true}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/plan-drafts", map[string]any{"days": []int{1, 3, 5}, "week": "2020-01-06"}
		},
	},
	"POST /plan-drafts/{id}/apply": {
		good: func(f kit.Fixture) (string, any) { return "/plan-drafts/" + f.Draft.ID + "/apply", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/plan-drafts/pld_00000000000000000000000000/apply", nil },
	},
	"PATCH /studio/settings": {
		good: func(f kit.Fixture) (string, any) {
			return "/studio/settings", map[string]any{"timeZone": "Europe/London", "digestTemplate": "morning_digest"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/studio/settings", map[string]any{"timeZone": "Mars/Olympus"}
		},
	},
	"PUT /coaches/{id}/digest": {
		good: func(f kit.Fixture) (string, any) {
			return "/coaches/" + f.Coach.ID + "/digest", map[string]any{"enabled": true, "hour": 6}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/coaches/" + f.Coach.ID + "/digest", map[string]any{"enabled": true, "hour": 24}
		},
	},
	"POST /subscriptions/{id}/cancel": {
		good: func(f kit.Fixture) (string, any) { return "/subscriptions/" + f.Subscription.ID + "/cancel", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/subscriptions/sub_00000000000000000000000000/cancel", nil },
	},
	"POST /subscriptions/{id}/freeze": {
		good: func(f kit.Fixture) (string, any) { return "/subscriptions/" + f.Subscription.ID + "/freeze", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/subscriptions/sub_00000000000000000000000000/freeze", nil },
	},
	"POST /tags": {
		good: func(f kit.Fixture) (string, any) { return "/tags", map[string]any{"name": "morning"} },
		bad:  func(f kit.Fixture) (string, any) { return "/tags", map[string]any{"name": ""} },
	},
	"DELETE /tags/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/tags/" + f.Tag.ID, nil },
		bad:  func(f kit.Fixture) (string, any) { return "/tags/tag_00000000000000000000000000", nil },
	},
	"POST /tasks": {
		good: func(f kit.Fixture) (string, any) {
			return "/tasks", map[string]any{"title": "Call back", "clientId": f.Trainee.ID}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/tasks", map[string]any{"title": "Call back", "clientId": noTrainee}
		},
	},
	"PATCH /tasks/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/tasks/" + f.Task.ID, map[string]any{"status": "done"} },
		bad:  func(f kit.Fixture) (string, any) { return "/tasks/" + f.Task.ID, map[string]any{"status": "snoozed"} },
	},
	"POST /trainees": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees", map[string]any{"firstName": "Noa", "lastName": "Bar", "phone": "050-765-4321", "productId": f.Product.ID}
		},
		// The phone is Dana's: the uniqueness check answers the same sentence.
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees", map[string]any{"firstName": "Noa", "lastName": "Bar", "phone": "050-123-4567"}
		},
	},
	"DELETE /trainees/{id}": {
		good: func(f kit.Fixture) (string, any) { return "/trainees/" + f.Trainee.ID, nil },
		bad:  func(f kit.Fixture) (string, any) { return "/trainees/" + noTrainee, nil },
	},
	"PATCH /trainees/{id}": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID, map[string]any{"firstName": "Danah", "tags": []string{}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID, map[string]any{"coachIds": []string{"coa_00000000000000000000000000"}}
		},
	},
	"POST /trainees/{id}/benchmarks": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/benchmarks", map[string]any{"benchmarkId": f.Benchmark.ID, "value": 10}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/benchmarks", map[string]any{"benchmarkId": "bmk_00000000000000000000000000", "value": 10}
		},
	},
	"POST /trainees/{id}/check-ins": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/check-ins", map[string]any{"readiness": 7}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/check-ins", map[string]any{"readiness": 70}
		},
	},
	"POST /trainees/{id}/form-responses": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/form-responses", map[string]any{"formTemplateId": f.Form.ID, "answers": map[string]any{"sleep": 5}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/form-responses", map[string]any{"formTemplateId": f.Form.ID, "answers": map[string]any{"sleep": 50}}
		},
	},
	"POST /trainees/{id}/forms/assign": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/forms/assign", map[string]any{"formTemplateId": f.Form.ID}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/forms/assign", map[string]any{"formTemplateId": "frm_00000000000000000000000000"}
		},
	},
	"POST /trainees/{id}/goals": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/goals", map[string]any{"title": "Pull-ups to 12", "kind": "benchmark", "benchmarkId": f.Benchmark.ID, "targetValue": 12}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/goals", map[string]any{"title": "Pull-ups to 12", "kind": "benchmark", "benchmarkId": "bmk_00000000000000000000000000", "targetValue": 12}
		},
	},
	"POST /trainees/{id}/injuries": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/injuries", map[string]any{"area": "shoulder", "severity": 1}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/injuries", map[string]any{"area": "shoulder", "severity": 9}
		},
	},
	"POST /trainees/{id}/measurements": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/measurements", map[string]any{"waistCm": 74}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/measurements", map[string]any{}
		},
	},
	"POST /trainees/{id}/messages": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/messages", map[string]any{"text": "See you at 7"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + noTrainee + "/messages", map[string]any{"text": "See you at 7"}
		},
	},
	"POST /trainees/{id}/programs/assign": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/programs/assign", map[string]any{"templateId": f.Template.ID, "notify": true}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/programs/assign", map[string]any{"templateId": "ptm_00000000000000000000000000"}
		},
	},
	"POST /trainees/{id}/sessions": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/sessions", map[string]any{"date": kit.AddDays(kit.Today(), 3), "sport": "running", "durationMin": 40}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/sessions", map[string]any{"date": "next tuesday", "sport": "running"}
		},
	},
	"POST /trainees/{id}/subscription": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/subscription", map[string]any{"productId": f.Product.ID, "notify": true}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/subscription", map[string]any{"productId": "prd_00000000000000000000000000"}
		},
	},
	"POST /trainees/{id}/payments": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/payments", map[string]any{"amount": 250.5, "method": "bit", "note": "March"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/payments", map[string]any{"amount": 0, "method": "cash"}
		},
	},
	"POST /payments/{id}/refund": {
		good: func(f kit.Fixture) (string, any) {
			return "/payments/" + f.Payment.ID + "/refund", map[string]any{"amount": 40}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/payments/" + f.Payment.ID + "/refund", map[string]any{"amount": 100.01}
		},
	},
	"PATCH /billing/settings": {
		good: func(f kit.Fixture) (string, any) { return "/billing/settings", map[string]any{"paymentTermsDays": 10} },
		bad:  func(f kit.Fixture) (string, any) { return "/billing/settings", map[string]any{"paymentTermsDays": -1} },
	},
	"PUT /studio/persona": {
		good: func(f kit.Fixture) (string, any) {
			return "/studio/persona", map[string]any{"name": "Coach", "tone": "Warm and direct.", "answerFormat": "Numbers first."}
		},
		bad: func(f kit.Fixture) (string, any) { return "/studio/persona", map[string]any{"name": "Coach"} },
	},
	"POST /payment-events/{id}/match": {
		prepare: func(e *kit.Env, f kit.Fixture) {
			now := time.Now()
			ev := store.PaymentEvent{ID: dryPaymentEvent, StudioID: f.Studio.ID, Processor: "stripe", EventID: "evt_dry", Type: "invoice.paid", ObjectID: "in_dry",
				ExternalID: "in_dry", AmountMinor: 35000, Currency: "ILS", Outcome: store.PaymentEventUnmatched, OccurredAt: now, ReceivedAt: now}
			if _, err := e.St.PaymentHooks().AddPaymentEvent(context.Background(), &ev); err != nil {
				e.T.Fatal(err)
			}
		},
		good: func(f kit.Fixture) (string, any) {
			return "/payment-events/" + dryPaymentEvent + "/match", map[string]any{"traineeId": f.Trainee.ID}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/payment-events/" + dryPaymentEvent + "/match", map[string]any{"traineeId": noTrainee}
		},
	},
	"PUT /products/{id}/payment-link": {
		good: func(f kit.Fixture) (string, any) {
			return "/products/" + f.Product.ID + "/payment-link", map[string]any{"url": "https://buy.stripe.com/test_dry"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/products/" + f.Product.ID + "/payment-link", map[string]any{"url": "http://buy.stripe.com/test_dry"}
		},
	},
	"DELETE /products/{id}/payment-link": {
		prepare: func(e *kit.Env, f kit.Fixture) {
			e.OK(200, e.Call(f.Key, "PUT", "/products/"+f.Product.ID+"/payment-link", map[string]any{"url": "https://buy.stripe.com/test_dry"}))
		},
		good: func(f kit.Fixture) (string, any) { return "/products/" + f.Product.ID + "/payment-link", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/products/" + f.OpenProduct.ID + "/payment-link", nil },
	},
	"DELETE /payments-webhook": {
		prepare: func(e *kit.Env, f kit.Fixture) {
			now := time.Now()
			if err := e.St.PaymentHooks().PutPaymentHook(context.Background(), store.PaymentHook{StudioID: f.Studio.ID, TokenHash: []byte("dry-run " + f.Studio.ID),
				TokenHint: "pwh_dryrun", Secret: "v1:sealed", Processor: "stripe", CreatedAt: now, RotatedAt: now}); err != nil {
				e.T.Fatal(err)
			}
		},
		good: func(f kit.Fixture) (string, any) { return "/payments-webhook", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/payments-webhook?force=1", nil },
	},
	"DELETE /studio/persona": {
		prepare: func(e *kit.Env, f kit.Fixture) {
			e.OK(200, e.Call(f.Key, "PUT", "/studio/persona", map[string]any{"name": "Coach", "tone": "Warm and direct.", "answerFormat": "Numbers first."}))
		},
		good: func(f kit.Fixture) (string, any) { return "/studio/persona", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/studio/persona?force=1", nil },
	},
	"POST /trainees/{id}/feedback": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/feedback", map[string]any{"text": "The weekly summary helps", "rating": 5}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/feedback", map[string]any{"text": "x", "rating": 9}
		},
	},
	"POST /trainees/{id}/goals/manage": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/goals/manage", map[string]any{"action": "create", "title": "Feel strong", "kind": "text"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/goals/manage", map[string]any{"action": "explode"}
		},
	},
	"PATCH /trainees/{id}/training-profile": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/training-profile", map[string]any{"units": "imperial"}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/training-profile", map[string]any{"sessionMinutes": 5}
		},
	},
	"PUT /trainees/{id}/training-profile": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/training-profile", map[string]any{"experience": "intermediate", "sessionMinutes": 60}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/training-profile", map[string]any{"sessionMinutes": 5}
		},
	},
	"POST /trainees/{id}/weights": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/weights", map[string]any{"weightKg": 72.4}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/weights", map[string]any{"weightKg": -3}
		},
	},
	"POST /trainees/{id}/withdraw": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/withdraw", map[string]any{"recordId": f.Weight.ID}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/withdraw", map[string]any{"recordId": noSession}
		},
	},
	"POST /trainees/{id}/whatsapp-invite": {
		good: func(f kit.Fixture) (string, any) { return "/trainees/" + f.Trainee.ID + "/whatsapp-invite", nil },
		bad:  func(f kit.Fixture) (string, any) { return "/trainees/" + noTrainee + "/whatsapp-invite", nil },
	},
	"POST /trainees/{id}/workouts": {
		good: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/workouts", map[string]any{"sport": "strength", "durationMin": 50,
				"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 100}}}}}
		},
		bad: func(f kit.Fixture) (string, any) {
			return "/trainees/" + f.Trainee.ID + "/workouts", map[string]any{"sessionId": noSession}
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
	open := kit.SweepEngines(t)[store.EngineSQLite]
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
	"POST /trainees/{id}/payments",
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
	writes := dryRunWritesOf(t, areas.All(areas.Options{}))
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
			continue // dryRunWritesOf reported it
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := open(t)
			e := lanetest.New(t, st)
			f := e.Seed(fmt.Sprintf("dry%d", i))
			f.OtherKeyID = e.OtherKey(f)
			if tc.prepare != nil {
				tc.prepare(e, f)
			}
			method, _, _ := strings.Cut(name, " ")
			dry := []string{lane.PreferHeader, "return=minimal, dry-run", lane.IdempotencyHeader, fmt.Sprintf("dry-%d", i)}

			path, body := tc.bad(f)
			before := fingerprint(t, st)
			dryBad := e.Call(f.Key, method, path, body, dry...)
			if got := fingerprint(t, st); got != before {
				t.Fatalf("a refused dry run changed the database:\n%s", diffLines(before, got))
			}
			realBad := e.Call(f.Key, method, path, body)
			if dryBad.OK || dryBad.Status != realBad.Status || dryBad.Message() != realBad.Message() || dryBad.Code() != realBad.Code() {
				t.Fatalf("bad request: dry run %d %s %q, real call %d %s %q", dryBad.Status, dryBad.Code(), dryBad.Message(), realBad.Status, realBad.Code(), realBad.Message())
			}

			path, body = tc.good(f)
			before = fingerprint(t, st)
			a := e.OK(200, e.Call(f.Key, method, path, body, dry...))
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
			a.Into(t, &d)
			if !d.DryRun || len(d.Data) == 0 {
				t.Fatalf("dry run answer %s", a.Raw)
			}
			if strings.HasPrefix(path, "/trainees/"+f.Trainee.ID) && d.Names[f.Trainee.ID] != f.Trainee.FirstName+" "+f.Trainee.LastName {
				t.Errorf("names %v lack the trainee", d.Names)
			}
			// The same key, used for real, runs: the dry run kept no record of it.
			real := e.Call(f.Key, method, path, body, lane.IdempotencyHeader, fmt.Sprintf("dry-%d", i))
			if !real.OK || real.Status != d.Status || real.Header.Get(lane.ReplayedHeader) != "" {
				t.Fatalf("real call after the dry run: %d %s (dry run said %d)", real.Status, real.Raw, d.Status)
			}
			if fingerprint(t, st) == before {
				t.Fatalf("the real call changed nothing; the case proves nothing")
			}
			e.Audit.Flush()
			if !auditedDryRun(t, st, f.Studio.ID, method) {
				t.Errorf("no dry-run audit event")
			}
		})
	}
}

// TestDryRunAnswersChosenDates: a plan assigned without startedOn starts,
// in the dry run, on the day the real call then chooses, with the names
// of the trainee and the plan.
func TestDryRunAnswersChosenDates(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("dates")
		path := "/trainees/" + f.Trainee.ID + "/subscription"
		a := e.OK(200, e.Call(f.Key, "POST", path, map[string]any{"productId": f.Product.ID}, lane.PreferHeader, "dry-run"))
		var d struct {
			Data struct {
				StartedOn string `json:"startedOn"`
			} `json:"data"`
			Names map[string]string `json:"names"`
		}
		a.Into(t, &d)
		if want := kit.AddDays(f.Subscription.StartedOn, 30); d.Data.StartedOn != want {
			t.Errorf("dry run starts %s, want the day after the live plan ends, %s", d.Data.StartedOn, want)
		}
		if d.Names[f.Product.ID] != f.Product.Name || d.Names[f.Trainee.ID] == "" {
			t.Errorf("names %v", d.Names)
		}
		var real struct {
			StartedOn string `json:"startedOn"`
		}
		e.OK(201, e.Call(f.Key, "POST", path, map[string]any{"productId": f.Product.ID})).Into(t, &real)
		if real.StartedOn != d.Data.StartedOn {
			t.Errorf("real call started %s, dry run said %s", real.StartedOn, d.Data.StartedOn)
		}
		// A read ignores the preference.
		g := e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID, nil, lane.PreferHeader, "dry-run"))
		if g.Header.Get(lane.PreferenceAppliedHeader) != "" {
			t.Errorf("a read applied the dry run")
		}
	})
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
	doc := lanetest.OpenAPIDoc(t)
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

// The OpenAPI document describes the header on writes only.
func TestOpenAPIDocumentsIdempotencyKey(t *testing.T) {
	doc := lanetest.OpenAPIDoc(t)
	writes := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			has := false
			for _, p := range op.Parameters {
				if p.Name == "Idempotency-Key" && p.In == "header" {
					has = !p.Required && strings.Contains(p.Description, "24 hours")
				}
			}
			if write := method != "get"; write != has {
				t.Errorf("%s %s: Idempotency-Key documented %v", method, path, has)
			} else if write {
				writes++
			}
		}
	}
	if writes == 0 {
		t.Fatal("no write operations in the document")
	}
}

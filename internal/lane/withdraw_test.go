package lane_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/testkit"
	"github.com/otherwise/perform/internal/tools"
)

// A trainee withdraws what she logged within 15 minutes, and nothing else:
// not an update of an earlier check-in, not a planned session she
// completed, not another trainee's record, not a record older than that.
// The lane's clock ticks a millisecond or more at every reading, as a
// loaded server's does between two reads of one request: a request writes
// one instant, so its fresh check-in is still one log to take back.
func TestTraineeWithdrawsAFreshLog(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		var ahead atomic.Int64 // how far the lane's clock is ahead of the store's
		tick := testkit.StepClock()
		e := newTraineeEnv(t, st, traineeEnvOptions{now: func() time.Time { return tick().Add(time.Duration(ahead.Load())) }})
		f := e.seed("wd")
		other := e.secondTrainee(f)
		tok := e.traineeToken(f)
		var rec struct {
			ID      string `json:"id"`
			Session struct {
				ID string `json:"id"`
			} `json:"session"`
		}
		withdraw := func(id string) answer {
			return e.call(tok, "POST", "/trainees/me/withdraw", map[string]any{"recordId": id})
		}

		// A weigh-in, once.
		e.ok(201, e.call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70.2})).into(t, &rec)
		var got struct{ ID, Kind string }
		e.ok(200, withdraw(rec.ID)).into(t, &got)
		if got.ID != rec.ID || got.Kind != "weigh_in" {
			t.Fatalf("withdrew %+v, want the weigh-in %s", got, rec.ID)
		}
		if a := e.fails(404, "NOT_FOUND", withdraw(rec.ID)); !strings.Contains(a.message(), "Nothing to withdraw") {
			t.Errorf("a second withdrawal says %q", a.message())
		}

		// A workout with its PR entries.
		e.ok(201, e.call(tok, "POST", "/trainees/me/workouts", map[string]any{"sport": "strength", "durationMin": 45,
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 90}}}}})).into(t, &rec)
		e.ok(200, withdraw(rec.Session.ID))
		e.fails(404, "NOT_FOUND", e.call(f.key, "GET", "/sessions/"+rec.Session.ID, nil))

		// A check-in, written at one instant, but not once it updated an
		// earlier one of the day.
		var ci struct{ ID string }
		e.ok(201, e.call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 6})).into(t, &ci)
		var created, updated int64
		if err := st.DB().QueryRowContext(t.Context(), st.Rebind(`SELECT created_at, updated_at FROM checkins WHERE id = ?`), ci.ID).Scan(&created, &updated); err != nil || created != updated {
			t.Errorf("one request wrote two instants: created %d, updated %d (%v)", created, updated, err)
		}
		e.ok(200, withdraw(ci.ID))
		e.ok(201, e.call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 6})).into(t, &rec)
		e.ok(201, e.call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 3}))
		e.fails(404, "NOT_FOUND", withdraw(rec.ID))

		// Form answers: the form is pending again.
		var sent struct{ ID string }
		e.ok(201, e.call(f.key, "POST", "/trainees/"+f.trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.form.ID, "notify": false})).into(t, &sent)
		e.ok(201, e.call(tok, "POST", "/trainees/me/form-responses", map[string]any{"assignmentId": sent.ID, "answers": map[string]any{"sleep": 3}})).into(t, &rec)
		e.ok(200, withdraw(rec.ID))
		a, err := st.Studio(f.studio.ID).GetFormAssignment(t.Context(), sent.ID)
		if err != nil || a.Status != "pending" {
			t.Errorf("the withdrawn answers' form is %q (%v), want pending", a.Status, err)
		}

		// The planned session of the fixture, completed by logging, stays.
		e.ok(201, e.call(tok, "POST", "/trainees/me/workouts", map[string]any{"sessionId": f.session.ID}))
		e.fails(404, "NOT_FOUND", withdraw(f.session.ID))
		// Another trainee's record, and a kind that cannot be withdrawn.
		e.fails(404, "NOT_FOUND", withdraw(other.session))
		e.fails(422, "VALIDATION", withdraw(f.goal.ID))

		// Past 15 minutes nothing is withdrawn.
		e.ok(201, e.call(tok, "POST", "/trainees/me/measurements", map[string]any{"waistCm": 80})).into(t, &rec)
		ahead.Store(int64(16 * time.Minute))
		e.fails(404, "NOT_FOUND", withdraw(rec.ID))
		ahead.Store(0)
		e.ok(200, withdraw(rec.ID))
	})
}

// One credential speaking for two people (the assistant's studio key, for
// each trainee or coach whose phone wrote): the same Idempotency-Key and
// the same request are two writes, each answered with its own record.
func TestAKeyIsItsSpeakersOwn(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("spk")
		other := e.secondTrainee(f)
		lc := laneclient.New("http://perform.internal", laneclient.HandlerTransport(e.lane), domain.SourceWhatsApp)
		weigh := func(ctx context.Context) string {
			raw, err := lc.Do(ctx, f.key, tools.Request{Method: "POST", Path: "/trainees/me/weights", Body: map[string]any{"weightKg": 70}, IdempotencyKey: "repeat:same"})
			if err != nil {
				t.Fatal(err)
			}
			var w struct{ ID string }
			if err := json.Unmarshal(raw, &w); err != nil {
				t.Fatal(err)
			}
			return w.ID
		}
		ctx := context.Background()
		a, b := weigh(auth.WithTrainee(ctx, f.trainee.ID)), weigh(auth.WithTrainee(ctx, other.trainee))
		if a == b {
			t.Fatalf("the second trainee was answered with the first's weigh-in %s", a)
		}
		if again := weigh(auth.WithTrainee(ctx, f.trainee.ID)); again != a {
			t.Fatalf("her own repeat was not replayed: %s, then %s", a, again)
		}
		for _, id := range []string{f.trainee.ID, other.trainee} {
			list, err := st.Studio(f.studio.ID).ListWeights(ctx, id, store.Page{Limit: 10})
			if err != nil || list.Total != map[string]int{f.trainee.ID: 2, other.trainee: 1}[id] {
				t.Errorf("%s has %d weigh-ins (%v)", id, list.Total, err)
			}
		}
		// A trainee the studio does not have is refused, never the studio key.
		if _, err := lc.Do(auth.WithTrainee(ctx, "trn_00000000000000000000000000"), f.key, tools.Request{Method: "GET", Path: "/trainees/me"}); err == nil || !strings.Contains(err.Error(), "does not have") {
			t.Errorf("speaking for a stranger answered %v", err)
		}
	})
}

// A trainee withdraws only what she logged herself: every withdrawable
// record the studio logged for her, fresh as it is, answers not found to
// her own token and to the WhatsApp assistant speaking for her (its בטל
// calls this route), and stays, with the PRs of a session; and the studio
// does not withdraw what she logged.
func TestTraineeWithdrawsOnlyHerOwn(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("own")
		tok := e.traineeToken(f)
		tp := "/trainees/" + f.trainee.ID
		var workout struct {
			Session struct{ ID string } `json:"session"`
		}
		e.ok(201, e.call(f.key, "POST", tp+"/workouts", map[string]any{"sport": "strength", "durationMin": 40,
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 100}}}}})).into(t, &workout)
		var measurement, checkIn struct{ ID string }
		e.ok(201, e.call(f.key, "POST", tp+"/measurements", map[string]any{"waistCm": 81})).into(t, &measurement)
		e.ok(201, e.call(f.key, "POST", tp+"/check-ins", map[string]any{"readiness": 8})).into(t, &checkIn)
		coachLogged := map[string]string{"weigh_in": f.weight.ID, "workout": workout.Session.ID, "measurement": measurement.ID,
			"check_in": checkIn.ID, "form_answers": f.response.ID}
		if len(coachLogged) != len(store.Withdrawable) {
			t.Fatalf("the test covers %d kinds; %d are withdrawable", len(coachLogged), len(store.Withdrawable))
		}
		ctx := context.Background()
		assistant := laneclient.New("http://perform.internal", laneclient.HandlerTransport(e.lane), domain.SourceWhatsApp)
		herTurn := auth.WithTrainee(ctx, f.trainee.ID)
		for kind, id := range coachLogged {
			if a := e.fails(404, "NOT_FOUND", e.call(tok, "POST", "/trainees/me/withdraw", map[string]any{"recordId": id})); !strings.Contains(a.message(), "Nothing to withdraw") {
				t.Errorf("%s %s: %q", kind, id, a.message())
			}
			_, err := assistant.Do(herTurn, f.key, tools.Request{Method: "POST", Path: tp + "/withdraw", Body: map[string]string{"recordId": id}})
			var le *laneclient.Error
			if !errors.As(err, &le) || le.Code != "NOT_FOUND" {
				t.Errorf("the assistant's undo of the studio's %s %s: %v", kind, id, err)
			}
		}
		count := func(query string, args ...any) int {
			var n int
			if err := st.DB().QueryRowContext(ctx, st.Rebind(query), args...).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for table, id := range map[string]string{"weights": f.weight.ID, "sessions": workout.Session.ID, "measurements": measurement.ID,
			"checkins": checkIn.ID, "form_responses": f.response.ID} {
			if count(`SELECT count(*) FROM `+table+` WHERE id = ?`, id) != 1 {
				t.Errorf("the studio's %s row %s was deleted", table, id)
			}
		}
		if count(`SELECT count(*) FROM benchmark_entries WHERE session_id = ?`, workout.Session.ID) == 0 {
			t.Errorf("the PRs of the studio's workout were deleted")
		}

		// Her own weigh-in, logged on WhatsApp: the studio's key does not
		// take it back, her undo does.
		raw, err := assistant.Do(herTurn, f.key, tools.Request{Method: "POST", Path: tp + "/weights", Body: map[string]any{"weightKg": 69.8}})
		if err != nil {
			t.Fatal(err)
		}
		var hers struct{ ID string }
		if err := json.Unmarshal(raw, &hers); err != nil {
			t.Fatal(err)
		}
		e.fails(404, "NOT_FOUND", e.call(f.key, "POST", tp+"/withdraw", map[string]any{"recordId": hers.ID}))
		if _, err := assistant.Do(herTurn, f.key, tools.Request{Method: "POST", Path: tp + "/withdraw", Body: map[string]string{"recordId": hers.ID}}); err != nil {
			t.Fatalf("her undo of her own weigh-in: %v", err)
		}
	})
}

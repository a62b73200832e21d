package health_test

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
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
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
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		var ahead atomic.Int64 // how far the lane's clock is ahead of the store's
		tick := testkit.StepClock()
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: func() time.Time { return tick().Add(time.Duration(ahead.Load())) }})
		f := e.Seed("wd")
		other := e.SecondTrainee(f)
		tok := e.TraineeToken(f)
		var rec struct {
			ID      string `json:"id"`
			Session struct {
				ID string `json:"id"`
			} `json:"session"`
		}
		withdraw := func(id string) kit.Answer {
			return e.Call(tok, "POST", "/trainees/me/withdraw", map[string]any{"recordId": id})
		}

		// A weigh-in, once.
		e.OK(201, e.Call(tok, "POST", "/trainees/me/weights", map[string]any{"weightKg": 70.2})).Into(t, &rec)
		var got struct{ ID, Kind string }
		e.OK(200, withdraw(rec.ID)).Into(t, &got)
		if got.ID != rec.ID || got.Kind != "weigh_in" {
			t.Fatalf("withdrew %+v, want the weigh-in %s", got, rec.ID)
		}
		if a := e.Fails(404, "NOT_FOUND", withdraw(rec.ID)); !strings.Contains(a.Message(), "Nothing to withdraw") {
			t.Errorf("a second withdrawal says %q", a.Message())
		}

		// A workout with its PR entries.
		e.OK(201, e.Call(tok, "POST", "/trainees/me/workouts", map[string]any{"sport": "strength", "durationMin": 45,
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 90}}}}})).Into(t, &rec)
		e.OK(200, withdraw(rec.Session.ID))
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "GET", "/sessions/"+rec.Session.ID, nil))

		// A check-in, written at one instant, but not once it updated an
		// earlier one of the day.
		var ci struct{ ID string }
		e.OK(201, e.Call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 6})).Into(t, &ci)
		var created, updated int64
		if err := st.DB().QueryRowContext(t.Context(), st.Rebind(`SELECT created_at, updated_at FROM checkins WHERE id = ?`), ci.ID).Scan(&created, &updated); err != nil || created != updated {
			t.Errorf("one request wrote two instants: created %d, updated %d (%v)", created, updated, err)
		}
		e.OK(200, withdraw(ci.ID))
		e.OK(201, e.Call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 6})).Into(t, &rec)
		e.OK(201, e.Call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 3}))
		e.Fails(404, "NOT_FOUND", withdraw(rec.ID))

		// Form answers: the form is pending again.
		var sent struct{ ID string }
		e.OK(201, e.Call(f.Key, "POST", "/trainees/"+f.Trainee.ID+"/forms/assign", map[string]any{"formTemplateId": f.Form.ID, "notify": false})).Into(t, &sent)
		e.OK(201, e.Call(tok, "POST", "/trainees/me/form-responses", map[string]any{"assignmentId": sent.ID, "answers": map[string]any{"sleep": 3}})).Into(t, &rec)
		e.OK(200, withdraw(rec.ID))
		a, err := st.Studio(f.Studio.ID).GetFormAssignment(t.Context(), sent.ID)
		if err != nil || a.Status != "pending" {
			t.Errorf("the withdrawn answers' form is %q (%v), want pending", a.Status, err)
		}

		// The planned session of the fixture, completed by logging, stays.
		e.OK(201, e.Call(tok, "POST", "/trainees/me/workouts", map[string]any{"sessionId": f.Session.ID}))
		e.Fails(404, "NOT_FOUND", withdraw(f.Session.ID))
		// Another trainee's record, and a kind that cannot be withdrawn.
		e.Fails(404, "NOT_FOUND", withdraw(other.Session))
		e.Fails(422, "VALIDATION", withdraw(f.Goal.ID))

		// Past 15 minutes nothing is withdrawn.
		e.OK(201, e.Call(tok, "POST", "/trainees/me/measurements", map[string]any{"waistCm": 80})).Into(t, &rec)
		ahead.Store(int64(16 * time.Minute))
		e.Fails(404, "NOT_FOUND", withdraw(rec.ID))
		ahead.Store(0)
		e.OK(200, withdraw(rec.ID))
	})
}

// One credential speaking for two people (the assistant's studio key, for
// each trainee or coach whose phone wrote): the same Idempotency-Key and
// the same request are two writes, each answered with its own record.
func TestAKeyIsItsSpeakersOwn(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("spk")
		other := e.SecondTrainee(f)
		lc := laneclient.New("http://perform.internal", laneclient.HandlerTransport(e.Lane), domain.SourceWhatsApp)
		weigh := func(ctx context.Context) string {
			raw, err := lc.Do(ctx, f.Key, tools.Request{Method: "POST", Path: "/trainees/me/weights", Body: map[string]any{"weightKg": 70}, IdempotencyKey: "repeat:same"})
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
		a, b := weigh(auth.WithTrainee(ctx, f.Trainee.ID)), weigh(auth.WithTrainee(ctx, other.Trainee))
		if a == b {
			t.Fatalf("the second trainee was answered with the first's weigh-in %s", a)
		}
		if again := weigh(auth.WithTrainee(ctx, f.Trainee.ID)); again != a {
			t.Fatalf("her own repeat was not replayed: %s, then %s", a, again)
		}
		for _, id := range []string{f.Trainee.ID, other.Trainee} {
			list, err := st.Studio(f.Studio.ID).ListWeights(ctx, id, store.Page{Limit: 10})
			if err != nil || list.Total != map[string]int{f.Trainee.ID: 2, other.Trainee: 1}[id] {
				t.Errorf("%s has %d weigh-ins (%v)", id, list.Total, err)
			}
		}
		// A trainee the studio does not have is refused, never the studio key.
		if _, err := lc.Do(auth.WithTrainee(ctx, "trn_00000000000000000000000000"), f.Key, tools.Request{Method: "GET", Path: "/trainees/me"}); err == nil || !strings.Contains(err.Error(), "does not have") {
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
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("own")
		tok := e.TraineeToken(f)
		tp := "/trainees/" + f.Trainee.ID
		var workout struct {
			Session struct{ ID string } `json:"session"`
		}
		e.OK(201, e.Call(f.Key, "POST", tp+"/workouts", map[string]any{"sport": "strength", "durationMin": 40,
			"exercises": []map[string]any{{"exerciseId": "back-squat", "sets": []map[string]any{{"reps": 5, "loadKg": 100}}}}})).Into(t, &workout)
		var measurement, checkIn struct{ ID string }
		e.OK(201, e.Call(f.Key, "POST", tp+"/measurements", map[string]any{"waistCm": 81})).Into(t, &measurement)
		e.OK(201, e.Call(f.Key, "POST", tp+"/check-ins", map[string]any{"readiness": 8})).Into(t, &checkIn)
		coachLogged := map[string]string{"weigh_in": f.Weight.ID, "workout": workout.Session.ID, "measurement": measurement.ID,
			"check_in": checkIn.ID, "form_answers": f.Response.ID}
		if len(coachLogged) != len(store.Withdrawable) {
			t.Fatalf("the test covers %d kinds; %d are withdrawable", len(coachLogged), len(store.Withdrawable))
		}
		ctx := context.Background()
		assistant := laneclient.New("http://perform.internal", laneclient.HandlerTransport(e.Lane), domain.SourceWhatsApp)
		herTurn := auth.WithTrainee(ctx, f.Trainee.ID)
		for kind, id := range coachLogged {
			if a := e.Fails(404, "NOT_FOUND", e.Call(tok, "POST", "/trainees/me/withdraw", map[string]any{"recordId": id})); !strings.Contains(a.Message(), "Nothing to withdraw") {
				t.Errorf("%s %s: %q", kind, id, a.Message())
			}
			_, err := assistant.Do(herTurn, f.Key, tools.Request{Method: "POST", Path: tp + "/withdraw", Body: map[string]string{"recordId": id}})
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
		for table, id := range map[string]string{"weights": f.Weight.ID, "sessions": workout.Session.ID, "measurements": measurement.ID,
			"checkins": checkIn.ID, "form_responses": f.Response.ID} {
			if count(`SELECT count(*) FROM `+table+` WHERE id = ?`, id) != 1 {
				t.Errorf("the studio's %s row %s was deleted", table, id)
			}
		}
		if count(`SELECT count(*) FROM benchmark_entries WHERE session_id = ?`, workout.Session.ID) == 0 {
			t.Errorf("the PRs of the studio's workout were deleted")
		}

		// Her own weigh-in, logged on WhatsApp: the studio's key does not
		// take it back, her undo does.
		raw, err := assistant.Do(herTurn, f.Key, tools.Request{Method: "POST", Path: tp + "/weights", Body: map[string]any{"weightKg": 69.8}})
		if err != nil {
			t.Fatal(err)
		}
		var hers struct{ ID string }
		if err := json.Unmarshal(raw, &hers); err != nil {
			t.Fatal(err)
		}
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "POST", tp+"/withdraw", map[string]any{"recordId": hers.ID}))
		if _, err := assistant.Do(herTurn, f.Key, tools.Request{Method: "POST", Path: tp + "/withdraw", Body: map[string]string{"recordId": hers.ID}}); err != nil {
			t.Fatalf("her undo of her own weigh-in: %v", err)
		}
	})
}

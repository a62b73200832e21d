package lane_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/tools"
)

// A trainee withdraws what she logged within 15 minutes, and nothing else:
// not an update of an earlier check-in, not a planned session she
// completed, not another trainee's record, not a record older than that.
func TestTraineeWithdrawsAFreshLog(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		var ahead atomic.Int64 // how far the lane's clock is ahead of the store's
		e := newTraineeEnv(t, st, traineeEnvOptions{now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})
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

		// A check-in, but not once it updated an earlier one of the day.
		e.ok(201, e.call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 6})).into(t, &rec)
		e.ok(200, withdraw(rec.ID))
		e.ok(201, e.call(tok, "POST", "/trainees/me/check-ins", map[string]any{"readiness": 6})).into(t, &rec)
		time.Sleep(2 * time.Millisecond) // the update's time differs from the creation's
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

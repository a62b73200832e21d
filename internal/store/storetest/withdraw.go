package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// withdrawTables is the table of each withdrawable kind, for the test to
// see whether a record is still there.
var withdrawTables = map[ids.Kind]string{ids.Session: "sessions", ids.CheckIn: "checkins", ids.Weight: "weights",
	ids.Measurement: "measurements", ids.FormResponse: "form_responses"}

// testWithdraw: every withdrawable kind is withdrawn by its author only: a
// trainee cannot take back what the studio logged, the studio cannot take
// back hers, and a record from before authors were kept is nobody's. A
// refused withdrawal deletes nothing. A check-in is one log to take back
// until a later one of its day revises it, whatever its times say.
func testWithdraw(t *testing.T, st store.Store) {
	studio := newStudio(t, st)
	ss := st.Studio(studio.ID)
	tr := newTrainee(t, ss, "With", "Draw")
	form := domain.FormTemplate{Name: "Daily", Fields: []domain.FormField{{Key: "sleep", Label: "Sleep", Type: "scale"}}}
	must(t, "CreateFormTemplate", ss.CreateFormTemplate(ctx, &form))
	now := time.Now().UTC().Truncate(time.Millisecond)
	since := now.Add(-15 * time.Minute)
	day := 0
	// logged writes one record of kind that by logged ("" for one from
	// before authors were kept), created now; a check-in's update time a
	// millisecond on, as a request's second clock read would have it.
	logged := func(kind ids.Kind, by string) string {
		t.Helper()
		switch kind {
		case ids.Session:
			source := by
			if source == "" {
				source = domain.SessionFromProgram
			}
			day++
			x := workout(tr.ID, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day).Format(time.DateOnly), "strength", 30, domain.SessionCompleted)
			x.Source, x.CreatedAt, x.CompletedAt = source, now, &now
			must(t, "CreateSessions", ss.CreateSessions(ctx, []*domain.Session{x}))
			return x.ID
		case ids.CheckIn:
			day++
			c := domain.CheckIn{TraineeID: tr.ID, Day: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, day).Format(time.DateOnly),
				Readiness: ptr(7), CreatedAt: now, UpdatedAt: now.Add(time.Millisecond), LoggedBy: by}
			_, err := ss.PutCheckIn(ctx, &c)
			must(t, "PutCheckIn", err)
			return c.ID
		case ids.Weight:
			w := domain.Weight{TraineeID: tr.ID, WeightKg: 70, CreatedAt: now, LoggedBy: by}
			must(t, "CreateWeight", ss.CreateWeight(ctx, &w))
			return w.ID
		case ids.Measurement:
			m := domain.Measurement{TraineeID: tr.ID, WaistCm: ptr(80.0), CreatedAt: now, LoggedBy: by}
			must(t, "CreateMeasurement", ss.CreateMeasurement(ctx, &m))
			return m.ID
		case ids.FormResponse:
			r := domain.FormResponse{TraineeID: tr.ID, FormTemplateID: form.ID, Answers: json.RawMessage(`{"sleep":3}`), SubmittedAt: now, LoggedBy: by}
			must(t, "CreateFormResponse", ss.CreateFormResponse(ctx, &r))
			return r.ID
		}
		t.Fatalf("%s is withdrawable: add it to this test and to withdrawTables", kind)
		return ""
	}
	there := func(kind ids.Kind, id string) bool {
		t.Helper()
		var n int
		must(t, "count", st.DB().QueryRowContext(ctx, st.Rebind(fmt.Sprintf(`SELECT count(*) FROM %s WHERE id = ?`, withdrawTables[kind])), id).Scan(&n))
		return n == 1
	}
	trainee, coach := domain.LoggedByTrainee, domain.LoggedByCoach
	for _, kind := range store.Withdrawable {
		if withdrawTables[kind] == "" {
			t.Fatalf("%s is withdrawable: add its table to withdrawTables", kind)
		}
		for _, c := range []struct {
			logged, by string
			ok         bool
		}{
			{coach, trainee, false}, {trainee, coach, false}, {"", trainee, false}, {"", coach, false},
			{trainee, "", false}, {trainee, trainee, true}, {coach, coach, true},
		} {
			id := logged(kind, c.logged)
			err := ss.WithdrawRecord(ctx, tr.ID, id, c.by, since)
			switch {
			case c.ok && (err != nil || there(kind, id)):
				t.Errorf("%s logged by %q, withdrawn by %q: %v (still there: %v)", kind, c.logged, c.by, err, there(kind, id))
			case !c.ok && !errors.Is(err, store.ErrNotFound):
				t.Errorf("%s logged by %q, withdrawn by %q: %v; want ErrNotFound", kind, c.logged, c.by, err)
			case !c.ok && !there(kind, id):
				t.Errorf("%s logged by %q was deleted by %q's refused withdrawal", kind, c.logged, c.by)
			}
		}
	}

	// A check-in a second one of its day updated is no longer one log,
	// even when both wrote the same instant; its author is the first's.
	first := domain.CheckIn{TraineeID: tr.ID, Day: "2027-01-01", Readiness: ptr(5), CreatedAt: now, UpdatedAt: now, LoggedBy: trainee}
	_, err := ss.PutCheckIn(ctx, &first)
	must(t, "PutCheckIn", err)
	second := domain.CheckIn{TraineeID: tr.ID, Day: first.Day, Readiness: ptr(3), CreatedAt: now, UpdatedAt: now, LoggedBy: coach}
	replaced, err := ss.PutCheckIn(ctx, &second)
	must(t, "PutCheckIn", err)
	if !replaced || second.ID != first.ID || second.LoggedBy != trainee {
		t.Fatalf("the update: replaced %v, id %s (first %s), logged by %q", replaced, second.ID, first.ID, second.LoggedBy)
	}
	for _, by := range []string{trainee, coach} {
		mustNotFound(t, "withdrawing a revised check-in as "+by, ss.WithdrawRecord(ctx, tr.ID, first.ID, by, since))
	}
	if got, err := ss.CheckInOn(ctx, tr.ID, first.Day); err != nil || got.LoggedBy != trainee || *got.Readiness != 3 {
		t.Fatalf("the revised check-in: %+v %v", got, err)
	}
}

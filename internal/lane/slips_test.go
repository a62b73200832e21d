package lane_test

import (
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// A trainee a coach adds through her own sign-in is hers: "who joined in
// the last 30 days?" counts her. Naming other coaches, or a studio key,
// keeps the list as given.
func TestCoachSignInAddsHerOwnTrainee(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("own")
		var other domain.Coach
		e.ok(201, e.call(f.key, "POST", "/coaches", map[string]any{"name": "Other coach", "phone": "052-000-0002"})).into(t, &other)
		tok := e.grant(f.studio.ID, f.coach.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)
		for i, c := range []struct {
			key    string
			coachs []string
			want   []string
		}{
			{tok, nil, []string{f.coach.ID}},
			{tok, []string{other.ID}, []string{other.ID}},
			{f.key, nil, nil},
		} {
			var tr domain.Trainee
			body := map[string]any{"firstName": "New", "lastName": "Trainee", "phone": "050-555-001" + string(rune('0'+i))}
			if c.coachs != nil {
				body["coachIds"] = c.coachs
			}
			e.ok(201, e.call(c.key, "POST", "/trainees", body)).into(t, &tr)
			if len(tr.CoachIDs) != len(c.want) || len(c.want) > 0 && tr.CoachIDs[0] != c.want[0] {
				t.Errorf("coachIds %v: trainee's coaches %v, want %v", c.coachs, tr.CoachIDs, c.want)
			}
		}
	})
}

// A range given only its first day runs to today, as its description says.
func TestRangeFromOnlyEndsToday(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("rng")
		var got struct{ From, To string }
		e.ok(200, e.call(f.key, "GET", "/trainees/"+f.trainee.ID+"/body-analysis?from="+AddDays(today(), -10), nil)).into(t, &got)
		if got.To != today() {
			t.Errorf("from only: to %s, want today %s", got.To, today())
		}
		// Starting after today: a year from from.
		e.ok(200, e.call(f.key, "GET", "/trainees/"+f.trainee.ID+"/body-analysis?from="+AddDays(today(), 3), nil)).into(t, &got)
		if got.To != AddDays(today(), 3+365) {
			t.Errorf("from after today: to %s, want %s", got.To, AddDays(today(), 3+365))
		}
	})
}

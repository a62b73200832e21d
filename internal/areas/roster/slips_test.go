package roster_test

import (
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// A trainee a coach adds through her own sign-in is hers: "who joined in
// the last 30 days?" counts her. Naming other coaches, or a studio key,
// keeps the list as given.
func TestCoachSignInAddsHerOwnTrainee(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("own")
		var other domain.Coach
		e.OK(201, e.Call(f.Key, "POST", "/coaches", map[string]any{"name": "Other coach", "phone": "052-000-0002"})).Into(t, &other)
		tok := e.Grant(f.Studio.ID, f.Coach.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)
		for i, c := range []struct {
			key    string
			coachs []string
			want   []string
		}{
			{tok, nil, []string{f.Coach.ID}},
			{tok, []string{other.ID}, []string{other.ID}},
			{f.Key, nil, nil},
		} {
			var tr domain.Trainee
			body := map[string]any{"firstName": "New", "lastName": "Trainee", "phone": "050-555-001" + string(rune('0'+i))}
			if c.coachs != nil {
				body["coachIds"] = c.coachs
			}
			e.OK(201, e.Call(c.key, "POST", "/trainees", body)).Into(t, &tr)
			if len(tr.CoachIDs) != len(c.want) || len(c.want) > 0 && tr.CoachIDs[0] != c.want[0] {
				t.Errorf("coachIds %v: trainee's coaches %v, want %v", c.coachs, tr.CoachIDs, c.want)
			}
		}
	})
}

// A range given only its first day runs to today, as its description says.
func TestRangeFromOnlyEndsToday(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("rng")
		var got struct{ From, To string }
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/body-analysis?from="+kit.AddDays(kit.Today(), -10), nil)).Into(t, &got)
		if got.To != kit.Today() {
			t.Errorf("from only: to %s, want today %s", got.To, kit.Today())
		}
		// Starting after today: a year from from.
		e.OK(200, e.Call(f.Key, "GET", "/trainees/"+f.Trainee.ID+"/body-analysis?from="+kit.AddDays(kit.Today(), 3), nil)).Into(t, &got)
		if got.To != kit.AddDays(kit.Today(), 3+365) {
			t.Errorf("from after today: to %s, want %s", got.To, kit.AddDays(kit.Today(), 3+365))
		}
	})
}

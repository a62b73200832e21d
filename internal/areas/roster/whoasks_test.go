package roster_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
)

// Who is asking: a coach's own sign-in names her, and the coach filters
// (ref:"coachScope") default to her; a studio key speaks for the whole
// studio, and "me" is refused for it with the fix.
func TestCoachFiltersFollowWhoIsAsking(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: func() time.Time { return kit.InsightsNow }})
		w := kit.SeedTriage(t, e, "whoasks-"+st.Engine())
		other := kit.SeedTriage(t, e, "whoasks-other-"+st.Engine())
		coach := e.Grant(w.Studio.ID, w.Coach1.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)

		var info struct {
			Caller  string `json:"caller"`
			CoachID string `json:"coachId"`
		}
		e.OK(200, e.Call(coach, "GET", "/validate", nil)).Into(t, &info)
		if info.CoachID != w.Coach1.ID || !strings.Contains(info.Caller, "Coach One ("+w.Coach1.ID+")") {
			t.Fatalf("a coach's /validate = %+v", info)
		}
		info.Caller, info.CoachID = "", ""
		e.OK(200, e.Call(w.Key, "GET", "/validate", nil)).Into(t, &info)
		if info.CoachID != "" || !strings.Contains(info.Caller, "whole studio") {
			t.Fatalf("a studio key's /validate = %+v", info)
		}

		var p attentionPage
		// The coach's own by default (Ayala is coach One's), the studio's with all.
		e.OK(200, e.Call(coach, "GET", "/trainees/needs-attention", nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.Ayala.ID}) || !strings.HasPrefix(p.Summary, "1 of 2 active trainees") {
			t.Fatalf("the coach's default = %+v", p)
		}
		e.OK(200, e.Call(coach, "GET", "/trainees/needs-attention?coachId=me", nil)).Into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.Ayala.ID}) {
			t.Fatalf("coachId=me = %+v", p)
		}
		e.OK(200, e.Call(coach, "GET", "/trainees/needs-attention?coachId=all", nil)).Into(t, &p)
		if p.Total != 3 {
			t.Fatalf("coachId=all = %+v", p)
		}
		// A studio key: the whole studio by default; "me" names no one.
		e.OK(200, e.Call(w.Key, "GET", "/trainees/needs-attention", nil)).Into(t, &p)
		if p.Total != 3 {
			t.Fatalf("the studio key's default = %+v", p)
		}
		a := e.Fails(422, "VALIDATION", e.Call(w.Key, "GET", "/tasks?coachId=me", nil))
		if !slices.Contains(a.Fields(), "coachId") || !strings.Contains(a.Raw, "speaks for the whole studio") {
			t.Fatalf("me with a studio key: %s", a.Raw)
		}
		// Search finds any trainee unless asked for "mine": me is the coach's, refused for a studio key.
		var found struct{ Total int }
		e.OK(200, e.Call(coach, "GET", "/trainees/search", nil)).Into(t, &found)
		if found.Total != 5 {
			t.Fatalf("a coach's search with no coach = %+v", found)
		}
		e.OK(200, e.Call(coach, "GET", "/trainees/search?coachId=me", nil)).Into(t, &found)
		if found.Total != 3 { // Ayala, Carmel and Paz
			t.Fatalf("coachId=me in search = %+v", found)
		}
		e.Fails(422, "VALIDATION", e.Call(w.Key, "GET", "/trainees/search?coachId=me", nil))
		// Another studio's coach stays not found, whoever asks.
		e.Fails(404, "NOT_FOUND", e.Call(coach, "GET", "/tasks?coachId="+other.Coach1.ID, nil))
	})
}

// The assistant knows its coach the way her own grant does: a studio key
// called in process for a coach of its studio asks as her ("mine" is
// hers, create_task is hers by default); a coach of another studio
// changes nothing.
func TestAStudioKeySpeaksForTheCoachItsCallerNames(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: func() time.Time { return kit.InsightsNow }})
		w := kit.SeedTriage(t, e, "speaksfor-"+st.Engine())
		seedRosterWorld(t, e, w)
		other := kit.SeedTriage(t, e, "speaksfor-other-"+st.Engine())
		inProcess := laneclient.HandlerTransport(e.Lane)
		as := func(coachID, method, path string, body any) kit.Answer {
			t.Helper()
			a, err := e.RoundTrip(kit.SpeakingFor(inProcess, coachID), w.Key, method, path, body)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		var info struct {
			Caller  string `json:"caller"`
			CoachID string `json:"coachId"`
		}
		e.OK(200, as(w.Coach1.ID, "GET", "/validate", nil)).Into(t, &info)
		if info.CoachID != w.Coach1.ID || !strings.Contains(info.Caller, "Coach One") {
			t.Fatalf("/validate for coach One = %+v", info)
		}
		var p rosterPage
		e.OK(200, as(w.Coach1.ID, "GET", "/roster?question=trained", nil)).Into(t, &p)
		if !slices.Equal(p.names(), []string{"Ayala Adler"}) {
			t.Fatalf("coach One's roster = %+v", p)
		}
		var task domain.Task
		e.OK(201, as(w.Coach1.ID, "POST", "/tasks", map[string]any{"title": "Call Ayala"})).Into(t, &task)
		if task.CoachID == nil || *task.CoachID != w.Coach1.ID {
			t.Fatalf("the coach's reminder = %+v", task)
		}
		// The studio key alone, or naming another studio's coach: the whole studio.
		e.OK(201, e.Call(w.Key, "POST", "/tasks", map[string]any{"title": "Anyone"})).Into(t, &task)
		if task.CoachID != nil {
			t.Fatalf("a studio key's task = %+v", task)
		}
		info.CoachID = ""
		e.OK(200, as(other.Coach1.ID, "GET", "/validate", nil)).Into(t, &info)
		if info.CoachID != "" || !strings.Contains(info.Caller, "whole studio") {
			t.Fatalf("/validate naming another studio's coach = %+v", info)
		}
		e.OK(200, as(other.Coach1.ID, "GET", "/roster?question=trained", nil)).Into(t, &p)
		if p.Total != 2 {
			t.Fatalf("the roster naming another studio's coach = %+v", p)
		}
	})
}

package lane_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/store"
)

// Who is asking: a coach's own sign-in names her, and the coach filters
// (ref:"coachScope") default to her; a studio key speaks for the whole
// studio, and "me" is refused for it with the fix.
func TestCoachFiltersFollowWhoIsAsking(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{now: func() time.Time { return insightsNow }})
		w := seedTriage(t, e, "whoasks-"+st.Engine())
		other := seedTriage(t, e, "whoasks-other-"+st.Engine())
		coach := e.grant(w.studio.ID, w.coach1.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)

		var info struct {
			Caller  string `json:"caller"`
			CoachID string `json:"coachId"`
		}
		e.ok(200, e.call(coach, "GET", "/validate", nil)).into(t, &info)
		if info.CoachID != w.coach1.ID || !strings.Contains(info.Caller, "Coach One ("+w.coach1.ID+")") {
			t.Fatalf("a coach's /validate = %+v", info)
		}
		info.Caller, info.CoachID = "", ""
		e.ok(200, e.call(w.key, "GET", "/validate", nil)).into(t, &info)
		if info.CoachID != "" || !strings.Contains(info.Caller, "whole studio") {
			t.Fatalf("a studio key's /validate = %+v", info)
		}

		var p attentionPage
		// The coach's own by default (Ayala is coach One's), the studio's with all.
		e.ok(200, e.call(coach, "GET", "/trainees/needs-attention", nil)).into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.ayala.ID}) || !strings.HasPrefix(p.Summary, "1 of 2 active trainees") {
			t.Fatalf("the coach's default = %+v", p)
		}
		e.ok(200, e.call(coach, "GET", "/trainees/needs-attention?coachId=me", nil)).into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.ayala.ID}) {
			t.Fatalf("coachId=me = %+v", p)
		}
		e.ok(200, e.call(coach, "GET", "/trainees/needs-attention?coachId=all", nil)).into(t, &p)
		if p.Total != 3 {
			t.Fatalf("coachId=all = %+v", p)
		}
		// A studio key: the whole studio by default; "me" names no one.
		e.ok(200, e.call(w.key, "GET", "/trainees/needs-attention", nil)).into(t, &p)
		if p.Total != 3 {
			t.Fatalf("the studio key's default = %+v", p)
		}
		a := e.fails(422, "VALIDATION", e.call(w.key, "GET", "/tasks?coachId=me", nil))
		if !slices.Contains(a.fields(), "coachId") || !strings.Contains(a.Raw, "speaks for the whole studio") {
			t.Fatalf("me with a studio key: %s", a.Raw)
		}
		// Search finds any trainee unless asked for "mine": me is the coach's, refused for a studio key.
		var found struct{ Total int }
		e.ok(200, e.call(coach, "GET", "/trainees/search", nil)).into(t, &found)
		if found.Total != 5 {
			t.Fatalf("a coach's search with no coach = %+v", found)
		}
		e.ok(200, e.call(coach, "GET", "/trainees/search?coachId=me", nil)).into(t, &found)
		if found.Total != 3 { // Ayala, Carmel and Paz
			t.Fatalf("coachId=me in search = %+v", found)
		}
		e.fails(422, "VALIDATION", e.call(w.key, "GET", "/trainees/search?coachId=me", nil))
		// Another studio's coach stays not found, whoever asks.
		e.fails(404, "NOT_FOUND", e.call(coach, "GET", "/tasks?coachId="+other.coach1.ID, nil))
	})
}

// speakingFor is the in-process transport of a caller that speaks for one
// coach with the studio key (the WhatsApp assistant).
type speakingFor struct {
	rt      http.RoundTripper
	coachID string
}

func (s speakingFor) RoundTrip(r *http.Request) (*http.Response, error) {
	return s.rt.RoundTrip(r.WithContext(auth.WithCoach(r.Context(), s.coachID)))
}

// The assistant knows its coach the way her own grant does: a studio key
// called in process for a coach of its studio asks as her ("mine" is
// hers, create_task is hers by default); a coach of another studio
// changes nothing.
func TestAStudioKeySpeaksForTheCoachItsCallerNames(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{now: func() time.Time { return insightsNow }})
		w := seedTriage(t, e, "speaksfor-"+st.Engine())
		seedRosterWorld(t, e, w)
		other := seedTriage(t, e, "speaksfor-other-"+st.Engine())
		inProcess := laneclient.HandlerTransport(e.lane)
		as := func(coachID, method, path string, body any) answer {
			t.Helper()
			a, err := e.roundTrip(speakingFor{inProcess, coachID}, w.key, method, path, body)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		var info struct {
			Caller  string `json:"caller"`
			CoachID string `json:"coachId"`
		}
		e.ok(200, as(w.coach1.ID, "GET", "/validate", nil)).into(t, &info)
		if info.CoachID != w.coach1.ID || !strings.Contains(info.Caller, "Coach One") {
			t.Fatalf("/validate for coach One = %+v", info)
		}
		var p rosterPage
		e.ok(200, as(w.coach1.ID, "GET", "/roster?question=trained", nil)).into(t, &p)
		if !slices.Equal(p.names(), []string{"Ayala Adler"}) {
			t.Fatalf("coach One's roster = %+v", p)
		}
		var task domain.Task
		e.ok(201, as(w.coach1.ID, "POST", "/tasks", map[string]any{"title": "Call Ayala"})).into(t, &task)
		if task.CoachID == nil || *task.CoachID != w.coach1.ID {
			t.Fatalf("the coach's reminder = %+v", task)
		}
		// The studio key alone, or naming another studio's coach: the whole studio.
		e.ok(201, e.call(w.key, "POST", "/tasks", map[string]any{"title": "Anyone"})).into(t, &task)
		if task.CoachID != nil {
			t.Fatalf("a studio key's task = %+v", task)
		}
		info.CoachID = ""
		e.ok(200, as(other.coach1.ID, "GET", "/validate", nil)).into(t, &info)
		if info.CoachID != "" || !strings.Contains(info.Caller, "whole studio") {
			t.Fatalf("/validate naming another studio's coach = %+v", info)
		}
		e.ok(200, as(other.coach1.ID, "GET", "/roster?question=trained", nil)).into(t, &p)
		if p.Total != 2 {
			t.Fatalf("the roster naming another studio's coach = %+v", p)
		}
	})
}

package lane_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/store"
)

// Who is asking: a coach's own sign-in names her, and the coach filters
// (ref:"coachScope") default to her; a studio key speaks for the whole
// studio, and "me" is refused for it with the fix.
func TestCoachFiltersFollowWhoIsAsking(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
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
		// Another studio's coach stays not found, whoever asks.
		e.fails(404, "NOT_FOUND", e.call(coach, "GET", "/tasks?coachId="+other.coach1.ID, nil))
	})
}

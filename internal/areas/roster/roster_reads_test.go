package roster_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

type rosterPage struct {
	Summary    string             `json:"summary"`
	Question   string             `json:"question"`
	From       string             `json:"from"`
	To         string             `json:"to"`
	Items      []domain.RosterRow `json:"items"`
	Total      int                `json:"total"`
	NextOffset *int               `json:"nextOffset"`
}

func (p rosterPage) names() []string {
	var out []string
	for _, r := range p.Items {
		out = append(out, r.Name)
	}
	return out
}

// seedRosterWorld adds to the triage world (today Wednesday 2 December
// 2026; Ayala and Carmel are coach One's, Boaz and Eden coach Two's, Paz
// paused) the sessions, check-ins, plans, goals and feedback the roster
// questions read.
func seedRosterWorld(t *testing.T, e *kit.Env, w kit.TriageWorld) {
	t.Helper()
	sid := w.Studio.ID
	created := kit.InsightsNow.AddDate(0, -1, 0).UnixMilli()
	session := func(tr domain.Trainee, day, status string) {
		kit.SQLRow(t, e.St, "sessions", map[string]any{"id": ids.New(ids.Session), "studio_id": sid, "trainee_id": tr.ID, "date": day, "sport": "strength",
			"title": "Full body", "status": status, "source": "coach", "exercises": "[]", "volume_kg": 0, "sets": 0, "reps": 0, "seconds": 0, "metres": 0,
			"created_at": created, "updated_at": created})
	}
	session(w.Ayala, "2026-11-30", domain.SessionCompleted) // this week
	session(w.Eden, "2026-12-01", domain.SessionCompleted)
	session(w.Eden, "2026-12-02", domain.SessionCompleted)
	session(w.Carmel, "2026-11-20", domain.SessionCompleted) // before the week
	session(w.Carmel, "2026-12-01", domain.SessionMissed)
	session(w.Paused, "2026-12-01", domain.SessionCompleted) // paused: not asked about
	// Boaz: sore (7, knee) on 1 December; Carmel mildly (3, no area): not sore.
	checkin := func(tr domain.Trainee, day string, soreness int, areas string) {
		kit.SQLRow(t, e.St, "checkins", map[string]any{"id": ids.New(ids.CheckIn), "studio_id": sid, "trainee_id": tr.ID, "day": day,
			"readiness": 7, "soreness": soreness, "sore_areas": areas, "created_at": created, "updated_at": created})
	}
	checkin(w.Boaz, "2026-12-01", 7, `["knee"]`)
	checkin(w.Carmel, "2026-12-01", 3, `[]`)
	// Carmel's plan ends 20 December and a renewal starts the next day, open-ended.
	var product domain.Product
	if ps, err := e.St.Studio(sid).ListProducts(t.Context(), "", store.Page{Limit: 1}); err != nil || len(ps.Items) != 1 {
		t.Fatalf("products: %v", err)
	} else {
		product = ps.Items[0]
	}
	plan := func(tr domain.Trainee, from string, to any) {
		kit.SQLRow(t, e.St, "subscriptions", map[string]any{"id": ids.New(ids.Subscription), "studio_id": sid, "trainee_id": tr.ID, "product_id": product.ID,
			"started_on": from, "ends_on": to, "currency": "ILS", "state": "active", "created_at": created})
	}
	plan(w.Carmel, "2026-11-21", "2026-12-20")
	plan(w.Carmel, "2026-12-21", nil)
	plan(w.Eden, "2026-11-05", "2026-12-04") // ends Friday, not renewed
	// All were added two days ago but Paz, 40 days ago.
	for _, tr := range []domain.Trainee{w.Ayala, w.Boaz, w.Carmel, w.Eden, w.Paused} {
		at := kit.InsightsNow.AddDate(0, 0, -2)
		if tr.ID == w.Paused.ID {
			at = kit.InsightsNow.AddDate(0, 0, -40)
		}
		if _, err := e.St.DB().ExecContext(t.Context(), e.St.Rebind(`UPDATE trainees SET created_at = ? WHERE id = ?`), at.UnixMilli(), tr.ID); err != nil {
			t.Fatal(err)
		}
	}
	// Ayala reached a goal on 1 December; Eden told the studio something yesterday.
	kit.SQLRow(t, e.St, "goals", map[string]any{"id": ids.New(ids.Goal), "studio_id": sid, "trainee_id": w.Ayala.ID, "title": "Ten push-ups", "kind": "text",
		"status": "completed", "completed_at": kit.InsightsNow.Add(-24 * time.Hour).UnixMilli(), "created_at": created, "updated_at": created})
	kit.SQLRow(t, e.St, "trainee_feedback", map[string]any{"id": ids.New(ids.Feedback), "studio_id": sid, "trainee_id": w.Eden.ID, "text": "Loving the new program",
		"rating": 5, "source": "mcp", "created_at": kit.InsightsNow.Add(-24 * time.Hour).UnixMilli()})
}

// One call answers each roster question over the whole roster, on both
// engines: who trained and who did not (with the last session), plans
// ending and starting (with renewal), soreness, injuries, goals reached,
// feedback, new trainees; another studio's rows never show.
func TestRosterQuestions(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{Now: func() time.Time { return kit.InsightsNow }})
		w := kit.SeedTriage(t, e, "roster-"+st.Engine())
		seedRosterWorld(t, e, w)
		other := kit.SeedTriage(t, e, "roster-other-"+st.Engine())
		seedRosterWorld(t, e, other)
		k := w.Key
		ask := func(query string) rosterPage {
			t.Helper()
			var p rosterPage
			e.OK(200, e.Call(k, "GET", "/roster?"+query, nil)).Into(t, &p)
			return p
		}

		// This week so far (Sunday 29 November, the studio's first day, to today): Eden twice, Ayala once.
		p := ask("question=trained")
		if p.From != "2026-11-29" || p.To != "2026-12-02" || !slices.Equal(p.names(), []string{"Eden Dar", "Ayala Adler"}) || p.Total != 2 ||
			*p.Items[0].Sessions != 2 || *p.Items[0].LastSessionOn != "2026-12-02" {
			t.Fatalf("trained = %+v", p)
		}
		if p.Summary != "2 of the studio's 4 active trainees completed a session from 2026-11-29 to 2026-12-02." {
			t.Fatalf("summary = %q", p.Summary)
		}
		// Boaz never trained, Carmel last on 20 November and missed one: the longest absent first.
		p = ask("question=not_trained")
		if !slices.Equal(p.names(), []string{"Boaz Ben", "Carmel Cohen"}) || p.Items[0].LastSessionOn != nil ||
			*p.Items[1].LastSessionOn != "2026-11-20" || *p.Items[1].Scheduled != 1 {
			t.Fatalf("not_trained = %+v", p)
		}
		// Paged, with the total over all of it.
		p = ask("question=not_trained&limit=1&offset=1")
		if !slices.Equal(p.names(), []string{"Carmel Cohen"}) || p.Total != 2 || p.NextOffset != nil {
			t.Fatalf("page 2 = %+v", p)
		}
		if p = ask("question=not_trained&offset=5"); len(p.Items) != 0 || p.Total != 2 {
			t.Fatalf("past the end = %+v", p)
		}
		// Coach One's: Ayala trained, Carmel did not.
		p = ask("question=not_trained&coachId=" + w.Coach1.ID)
		if !slices.Equal(p.names(), []string{"Carmel Cohen"}) || p.Summary != "1 of the coach's 2 active trainees completed no session from 2026-11-29 to 2026-12-02; the longest absent first." {
			t.Fatalf("coach One's = %+v", p)
		}
		// Another studio's coach is not found.
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/roster?question=trained&coachId="+other.Coach1.ID, nil))

		// Plans ending in the next 30 days: Eden's on Friday (not renewed), then Carmel's (renewed).
		p = ask("question=plans_ending")
		if !slices.Equal(p.names(), []string{"Eden Dar", "Carmel Cohen"}) || *p.Items[0].EndsOn != "2026-12-04" || *p.Items[0].Renewed ||
			!*p.Items[1].Renewed || p.Items[0].Plan != "Monthly" || p.Items[0].SubscriptionID == "" {
			t.Fatalf("plans_ending = %+v", p)
		}
		// November's: Ayala's ended on the 28th.
		if p = ask("question=plans_ending&from=2026-11-01&to=2026-11-30"); !slices.Equal(p.names(), []string{"Ayala Adler"}) {
			t.Fatalf("November's plans ending = %+v", p)
		}
		if p = ask("question=plans_starting"); !slices.Equal(p.names(), []string{"Carmel Cohen"}) || *p.Items[0].StartsOn != "2026-12-21" || p.Items[0].EndsOn != nil {
			t.Fatalf("plans_starting = %+v", p)
		}

		// Eden's readiness 3, 2, 4 this week; Boaz sore; Boaz injured (Paz's injury is a paused trainee's).
		if p = ask("question=low_readiness"); !slices.Equal(p.names(), []string{"Eden Dar"}) || *p.Items[0].Days != 3 || *p.Items[0].LowestReadiness != 2 || *p.Items[0].LatestOn != "2026-12-02" {
			t.Fatalf("low_readiness = %+v", p)
		}
		if p = ask("question=soreness"); !slices.Equal(p.names(), []string{"Boaz Ben"}) || *p.Items[0].HighestSoreness != 7 || !slices.Equal(p.Items[0].SoreAreas, []string{"knee"}) {
			t.Fatalf("soreness = %+v", p)
		}
		if p = ask("question=injuries"); !slices.Equal(p.names(), []string{"Boaz Ben"}) || p.Items[0].Area != "knee" || *p.Items[0].Severity != 3 || p.Items[0].InjuryID == "" {
			t.Fatalf("injuries = %+v", p)
		}
		if p = ask("question=goals_reached"); !slices.Equal(p.names(), []string{"Ayala Adler"}) || p.Items[0].Goal != "Ten push-ups" || *p.Items[0].On != "2026-12-01" {
			t.Fatalf("goals_reached = %+v", p)
		}
		if p = ask("question=feedback"); !slices.Equal(p.names(), []string{"Eden Dar"}) || p.Items[0].Text != "Loving the new program" || *p.Items[0].Rating != 5 {
			t.Fatalf("feedback = %+v", p)
		}
		// New trainees: four in the last 30 days; Paz, paused, joined before.
		if p = ask("question=new_trainees"); p.Total != 4 || *p.Items[0].JoinedOn != "2026-11-30" || p.Items[0].Status != "active" {
			t.Fatalf("new_trainees = %+v", p)
		}
		if p = ask("question=new_trainees&from=2026-10-01"); p.Total != 5 || p.Items[4].Name != "Paz Paused" || p.Items[4].Status != "paused" {
			t.Fatalf("new_trainees since October = %+v", p)
		}
		// A window before any data: empty, with the sentence still true.
		if p = ask("question=trained&from=2025-01-01&to=2025-01-31"); p.Total != 0 || len(p.Items) != 0 ||
			p.Summary != "0 of the studio's 4 active trainees completed a session from 2025-01-01 to 2025-01-31." {
			t.Fatalf("an empty window = %+v", p)
		}

		// Refusals name their fix.
		for _, bad := range []struct{ query, field string }{
			{"", "question"},
			{"question=who", "question"},
			{"question=trained&from=2026-12-05&to=2026-12-01", "from"},
			{"question=trained&from=2025-01-01&to=2026-12-01", "to"},
			{"question=trained&from=yesterday", "from"},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "GET", "/roster?"+bad.query, nil))
			if !slices.Contains(a.Fields(), bad.field) {
				t.Errorf("%q: %s (fields %v); want a refusal naming %s", bad.query, a.Message(), a.Fields(), bad.field)
			}
		}

		// A coach signed in asks about her own trainees by default.
		grant := e.Grant(w.Studio.ID, w.Coach1.ID, auth.ScopeStudioRead)
		var mine rosterPage
		e.OK(200, e.Call(grant, "GET", "/roster?question=trained", nil)).Into(t, &mine)
		if !slices.Equal(mine.names(), []string{"Ayala Adler"}) || mine.Summary != fmt.Sprintf("1 of the coach's %d active trainees completed a session from 2026-11-29 to 2026-12-02.", 2) {
			t.Fatalf("a coach's default = %+v", mine)
		}
	})
}

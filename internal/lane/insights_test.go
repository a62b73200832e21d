package lane_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

// insightsNow is 2 December 2026, noon in Israel: today is 2026-12-02, a
// Wednesday of week 2026-W49 (from Monday 30 November).
var insightsNow = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// sqlRow inserts one row with plain SQL, for the areas whose writes are
// not the read models' concern.
func sqlRow(t *testing.T, st store.Store, table string, cols map[string]any) {
	t.Helper()
	var names []string
	var values []any
	for k, v := range cols {
		names = append(names, k)
		values = append(values, v)
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(names, ", "), strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", "))
	if _, err := st.DB().ExecContext(context.Background(), st.Rebind(q), values...); err != nil {
		t.Fatalf("insert into %s: %v", table, err)
	}
}

type triageWorld struct {
	studio                            domain.Studio
	key                               string
	coach1, coach2                    domain.Coach
	ayala, boaz, carmel, eden, paused domain.Trainee
}

func seedTriage(t *testing.T, e *env, slug string) triageWorld {
	t.Helper()
	ctx := context.Background()
	var w triageWorld
	w.studio, w.key, _ = e.studio(slug, "pro")
	sid := w.studio.ID
	ss := e.st.Studio(sid)
	w.coach1, w.coach2 = domain.Coach{Name: "One", Active: true}, domain.Coach{Name: "Two", Active: true}
	for _, c := range []*domain.Coach{&w.coach1, &w.coach2} {
		if err := ss.CreateCoach(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(first, last, status string, coach string) domain.Trainee {
		tr := domain.Trainee{FirstName: first, LastName: last, Phone: fmt.Sprintf("+97252%07d", time.Now().UnixNano()%10_000_000), Status: status, CoachIDs: []string{coach}}
		if err := ss.CreateTrainee(ctx, &tr); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	w.ayala = mk("Ayala", "Adler", domain.TraineeActive, w.coach1.ID)
	w.boaz = mk("Boaz", "Ben", domain.TraineeActive, w.coach2.ID)
	w.carmel = mk("Carmel", "Cohen", domain.TraineeActive, w.coach1.ID)
	w.eden = mk("Eden", "Dar", domain.TraineeActive, w.coach2.ID)
	w.paused = mk("Paz", "Paused", domain.TraineePaused, w.coach1.ID)
	created := insightsNow.AddDate(0, -1, 0).UnixMilli()

	// Ayala: the plan ended 28 Nov (plan_ended 75) and a form is past due (30): 105.
	product := domain.Product{Name: "Monthly", Currency: "ILS", Active: true}
	form := domain.FormTemplate{Name: "Check", Fields: []domain.FormField{{Key: "q", Label: "Q", Type: "text"}}}
	if err := ss.CreateProduct(ctx, &product); err != nil {
		t.Fatal(err)
	}
	if err := ss.CreateFormTemplate(ctx, &form); err != nil {
		t.Fatal(err)
	}
	sqlRow(t, e.st, "subscriptions", map[string]any{"id": ids.New(ids.Subscription), "studio_id": sid, "trainee_id": w.ayala.ID, "product_id": product.ID,
		"started_on": "2026-10-29", "ends_on": "2026-11-28", "currency": "ILS", "state": "active", "created_at": created})
	sqlRow(t, e.st, "form_assignments", map[string]any{"id": ids.New(ids.FormAssignment), "studio_id": sid, "trainee_id": w.ayala.ID, "form_template_id": form.ID,
		"due_at": insightsNow.Add(-time.Hour).UnixMilli(), "status": "pending", "created_at": created})
	// Boaz: an active injury (80).
	injury := func(tr domain.Trainee) {
		sqlRow(t, e.st, "injuries", map[string]any{"id": ids.New(ids.Injury), "studio_id": sid, "trainee_id": tr.ID, "area": "knee", "side": "left", "severity": 3,
			"status": "active", "onset_on": "2026-11-25", "affected_exercises": "[]", "created_at": created, "updated_at": created})
	}
	injury(w.boaz)
	injury(w.paused) // paused: not in the roster
	// Eden: readiness 3, 2, 4 on 30 Nov – 2 Dec (90) and an overdue task (35): 125.
	for i, r := range []int{3, 2, 4} {
		sqlRow(t, e.st, "checkins", map[string]any{"id": ids.New(ids.CheckIn), "studio_id": sid, "trainee_id": w.eden.ID, "day": fmt.Sprintf("2026-%s", []string{"11-30", "12-01", "12-02"}[i]),
			"readiness": r, "sore_areas": "[]", "created_at": created, "updated_at": created})
	}
	due := insightsNow.Add(-24 * time.Hour)
	task := domain.Task{Title: "Call Eden", ClientID: &w.eden.ID, DueAt: &due, Status: domain.TaskOpen, Source: "api"}
	if err := ss.CreateTask(ctx, &task); err != nil {
		t.Fatal(err)
	}
	// Carmel: nothing.
	return w
}

type attentionPage struct {
	Summary    string               `json:"summary"`
	Items      []training.Attention `json:"items"`
	Total      int                  `json:"total"`
	NextOffset *int                 `json:"nextOffset"`
}

func attentionIDs(p attentionPage) []string {
	var out []string
	for _, a := range p.Items {
		out = append(out, a.TraineeID)
	}
	return out
}

func TestNeedsAttention(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st, envOptions{now: func() time.Time { return insightsNow }})
		w := seedTriage(t, e, "triage-"+st.Engine())
		other := seedTriage(t, e, "triage-other-"+st.Engine())
		k := w.key

		var p attentionPage
		e.ok(200, e.call(k, "GET", "/trainees/needs-attention", nil)).into(t, &p)
		// Eden 90 + 35 = 125, Ayala 75 + 30 = 105, Boaz 80; Carmel has none, Paz is paused.
		if want := []string{w.eden.ID, w.ayala.ID, w.boaz.ID}; !slices.Equal(attentionIDs(p), want) || p.Total != 3 || p.NextOffset != nil {
			t.Fatalf("needs-attention = %+v; want Eden, Ayala, Boaz", p)
		}
		if p.Items[0].Score != 125 || p.Items[1].Score != 105 || p.Items[2].Score != 80 {
			t.Fatalf("scores %d %d %d", p.Items[0].Score, p.Items[1].Score, p.Items[2].Score)
		}
		if r := p.Items[1].Reasons; len(r) != 2 || r[0].Code != "plan_ended" || r[0].Message != "The plan ended on 2026-11-28 (4 days ago) and was not renewed." || r[1].Code != "form_past_due" {
			t.Fatalf("Ayala's reasons = %+v", r)
		}
		if p.Summary != "3 of 4 active trainees need attention (low_readiness 1, active_injury 1, plan_ended 1, overdue_tasks 1, form_past_due 1)." {
			t.Fatalf("summary = %q", p.Summary)
		}

		// Paged: one at a time.
		e.ok(200, e.call(k, "GET", "/trainees/needs-attention?limit=1&offset=1", nil)).into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.ayala.ID}) || p.Total != 3 || p.NextOffset == nil || *p.NextOffset != 2 {
			t.Fatalf("page 2 = %+v", p)
		}
		// By reason, by coach, both.
		e.ok(200, e.call(k, "GET", "/trainees/needs-attention?reason=active_injury", nil)).into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.boaz.ID}) {
			t.Fatalf("active_injury = %+v", p)
		}
		e.ok(200, e.call(k, "GET", "/trainees/needs-attention?coachId="+w.coach1.ID, nil)).into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{w.ayala.ID}) || !strings.HasPrefix(p.Summary, "1 of 2 active trainees") {
			t.Fatalf("coach 1 = %+v", p)
		}
		e.ok(200, e.call(k, "GET", "/trainees/needs-attention?coachId="+w.coach2.ID+"&reason=plan_ended", nil)).into(t, &p)
		if len(p.Items) != 0 || p.Total != 0 || p.Summary != "None of the 2 active trainees asked about needs attention now." {
			t.Fatalf("coach 2, plan_ended = %+v", p)
		}

		// Bad input names its field; another studio's coach is not found.
		a := e.fails(422, "VALIDATION", e.call(k, "GET", "/trainees/needs-attention?reason=sad&limit=500", nil))
		if f := a.fields(); !slices.Contains(f, "reason") || !slices.Contains(f, "limit") {
			t.Fatalf("fields = %v: %s", f, a.Raw)
		}
		e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/needs-attention?coachId="+other.coach1.ID, nil))
		// The other studio sees only its own.
		e.ok(200, e.call(other.key, "GET", "/trainees/needs-attention", nil)).into(t, &p)
		if !slices.Equal(attentionIDs(p), []string{other.eden.ID, other.ayala.ID, other.boaz.ID}) {
			t.Fatalf("other studio = %+v", p)
		}
		// The literal path is not a trainee id: GET /trainees/{id} still answers trainees.
		e.ok(200, e.call(k, "GET", "/trainees/"+w.ayala.ID, nil))
	})
}

package kit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// CountTasks is how many tasks studioID holds.
func CountTasks(t *testing.T, st store.Store, studioID string) int {
	t.Helper()
	l, err := st.Studio(studioID).ListTasks(context.Background(), store.TaskFilter{Page: store.Page{Limit: 200}})
	if err != nil {
		t.Fatal(err)
	}
	return l.Total
}

// InsightsNow is 2 December 2026, noon in Israel: today is 2026-12-02, a
// Wednesday of week 2026-W49 (from Monday 30 November).
var InsightsNow = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// SQLRow inserts one row with plain SQL, for the areas whose writes are
// not the read models' concern.
func SQLRow(t *testing.T, st store.Store, table string, cols map[string]any) {
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

// TriageWorld is a studio for the triage and roster reads: two coaches and
// trainees in each state the triage tells apart.
type TriageWorld struct {
	Studio                            domain.Studio
	Key                               string
	Coach1, Coach2                    domain.Coach
	Ayala, Boaz, Carmel, Eden, Paused domain.Trainee
}

// SeedTriage makes a TriageWorld in a new studio slug.
func SeedTriage(t *testing.T, e *Env, slug string) TriageWorld {
	t.Helper()
	ctx := context.Background()
	var w TriageWorld
	w.Studio, w.Key, _ = e.Studio(slug, "pro")
	sid := w.Studio.ID
	ss := e.St.Studio(sid)
	w.Coach1, w.Coach2 = domain.Coach{Name: "One", Active: true}, domain.Coach{Name: "Two", Active: true}
	for _, c := range []*domain.Coach{&w.Coach1, &w.Coach2} {
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
	w.Ayala = mk("Ayala", "Adler", domain.TraineeActive, w.Coach1.ID)
	w.Boaz = mk("Boaz", "Ben", domain.TraineeActive, w.Coach2.ID)
	w.Carmel = mk("Carmel", "Cohen", domain.TraineeActive, w.Coach1.ID)
	w.Eden = mk("Eden", "Dar", domain.TraineeActive, w.Coach2.ID)
	w.Paused = mk("Paz", "Paused", domain.TraineePaused, w.Coach1.ID)
	created := InsightsNow.AddDate(0, -1, 0).UnixMilli()

	// Ayala: the plan ended 28 Nov (plan_ended 75) and a form is past due (30): 105.
	product := domain.Product{Name: "Monthly", Currency: "ILS", Active: true}
	form := domain.FormTemplate{Name: "Check", Fields: []domain.FormField{{Key: "q", Label: "Q", Type: "text"}}}
	if err := ss.CreateProduct(ctx, &product); err != nil {
		t.Fatal(err)
	}
	if err := ss.CreateFormTemplate(ctx, &form); err != nil {
		t.Fatal(err)
	}
	SQLRow(t, e.St, "subscriptions", map[string]any{"id": ids.New(ids.Subscription), "studio_id": sid, "trainee_id": w.Ayala.ID, "product_id": product.ID,
		"started_on": "2026-10-29", "ends_on": "2026-11-28", "currency": "ILS", "state": "active", "created_at": created})
	SQLRow(t, e.St, "form_assignments", map[string]any{"id": ids.New(ids.FormAssignment), "studio_id": sid, "trainee_id": w.Ayala.ID, "form_template_id": form.ID,
		"due_at": InsightsNow.Add(-time.Hour).UnixMilli(), "status": "pending", "created_at": created})
	// Boaz: an active injury (80).
	injury := func(tr domain.Trainee) {
		SQLRow(t, e.St, "injuries", map[string]any{"id": ids.New(ids.Injury), "studio_id": sid, "trainee_id": tr.ID, "area": "knee", "side": "left", "severity": 3,
			"status": "active", "onset_on": "2026-11-25", "affected_exercises": "[]", "created_at": created, "updated_at": created})
	}
	injury(w.Boaz)
	injury(w.Paused) // paused: not in the roster
	// Eden: readiness 3, 2, 4 on 30 Nov – 2 Dec (90) and an overdue task (35): 125.
	for i, r := range []int{3, 2, 4} {
		SQLRow(t, e.St, "checkins", map[string]any{"id": ids.New(ids.CheckIn), "studio_id": sid, "trainee_id": w.Eden.ID, "day": fmt.Sprintf("2026-%s", []string{"11-30", "12-01", "12-02"}[i]),
			"readiness": r, "sore_areas": "[]", "created_at": created, "updated_at": created})
	}
	due := InsightsNow.Add(-24 * time.Hour)
	task := domain.Task{Title: "Call Eden", ClientID: &w.Eden.ID, DueAt: &due, Status: domain.TaskOpen, Source: "api"}
	if err := ss.CreateTask(ctx, &task); err != nil {
		t.Fatal(err)
	}
	// Carmel: nothing.
	return w
}

// Sets are logged sets from pairs of reps and load (kg).
func Sets(pairs ...float64) []map[string]any {
	var out []map[string]any
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, map[string]any{"reps": int(pairs[i]), "loadKg": pairs[i+1]})
	}
	return out
}

// TwoPhases is a two-phase structure: Base (Mon/Wed/Fri, no weekdays given), Build (one
// free day, one on Saturday).
func TwoPhases() []map[string]any {
	squat := map[string]any{"exerciseId": "back-squat", "sets": 5, "reps": 5, "percent1RM": 75, "restSeconds": 180}
	return []map[string]any{
		{"name": "Base", "focus": "volume", "weeks": []map[string]any{{"days": []map[string]any{
			{"title": "A", "exercises": []any{squat}}, {"title": "B", "durationMin": 45}, {"title": "C", "sport": "Running"},
		}}}},
		{"name": "Build", "weeks": []map[string]any{{"days": []map[string]any{
			{"title": "D"}, {"title": "Long run", "sport": "running", "weekday": 6},
		}}}},
	}
}

package lane_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/store"
)

// Names where ids are asked: a trainee, plan, template, form, coach, tag or
// exercise given by its name (Hebrew or English, any case, or a slug) is
// the record it fits, on every route that takes its id, path and body
// alike, and the answer says what it matched; a name that fits several is
// refused with the candidates, one that fits none with the nearest.
func TestNamesWhereIDsAreAsked(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("nm")
		k := f.key
		var tamar domain.Trainee
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "תמר", "lastName": "אברהם", "phone": "050-765-4321"})).into(t, &tamar)
		matched := func(a answer, want ...string) {
			t.Helper()
			all := strings.Join(a.Matched, "\n")
			for _, w := range want {
				if !strings.Contains(all, w) {
					t.Errorf("matched %q lacks %q", a.Matched, w)
				}
			}
		}
		// The path: Latin letters for a Hebrew name, and the trainee's own name.
		for name, want := range map[string]string{"Tamar": tamar.ID, "tamar avraham": tamar.ID, "תמר": tamar.ID, "Dana": f.trainee.ID, "levi-nm": f.trainee.ID} {
			var got domain.Trainee
			a := e.ok(200, e.call(k, "GET", "/trainees/"+url.PathEscape(name), nil))
			a.into(t, &got)
			if got.ID != want {
				t.Errorf("GET /trainees/%s: %s, want %s", name, got.ID, want)
			}
			matched(a, want)
		}
		// Body fields: a plan by its slug, a template and a form in another case.
		tp := "/trainees/" + url.PathEscape("Tamar")
		matched(e.ok(201, e.call(k, "POST", tp+"/subscription", map[string]any{"productId": "monthly-nm"})), "Monthly nm", f.product.ID, tamar.ID)
		matched(e.ok(201, e.call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": "STRENGTH NM"})), f.template.ID)
		matched(e.ok(201, e.call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": "check-in nm", "notify": false})), f.form.ID)
		matched(e.ok(201, e.call(k, "POST", "/tasks", map[string]any{"title": "Call", "clientId": "Tamar Avraham", "coachId": "coach nm"})), tamar.ID, f.coach.ID)
		matched(e.ok(200, e.call(k, "PATCH", "/trainees/"+tamar.ID, map[string]any{"coachIds": []string{"Coach nm"}})), f.coach.ID)
		matched(e.ok(200, e.call(k, "GET", "/trainees/search?tag=VIP-NM", nil)), "vip-nm")
		// An exercise by its Hebrew name.
		matched(e.ok(201, e.call(k, "POST", tp+"/workouts", map[string]any{"sport": "strength",
			"exercises": []map[string]any{{"exerciseId": "סקוואט", "sets": []map[string]any{{"reps": 5, "loadKg": 60}}}}})), "back-squat")

		// Ambiguous: the candidates, and nothing done.
		e.ok(201, e.call(k, "POST", "/trainees", map[string]any{"firstName": "Dana", "lastName": "Cohen", "phone": "050-765-4322"}))
		a := e.fails(422, "VALIDATION", e.call(k, "GET", "/trainees/Dana", nil))
		if m := a.message(); !strings.Contains(m, "Dana Cohen") || !strings.Contains(m, "Dana Levi-nm") || !strings.Contains(m, f.trainee.ID) {
			t.Errorf("ambiguous name: %s", m)
		}
		// Unknown: the nearest, with ids.
		a = e.fails(404, "NOT_FOUND", e.call(k, "POST", tp+"/subscription", map[string]any{"productId": "Monthly plus"}))
		if m := a.message(); !strings.Contains(m, "Monthly nm ("+f.product.ID+")") {
			t.Errorf("unknown plan: %s", m)
		}
		// Another studio's names are not found; a wrong id is refused as before.
		g := e.seed("nm-other")
		e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/"+url.PathEscape("Levi-nm-other"), nil))
		e.fails(404, "NOT_FOUND", e.call(k, "POST", tp+"/subscription", map[string]any{"productId": "Monthly nm-other"}))
		e.fails(404, "NOT_FOUND", e.call(k, "POST", tp+"/subscription", map[string]any{"productId": g.product.ID}))
		e.fails(404, "NOT_FOUND", e.call(k, "GET", "/trainees/"+f.product.ID, nil))
		// Text search would refuse (invalid UTF-8, controls) is no name, not a 500.
		for _, odd := range []string{"Dana%E2%80%AE", "%FF%FE", "Dana%00"} {
			if a := e.call(k, "GET", "/trainees/"+odd, nil); a.Status >= 500 || a.OK {
				t.Errorf("GET /trainees/%s: %d %s", odd, a.Status, a.Raw)
			}
		}
	})
}

// A trainee's own connection resolves no person's name, and hears none.
func TestTraineeResolvesNoPersonsName(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newTraineeEnv(t, st, traineeEnvOptions{})
		f := e.seed("nmt")
		e.ok(201, e.call(f.key, "POST", "/trainees", map[string]any{"firstName": "Dana", "lastName": "Cohen", "phone": "050-765-4322"}))
		e.ok(201, e.call(f.key, "POST", "/trainees", map[string]any{"firstName": "תמר", "lastName": "אברהם", "phone": "050-765-4321"}))
		tok := e.traineeToken(f)
		for _, path := range []string{"/trainees/Dana", "/trainees/Tamar", "/trainees/" + url.PathEscape("Dana Cohen")} {
			a := e.call(tok, "GET", path, nil)
			if a.Status != 404 || !strings.Contains(a.message(), "No trainee with id") || strings.Contains(a.Raw, "אברהם") || strings.Contains(a.Raw, "trn_") || len(a.Matched) > 0 {
				t.Errorf("trainee GET %s: %d %s", path, a.Status, a.Raw)
			}
		}
	})
}

// Session rows name their exercises, and the latest session whole is one
// call (limit=1&view=full), by the trainee's name.
func TestSessionRowsNameTheirExercises(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("rows")
		tp := "/trainees/" + f.trainee.ID
		e.ok(201, e.call(f.key, "POST", tp+"/workouts", map[string]any{"sport": "strength", "date": AddDays(today(), -1), "exercises": []map[string]any{
			{"exerciseId": "bench press", "sets": []map[string]any{{"reps": 5, "loadKg": 60}, {"reps": 5, "loadKg": 60}}}}}))
		var rows struct {
			Items []struct {
				Title     string
				Exercises []string
				Detail    []domain.SessionExercise
			}
		}
		compact := e.ok(200, e.call(f.key, "GET", tp+"/sessions?limit=10", nil))
		compact.into(t, &rows)
		if len(rows.Items) != 2 || strings.Join(rows.Items[0].Exercises, ",") != "Back squat 3×5 @80kg" ||
			strings.Join(rows.Items[1].Exercises, ",") != "Bench press 2×5 @60kg" || rows.Items[1].Detail != nil {
			t.Fatalf("rows: %s", compact.Data)
		}
		full := e.ok(200, e.call(f.key, "GET", "/trainees/Dana/sessions?status=completed&limit=1&view=full", nil))
		full.into(t, &rows)
		if len(rows.Items) != 1 || len(rows.Items[0].Detail) != 1 || len(rows.Items[0].Detail[0].Sets) != 2 {
			t.Fatalf("latest whole: %s", full.Data)
		}
		t.Logf("a row names its exercises in %d characters (about %d tokens); the latest session whole is %d characters",
			len(`,"exercises":["Bench press 2×5 @60kg"]`), len(`,"exercises":["Bench press 2×5 @60kg"]`)/4, len(full.Data))
	})
}

// roster and needs_attention take a tag (any case): only its trainees,
// and needs_attention gives each of them a status.
func TestRosterAndTriageByTag(t *testing.T) {
	eachEngine(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		f := e.seed("grp")
		e.ok(201, e.call(f.key, "POST", "/trainees", map[string]any{"firstName": "Untagged", "lastName": "One", "phone": "050-765-4329"}))
		var roster struct {
			Summary string
			Total   int
			Items   []struct{ TraineeID string }
		}
		e.ok(200, e.call(f.key, "GET", "/roster?question=not_trained&tag=VIP-GRP", nil)).into(t, &roster)
		if roster.Total != 1 || roster.Items[0].TraineeID != f.trainee.ID || !strings.Contains(roster.Summary, "vip-grp") {
			t.Errorf("roster by tag: %+v", roster)
		}
		a := e.ok(200, e.call(f.key, "GET", "/trainees/needs-attention?tag=vip-grp", nil))
		if !strings.Contains(string(a.Data), f.trainee.ID) || strings.Contains(string(a.Data), "Untagged") || !strings.Contains(string(a.Data), `"activeTrainees":1`) {
			t.Errorf("needs-attention by tag: %s", a.Data)
		}
		e.fails(404, "NOT_FOUND", e.call(f.key, "GET", "/roster?question=trained&tag=nope", nil))
	})
}

// An exercise search that matches nothing as written lists what it may
// mean: the other script, or another spelling.
func TestExerciseSearchNearMatches(t *testing.T) {
	onSQLite(t, func(t *testing.T, st store.Store) {
		e := newEnv(t, st)
		_, k, _ := e.studio("exnear", "pro")
		a := e.ok(200, e.call(k, "GET", "/exercises?q="+url.QueryEscape("dedlift"), nil))
		if !strings.Contains(string(a.Data), `"nearMatches":[{"id":"deadlift"`) || !strings.Contains(string(a.Data), `"total":0`) {
			t.Errorf("dedlift: %s", a.Data)
		}
		a = e.ok(200, e.call(k, "GET", "/exercises?q="+url.QueryEscape("squat"), nil))
		if strings.Contains(string(a.Data), "nearMatches") {
			t.Errorf("squat matched and still has nearMatches: %s", a.Data)
		}
	})
}

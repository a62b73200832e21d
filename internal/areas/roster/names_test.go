package roster_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// Names where ids are asked: a trainee, plan, template, form, coach, tag or
// exercise given by its name (Hebrew or English, any case, or a slug) is
// the record it fits, on every route that takes its id, path and body
// alike, and the answer says what it matched; a name that fits several is
// refused with the candidates, one that fits none with the nearest.
func TestNamesWhereIDsAreAsked(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("nm")
		k := f.Key
		var tamar domain.Trainee
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "תמר", "lastName": "אברהם", "phone": "050-765-4321"})).Into(t, &tamar)
		matched := func(a kit.Answer, want ...string) {
			t.Helper()
			all := strings.Join(a.Matched, "\n")
			for _, w := range want {
				if !strings.Contains(all, w) {
					t.Errorf("matched %q lacks %q", a.Matched, w)
				}
			}
		}
		// The path: Latin letters for a Hebrew name, and the trainee's own name.
		for name, want := range map[string]string{"Tamar": tamar.ID, "tamar avraham": tamar.ID, "תמר": tamar.ID, "Dana": f.Trainee.ID, "levi-nm": f.Trainee.ID} {
			var got domain.Trainee
			a := e.OK(200, e.Call(k, "GET", "/trainees/"+url.PathEscape(name), nil))
			a.Into(t, &got)
			if got.ID != want {
				t.Errorf("GET /trainees/%s: %s, want %s", name, got.ID, want)
			}
			matched(a, want)
		}
		// Body fields: a plan by its slug, a template and a form in another case.
		tp := "/trainees/" + url.PathEscape("Tamar")
		matched(e.OK(201, e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": "monthly-nm"})), "Monthly nm", f.Product.ID, tamar.ID)
		matched(e.OK(201, e.Call(k, "POST", tp+"/programs/assign", map[string]any{"templateId": "STRENGTH NM"})), f.Template.ID)
		matched(e.OK(201, e.Call(k, "POST", tp+"/forms/assign", map[string]any{"formTemplateId": "check-in nm", "notify": false})), f.Form.ID)
		matched(e.OK(201, e.Call(k, "POST", "/tasks", map[string]any{"title": "Call", "clientId": "Tamar Avraham", "coachId": "coach nm"})), tamar.ID, f.Coach.ID)
		matched(e.OK(200, e.Call(k, "PATCH", "/trainees/"+tamar.ID, map[string]any{"coachIds": []string{"Coach nm"}})), f.Coach.ID)
		matched(e.OK(200, e.Call(k, "GET", "/trainees/search?tag=VIP-NM", nil)), "vip-nm")
		// An exercise by its Hebrew name.
		matched(e.OK(201, e.Call(k, "POST", tp+"/workouts", map[string]any{"sport": "strength",
			"exercises": []map[string]any{{"exerciseId": "סקוואט", "sets": []map[string]any{{"reps": 5, "loadKg": 60}}}}})), "back-squat")

		// Ambiguous: the candidates, and nothing done.
		e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": "Dana", "lastName": "Cohen", "phone": "050-765-4322"}))
		a := e.Fails(422, "VALIDATION", e.Call(k, "GET", "/trainees/Dana", nil))
		if m := a.Message(); !strings.Contains(m, "Dana Cohen") || !strings.Contains(m, "Dana Levi-nm") || !strings.Contains(m, f.Trainee.ID) {
			t.Errorf("ambiguous name: %s", m)
		}
		// Unknown: the nearest, with ids.
		a = e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": "Monthly plus"}))
		if m := a.Message(); !strings.Contains(m, "Monthly nm ("+f.Product.ID+")") {
			t.Errorf("unknown plan: %s", m)
		}
		// Another studio's names are not found; a wrong id is refused as before.
		g := e.Seed("nm-other")
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/"+url.PathEscape("Levi-nm-other"), nil))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": "Monthly nm-other"}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "POST", tp+"/subscription", map[string]any{"productId": g.Product.ID}))
		e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/trainees/"+f.Product.ID, nil))
		// Text search would refuse (invalid UTF-8, controls) is no name, not a 500.
		for _, odd := range []string{"Dana%E2%80%AE", "%FF%FE", "Dana%00"} {
			if a := e.Call(k, "GET", "/trainees/"+odd, nil); a.Status >= 500 || a.OK {
				t.Errorf("GET /trainees/%s: %d %s", odd, a.Status, a.Raw)
			}
		}
	})
}

// A trainee's own connection resolves no person's name, and hears none.
func TestTraineeResolvesNoPersonsName(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("nmt")
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "Dana", "lastName": "Cohen", "phone": "050-765-4322"}))
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "תמר", "lastName": "אברהם", "phone": "050-765-4321"}))
		tok := e.TraineeToken(f)
		for _, path := range []string{"/trainees/Dana", "/trainees/Tamar", "/trainees/" + url.PathEscape("Dana Cohen")} {
			a := e.Call(tok, "GET", path, nil)
			if a.Status != 404 || !strings.Contains(a.Message(), "No trainee with id") || strings.Contains(a.Raw, "אברהם") || strings.Contains(a.Raw, "trn_") || len(a.Matched) > 0 {
				t.Errorf("trainee GET %s: %d %s", path, a.Status, a.Raw)
			}
		}
	})
}

// Session rows name their exercises, and the latest session whole is one
// call (limit=1&view=full), by the trainee's name.
func TestSessionRowsNameTheirExercises(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("rows")
		tp := "/trainees/" + f.Trainee.ID
		e.OK(201, e.Call(f.Key, "POST", tp+"/workouts", map[string]any{"sport": "strength", "date": kit.AddDays(kit.Today(), -1), "exercises": []map[string]any{
			{"exerciseId": "bench press", "sets": []map[string]any{{"reps": 5, "loadKg": 60}, {"reps": 5, "loadKg": 60}}}}}))
		var rows struct {
			Items []struct {
				Title     string
				Exercises []string
				Detail    []domain.SessionExercise
			}
		}
		compact := e.OK(200, e.Call(f.Key, "GET", tp+"/sessions?limit=10", nil))
		compact.Into(t, &rows)
		if len(rows.Items) != 2 || strings.Join(rows.Items[0].Exercises, ",") != "Back squat 3×5 @80kg" ||
			strings.Join(rows.Items[1].Exercises, ",") != "Bench press 2×5 @60kg" || rows.Items[1].Detail != nil {
			t.Fatalf("rows: %s", compact.Data)
		}
		full := e.OK(200, e.Call(f.Key, "GET", "/trainees/Dana/sessions?status=completed&limit=1&view=full", nil))
		full.Into(t, &rows)
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
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		f := e.Seed("grp")
		e.OK(201, e.Call(f.Key, "POST", "/trainees", map[string]any{"firstName": "Untagged", "lastName": "One", "phone": "050-765-4329"}))
		var roster struct {
			Summary string
			Total   int
			Items   []struct{ TraineeID string }
		}
		e.OK(200, e.Call(f.Key, "GET", "/roster?question=not_trained&tag=VIP-GRP", nil)).Into(t, &roster)
		if roster.Total != 1 || roster.Items[0].TraineeID != f.Trainee.ID || !strings.Contains(roster.Summary, "vip-grp") {
			t.Errorf("roster by tag: %+v", roster)
		}
		a := e.OK(200, e.Call(f.Key, "GET", "/trainees/needs-attention?tag=vip-grp", nil))
		if !strings.Contains(string(a.Data), f.Trainee.ID) || strings.Contains(string(a.Data), "Untagged") || !strings.Contains(string(a.Data), `"activeTrainees":1`) {
			t.Errorf("needs-attention by tag: %s", a.Data)
		}
		e.Fails(404, "NOT_FOUND", e.Call(f.Key, "GET", "/roster?question=trained&tag=nope", nil))
	})
}

// An exercise search that matches nothing as written lists what it may
// mean: the other script, or another spelling.
func TestExerciseSearchNearMatches(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		_, k, _ := e.Studio("exnear", "pro")
		a := e.OK(200, e.Call(k, "GET", "/exercises?q="+url.QueryEscape("dedlift"), nil))
		if !strings.Contains(string(a.Data), `"nearMatches":[{"id":"deadlift"`) || !strings.Contains(string(a.Data), `"total":0`) {
			t.Errorf("dedlift: %s", a.Data)
		}
		a = e.OK(200, e.Call(k, "GET", "/exercises?q="+url.QueryEscape("squat"), nil))
		if strings.Contains(string(a.Data), "nearMatches") {
			t.Errorf("squat matched and still has nearMatches: %s", a.Data)
		}
	})
}

package catalog_test

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

// exerciseRowJSON is a search row as the wire carries it.
type exerciseRowJSON struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	NameHe       string   `json:"nameHe"`
	Category     string   `json:"category"`
	Equipment    []string `json:"equipment"`
	Measure      string   `json:"measure"`
	Aliases      []string `json:"aliases"`
	Loads        []string `json:"loadsAreas"`
	Alternatives []string `json:"alternatives"`
	Custom       *bool    `json:"custom"`
}

func sledSprint() map[string]any {
	return map[string]any{
		"name": "Sled sprint", "nameHe": "ספרינט עם מזחלת", "aliases": []string{"prowler sprint", "ספרינט מזחלת"},
		"category": "conditioning", "primaryMuscles": []string{"quadriceps", "glutes"}, "equipment": []string{"sled"},
		"measure": "distance", "loadsAreas": []string{"knee", "hip"}, "alternatives": []string{"sled-push", "sprint"},
	}
}

func TestExercises(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		_, k, _ := e.Studio("exercises", "pro")
		search := func(query string) kit.List[exerciseRowJSON] {
			t.Helper()
			var res kit.List[exerciseRowJSON]
			e.OK(200, e.Call(k, "GET", "/exercises?"+query, nil)).Into(t, &res)
			return res
		}
		rowIDs := func(res kit.List[exerciseRowJSON]) []string {
			var out []string
			for _, r := range res.Items {
				out = append(out, r.ID)
			}
			return out
		}

		// Hebrew search finds the squats, the exact alias first.
		res := search("q=" + url.QueryEscape("סקוואט") + "&limit=200")
		got := rowIDs(res)
		if len(got) == 0 || got[0] != "back-squat" {
			t.Fatalf("q=סקוואט: %v, want back-squat first", got)
		}
		for _, id := range []string{"front-squat", "goblet-squat", "bulgarian-split-squat", "hack-squat", "overhead-squat"} {
			if !slices.Contains(got, id) {
				t.Errorf("q=סקוואט lacks %s: %v", id, got)
			}
		}
		if slices.Contains(got, "deadlift") || res.Total != len(got) {
			t.Errorf("q=סקוואט: total %d, items %v", res.Total, got)
		}
		// Aliases in both languages.
		for q, want := range map[string]string{"RDL": "romanian-deadlift", "military press": "overhead-press", "מקבילים": "dips", "הרמה מתה": "deadlift", "  goblet   squat ": "goblet-squat"} {
			if got := rowIDs(search("q=" + url.QueryEscape(q))); len(got) == 0 || got[0] != want {
				t.Errorf("q=%q: %v, want %s first", q, got, want)
			}
		}

		// Compact rows by default; full adds the rest.
		row := search("q=deadlift&limit=1").Items[0]
		if row.ID != "deadlift" || row.NameHe != "דדליפט" || row.Category != "strength" || row.Measure != "reps_load" || len(row.Equipment) == 0 {
			t.Errorf("compact row %+v", row)
		}
		if row.Aliases != nil || row.Loads != nil || row.Alternatives != nil || row.Custom != nil {
			t.Errorf("a compact row carries more than it should: %+v", row)
		}
		full := search("q=deadlift&limit=1&view=full").Items[0]
		if len(full.Aliases) == 0 || !slices.Contains(full.Loads, "lower_back") || !slices.Contains(full.Alternatives, "trap-bar-deadlift") || full.Custom == nil || *full.Custom {
			t.Errorf("full row %+v", full)
		}

		// Filters, and paging with total and nextOffset.
		cardio := search("category=cardio&limit=5")
		if cardio.Total < 10 || len(cardio.Items) != 5 || cardio.NextOffset == nil || *cardio.NextOffset != 5 {
			t.Errorf("category=cardio: total %d, %d items, nextOffset %v", cardio.Total, len(cardio.Items), cardio.NextOffset)
		}
		last := search("category=cardio&limit=5&offset=" + strconv.Itoa(cardio.Total-2))
		if len(last.Items) != 2 || last.NextOffset != nil {
			t.Errorf("the last page: %d items, nextOffset %v", len(last.Items), last.NextOffset)
		}
		for _, r := range search("equipment=kettlebell&muscle=glutes&area=hip&limit=200").Items {
			x, ok := exercises.Get(r.ID)
			if !ok || !slices.Contains(x.Equipment, "kettlebell") || !exercises.Loads(x, "hip") {
				t.Errorf("equipment=kettlebell&area=hip found %s", r.ID)
			}
		}
		if got := rowIDs(search("equipment=kettlebell&muscle=glutes&area=hip&limit=200")); !slices.Contains(got, "kettlebell-swing") {
			t.Errorf("equipment=kettlebell&muscle=glutes&area=hip: %v, want kettlebell-swing", got)
		}
		if all := search("limit=1"); all.Total != len(exercises.All()) {
			t.Errorf("every exercise: total %d, want %d", all.Total, len(exercises.All()))
		}

		// The studio's own exercise, beside the built-ins.
		var mine domain.Exercise
		e.OK(201, e.Call(k, "POST", "/exercises", sledSprint())).Into(t, &mine)
		if !ids.Valid(mine.ID, ids.Exercise) || !mine.Custom || mine.CreatedAt == nil || mine.NameHe != "ספרינט עם מזחלת" {
			t.Fatalf("created %+v", mine)
		}
		if got := rowIDs(search("q=" + url.QueryEscape("מזחלת"))); !slices.Contains(got, mine.ID) || !slices.Contains(got, "sled-push") {
			t.Errorf("q=מזחלת: %v, want the studio's %s and sled-push", got, mine.ID)
		}
		if got := rowIDs(search("q=prowler")); len(got) < 2 || !slices.Contains(got, mine.ID) {
			t.Errorf("q=prowler: %v", got)
		}
		if all := search("limit=1"); all.Total != len(exercises.All())+1 {
			t.Errorf("every exercise: total %d, want %d", all.Total, len(exercises.All())+1)
		}

		// One exercise, its alternatives resolved: a built-in's own and
		// the studio's that name it.
		type detail struct {
			domain.Exercise
			AlternativeExercises []exerciseRowJSON `json:"alternativeExercises"`
		}
		var d detail
		e.OK(200, e.Call(k, "GET", "/exercises/sled-push", nil)).Into(t, &d)
		alts := rowIDs(kit.List[exerciseRowJSON]{Items: d.AlternativeExercises})
		if d.ID != "sled-push" || d.Custom || !slices.Contains(alts, "sled-pull") || !slices.Contains(alts, mine.ID) {
			t.Errorf("GET /exercises/sled-push: %s custom %v, alternatives %v", d.ID, d.Custom, alts)
		}
		e.OK(200, e.Call(k, "GET", "/exercises/"+mine.ID, nil)).Into(t, &d)
		if alts := rowIDs(kit.List[exerciseRowJSON]{Items: d.AlternativeExercises}); d.ID != mine.ID || !d.Custom || !slices.Equal(alts, []string{"sled-push", "sprint"}) {
			t.Errorf("GET /exercises/%s: %+v, alternatives %v", mine.ID, d.Exercise, alts)
		}
		// An alternative may be the studio's own.
		second := sledSprint()
		second["name"], second["alternatives"] = "Sled sprint, heavy", []string{mine.ID}
		var heavy domain.Exercise
		e.OK(201, e.Call(k, "POST", "/exercises", second)).Into(t, &heavy)
		e.OK(200, e.Call(k, "GET", "/exercises/"+mine.ID, nil)).Into(t, &d)
		if alts := rowIDs(kit.List[exerciseRowJSON]{Items: d.AlternativeExercises}); !slices.Contains(alts, heavy.ID) {
			t.Errorf("the studio's exercise naming %s is not among its alternatives: %v", mine.ID, alts)
		}

		// Ids that name nothing: the sentence names search_exercises.
		for _, bad := range []string{"no-such-exercise", ids.New(ids.Exercise), "exr_short", ids.New(ids.Trainee), "Back-Squat"} {
			a := e.Fails(404, "NOT_FOUND", e.Call(k, "GET", "/exercises/"+url.PathEscape(bad), nil))
			if !strings.Contains(a.Message(), "search_exercises") {
				t.Errorf("GET /exercises/%s: %q does not name search_exercises", bad, a.Message())
			}
		}
	})
}

func TestExerciseValidation(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		s, k, _ := e.Studio("exercise-checks", "pro")
		with := func(field string, v any) map[string]any {
			m := sledSprint()
			if v == nil {
				delete(m, field)
			} else {
				m[field] = v
			}
			return m
		}
		for _, c := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"no name", with("name", nil), "name"},
			{"blank name", with("name", "   "), "name"},
			{"long name", with("name", strings.Repeat("x", 101)), "name"},
			{"nameHe not Hebrew", with("nameHe", "Sled"), "nameHe"},
			{"no category", with("category", nil), "category"},
			{"unknown category", with("category", "cardio-strength"), "category"},
			{"unknown measure", with("measure", "calories"), "measure"},
			{"no measure", with("measure", nil), "measure"},
			{"no primary muscles", with("primaryMuscles", []string{}), "primaryMuscles"},
			{"unknown muscle", with("primaryMuscles", []string{"quadriceps", "quads"}), "primaryMuscles[1]"},
			{"unknown secondary muscle", with("secondaryMuscles", []string{"soul"}), "secondaryMuscles[0]"},
			{"no equipment", with("equipment", nil), "equipment"},
			{"unknown equipment", with("equipment", []string{"spaceship"}), "equipment[0]"},
			{"no areas", with("loadsAreas", []string{}), "loadsAreas"},
			{"unknown area", with("loadsAreas", []string{"knees"}), "loadsAreas[0]"},
			{"too many aliases", with("aliases", slices.Repeat([]string{"a"}, 21)), "aliases"},
			{"unilateral not a boolean", with("unilateral", "yes"), "unilateral"},
		} {
			a := e.Fails(422, "VALIDATION", e.Call(k, "POST", "/exercises", c.body))
			if !slices.Contains(a.Fields(), c.field) {
				t.Errorf("%s: fields %v, want %s: %s", c.name, a.Fields(), c.field, a.Raw)
			}
		}
		// A vocabulary error lists the words to use.
		a := e.Fails(422, "VALIDATION", e.Call(k, "POST", "/exercises", with("loadsAreas", []string{"knees"})))
		if !strings.Contains(a.Message(), "lower_back") {
			t.Errorf("the area sentence does not list the areas: %s", a.Message())
		}
		// Alternatives must exist.
		for _, alt := range []string{"no-such-exercise", ids.New(ids.Exercise)} {
			a := e.Fails(404, "NOT_FOUND", e.Call(k, "POST", "/exercises", with("alternatives", []string{"sprint", alt})))
			if !strings.Contains(a.Message(), alt) || !strings.Contains(a.Message(), "search_exercises") {
				t.Errorf("alternative %s: %s", alt, a.Message())
			}
		}
		// Names are unique, built-in names taken.
		e.OK(201, e.Call(k, "POST", "/exercises", sledSprint()))
		if a := e.Fails(409, "CONFLICT", e.Call(k, "POST", "/exercises", with("name", "SLED  sprint"))); !strings.Contains(a.Message(), "Sled sprint") {
			t.Errorf("duplicate name: %s", a.Message())
		}
		if a := e.Fails(409, "CONFLICT", e.Call(k, "POST", "/exercises", with("name", "back squat"))); !strings.Contains(a.Message(), "back-squat") {
			t.Errorf("a built-in's name: %s", a.Message())
		}
		// Search filters are checked against the same vocabularies.
		for q, field := range map[string]string{"equipment=spaceship": "equipment", "muscle=quads": "muscle", "area=knees": "area", "category=dance": "category", "view=tiny": "view", "limit=201": "limit"} {
			if a := e.Fails(422, "VALIDATION", e.Call(k, "GET", "/exercises?"+q, nil)); !slices.Contains(a.Fields(), field) {
				t.Errorf("%s: fields %v, want %s", q, a.Fields(), field)
			}
		}
		// Studio apps only: a read-and-write key may search, not add.
		rw := e.KeyWith(s.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite)
		e.OK(200, e.Call(rw, "GET", "/exercises?q=row", nil))
		e.Fails(403, "FORBIDDEN", e.Call(rw, "POST", "/exercises", with("name", "Another")))
	})
}

// Another studio's exercise is not found, is not searched, and is no
// alternative here.
func TestExerciseTenancy(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		_, ka, _ := e.Studio("exercises-a", "pro")
		_, kb, _ := e.Studio("exercises-b", "pro")
		var theirs domain.Exercise
		e.OK(201, e.Call(kb, "POST", "/exercises", sledSprint())).Into(t, &theirs)
		a := e.Fails(404, "NOT_FOUND", e.Call(ka, "GET", "/exercises/"+theirs.ID, nil))
		if strings.Contains(a.Raw, "ספרינט") {
			t.Errorf("the answer leaks the exercise: %s", a.Raw)
		}
		var res kit.List[exerciseRowJSON]
		e.OK(200, e.Call(ka, "GET", "/exercises?q=prowler", nil)).Into(t, &res)
		for _, r := range res.Items {
			if r.ID == theirs.ID {
				t.Errorf("studio A's search finds B's exercise")
			}
		}
		body := sledSprint()
		body["alternatives"] = []string{theirs.ID}
		e.Fails(404, "NOT_FOUND", e.Call(ka, "POST", "/exercises", body))
		// The same name is free in another studio.
		e.OK(201, e.Call(ka, "POST", "/exercises", sledSprint()))
	})
}

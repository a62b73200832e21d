package catalog_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/areas/catalog"
	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/lane/lanetest"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/store"
)

type resourcesOut struct {
	Items []struct {
		Kind       string   `json:"kind"`
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Sport      string   `json:"sport"`
		Summary    string   `json:"summary"`
		Principles []string `json:"principles"`
		Muscles    []string `json:"muscles"`
	} `json:"items"`
	Total      int  `json:"total"`
	NextOffset *int `json:"nextOffset"`
}

func TestTrainingResources(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("res")
		k := f.Key

		var r resourcesOut
		a := e.OK(200, e.Call(k, "GET", "/training-resources?q=sweet+spot", nil))
		a.Into(t, &r)
		if r.Total == 0 || r.Items[0].ID != "cycling-sweet-spot" || r.Items[0].Kind != "methodology" || r.Items[0].Summary == "" || r.Items[0].Principles != nil {
			t.Fatalf("sweet spot, summary view: %s", a.Data)
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?q=sweet+spot&view=full", nil)).Into(t, &r)
		if len(r.Items[0].Principles) == 0 {
			t.Fatalf("view=full lacks principles: %+v", r.Items[0])
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?q=squat&kind=exercise&view=full", nil)).Into(t, &r)
		if r.Total == 0 || r.Items[0].Kind != "exercise" || !strings.Contains(strings.ToLower(r.Items[0].Name), "squat") || len(r.Items[0].Muscles) == 0 {
			t.Fatalf("squat exercises: %+v", r)
		}
		for _, it := range r.Items {
			if it.Kind != "exercise" {
				t.Fatalf("kind=exercise answered a %s", it.Kind)
			}
		}
		// Both kinds, methodologies first; summary rows page.
		e.OK(200, e.Call(k, "GET", "/training-resources", nil)).Into(t, &r)
		if len(r.Items) != 10 || r.Items[0].Kind != "methodology" || r.NextOffset == nil || *r.NextOffset != 10 || r.Total <= 28 {
			t.Fatalf("everything, first page: total %d, %d items, next %v", r.Total, len(r.Items), r.NextOffset)
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?sport=swimming&limit=50", nil)).Into(t, &r)
		if r.Total != 4 {
			t.Fatalf("swimming: %d resources", r.Total)
		}
		for _, it := range r.Items {
			if it.Kind != "methodology" || it.Sport != "swimming" {
				t.Fatalf("sport=swimming answered %+v", it)
			}
		}
		e.OK(200, e.Call(k, "GET", "/training-resources?q=zzqqxx", nil)).Into(t, &r)
		if r.Total != 0 || r.Items == nil {
			t.Fatalf("no match: %+v", r)
		}
		for _, q := range []string{"limit=51", "kind=video", "sport=golf", "view=all", "q=" + strings.Repeat("a", 201)} {
			e.Fails(422, "VALIDATION", e.Call(k, "GET", "/training-resources?"+q, nil))
		}
		// A trainee's connection reads the shared library.
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/training-resources?q=deload", nil))

		var m struct {
			Items []struct {
				ID     string `json:"id"`
				Sport  string `json:"sport"`
				Phases []struct {
					Name string `json:"name"`
				} `json:"phases"`
			} `json:"items"`
			Total int `json:"total"`
		}
		e.OK(200, e.Call(k, "GET", "/methodologies", nil)).Into(t, &m)
		if m.Total != 28 || len(m.Items) != 28 || len(m.Items[0].Phases) == 0 {
			t.Fatalf("methodologies: %d of %d", len(m.Items), m.Total)
		}
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/methodologies?sport=mobility", nil)).Into(t, &m)
		if m.Total != 4 || m.Items[0].Sport != "mobility" {
			t.Fatalf("mobility: %+v", m)
		}
		e.Fails(422, "VALIDATION", e.Call(k, "GET", "/methodologies?sport=golf", nil))
	})
}

type personaOut struct {
	Name         string   `json:"name"`
	Tone         string   `json:"tone"`
	Avoid        []string `json:"avoid"`
	AnswerFormat string   `json:"answerFormat"`
	Examples     []struct {
		Situation string `json:"situation"`
		Reply     string `json:"reply"`
	} `json:"examples"`
	Custom    bool    `json:"custom"`
	UpdatedAt *string `json:"updatedAt"`
}

func TestPersona(t *testing.T) {
	kit.OnSQLite(t, func(t *testing.T, st store.Store) {
		e := lanetest.NewTrainee(t, st, lanetest.TraineeOptions{})
		f := e.Seed("pera")
		b := e.Seed("perb")

		var p personaOut
		e.OK(200, e.Call(f.Key, "GET", "/studio/persona", nil)).Into(t, &p)
		def := catalog.DefaultPersona()
		if p.Custom || p.UpdatedAt != nil || p.Name != def.Name || p.Tone != def.Tone || len(p.Avoid) != len(def.Avoid) || len(p.Examples) != len(def.Examples) {
			t.Fatalf("default persona: %+v", p)
		}
		mine := map[string]any{"name": "Coach Ari", "tone": "Calm and precise.", "avoid": []string{"  jargon  ", "jargon", "emoji"}, "answerFormat": "Two sentences, then numbers.",
			"examples": []map[string]any{{"situation": "Missed a week", "reply": "Start again with one short session."}}}
		// Only the studio's own apps set it.
		e.Fails(403, "FORBIDDEN", e.Call(e.KeyWith(f.Studio.ID, auth.ScopeStudioRead, auth.ScopeStudioWrite), "PUT", "/studio/persona", mine))
		e.Fails(403, "FORBIDDEN", e.Call(e.TraineeToken(f), "PUT", "/studio/persona", mine))

		for _, c := range []struct {
			change map[string]any
			field  string
		}{
			{map[string]any{"tone": "   "}, "tone"},
			{map[string]any{"tone": strings.Repeat("t", 1001)}, "tone"},
			{map[string]any{"name": nil}, "name"},
			{map[string]any{"answerFormat": strings.Repeat("a", 1501)}, "answerFormat"},
			{map[string]any{"avoid": make([]string, 21)}, "avoid"},
			{map[string]any{"examples": []map[string]any{{"situation": "x", "reply": " "}}}, "examples[0]"},
			{map[string]any{"examples": []map[string]any{{"situation": "x"}}}, "examples[0].reply"},
		} {
			body := map[string]any{}
			for k, v := range mine {
				body[k] = v
			}
			for k, v := range c.change {
				if v == nil {
					delete(body, k)
				} else {
					body[k] = v
				}
			}
			a := e.Fails(422, "VALIDATION", e.Call(f.Key, "PUT", "/studio/persona", body))
			if !slices.ContainsFunc(a.Fields(), func(s string) bool { return strings.HasPrefix(s, c.field) }) {
				t.Errorf("%v: fields %v: %s", c.change, a.Fields(), a.Message())
			}
		}

		e.OK(200, e.Call(f.Key, "PUT", "/studio/persona", mine)).Into(t, &p)
		if !p.Custom || p.UpdatedAt == nil || p.Name != "Coach Ari" || !slices.Equal(p.Avoid, []string{"jargon", "emoji"}) {
			t.Fatalf("PUT answered %+v", p)
		}
		e.OK(200, e.Call(e.TraineeToken(f), "GET", "/studio/persona", nil)).Into(t, &p)
		if !p.Custom || p.Tone != "Calm and precise." || len(p.Examples) != 1 {
			t.Fatalf("the trainee reads %+v", p)
		}
		// Another studio keeps the default.
		e.OK(200, e.Call(b.Key, "GET", "/studio/persona", nil)).Into(t, &p)
		if p.Custom || p.Name != def.Name {
			t.Fatalf("studio b reads %+v", p)
		}
		e.OK(200, e.Call(f.Key, "DELETE", "/studio/persona", nil)).Into(t, &p)
		e.OK(200, e.Call(f.Key, "GET", "/studio/persona", nil)).Into(t, &p)
		if p.Custom || p.Name != def.Name {
			t.Fatalf("after DELETE: %+v", p)
		}
	})
}

// The default persona is written to be used: every part present and bounded
// as a studio's own would be.
func TestDefaultPersonaFitsItsOwnRules(t *testing.T) {
	p := catalog.DefaultPersona()
	raw, _ := json.Marshal(p)
	if p.Name == "" || p.Tone == "" || p.AnswerFormat == "" || len(p.Avoid) == 0 || len(p.Examples) == 0 || len(raw) > 6000 {
		t.Fatalf("default persona: %d bytes, %+v", len(raw), p)
	}
	if len(p.Tone) > 1000 || len(p.AnswerFormat) > 1500 || len(p.Avoid) > 20 || len(p.Examples) > 8 {
		t.Fatalf("the default breaks the PUT limits")
	}
	for _, ex := range p.Examples {
		if len(ex.Situation) > 300 || len(ex.Reply) > 1500 {
			t.Fatalf("example too long: %+v", ex)
		}
	}
}

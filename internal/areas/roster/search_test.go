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

// search_trainees finds names by their words in any order, hyphens and
// spaces alike; a query that matches nobody answers no items and lists the
// closest names apart, as nearMatches, never among the items.
func TestSearchWordsAndNearMatches(t *testing.T) {
	kit.EachEngine(t, func(t *testing.T, st store.Store) {
		e := lanetest.New(t, st)
		_, k, _ := e.Studio("search-words", "pro")
		ids := map[string]string{}
		for i, name := range [][2]string{{"Daniel", "Levi"}, {"נועה", "כהן"}, {"Avi", "Ben-David"}, {"Dana", "Goldberg"}} {
			var tr domain.Trainee
			e.OK(201, e.Call(k, "POST", "/trainees", map[string]any{"firstName": name[0], "lastName": name[1], "phone": "054-100-000" + string(rune('0'+i))})).Into(t, &tr)
			ids[name[1]] = tr.ID
		}
		type answer struct {
			kit.List[domain.Trainee]
			NearMatches []domain.Trainee `json:"nearMatches"`
		}
		search := func(q string) (answer, string) {
			var res answer
			a := e.OK(200, e.Call(k, "GET", "/trainees/search?q="+url.QueryEscape(q), nil))
			a.Into(t, &res)
			return res, string(a.Data)
		}
		for q, want := range map[string]string{"Levi Daniel": "Levi", "כהן נועה": "כהן", "Ben David": "Ben-David", "dana  goldberg": "Goldberg"} {
			res, raw := search(q)
			if res.Total != 1 || len(res.Items) != 1 || res.Items[0].ID != ids[want] || strings.Contains(raw, "nearMatches") {
				t.Errorf("search %q: %s, want only %s and no nearMatches", q, raw, want)
			}
		}
		// Spelled another way or in the other script: the names q sounds
		// like, as items, marked soundsLike.
		for q, want := range map[string]string{"Goldburg": "Goldberg", "Danial Levy": "Levi", "כהנ": "כהן", "Noa Cohen": "כהן", "דניאל לוי": "Levi", "אבי בן דוד": "Ben-David"} {
			res, raw := search(q)
			if res.Total != 1 || len(res.Items) != 1 || res.Items[0].ID != ids[want] || !strings.Contains(raw, `"soundsLike":true`) || strings.Contains(raw, "nearMatches") {
				t.Errorf("search %q: %s, want %s as sounding like it", q, raw, want)
			}
		}
		for q, want := range map[string]string{"Golberg": "Goldberg", "Dagniel Levi": "Levi", "כהם": "כהן"} {
			res, raw := search(q)
			if res.Total != 0 || len(res.Items) != 0 || res.NextOffset != nil {
				t.Errorf("search %q: %s, want no items", q, raw)
			}
			if len(res.NearMatches) == 0 || res.NearMatches[0].ID != ids[want] {
				t.Errorf("search %q: nearMatches %v, want %s first", q, res.NearMatches, want)
			}
		}
		// Near matches keep the other filters.
		var res answer
		e.OK(200, e.Call(k, "GET", "/trainees/search?q=Golberg&status=paused", nil)).Into(t, &res)
		if len(res.NearMatches) != 0 {
			t.Errorf("paused near matches: %v, want none", res.NearMatches)
		}
		// Nothing near, and no q: no nearMatches.
		for _, q := range []string{"zzzz", ""} {
			if _, raw := search(q); strings.Contains(raw, "nearMatches") {
				t.Errorf("search %q: %s, want no nearMatches", q, raw)
			}
		}
	})
}

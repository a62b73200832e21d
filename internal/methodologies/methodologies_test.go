package methodologies

import (
	"strings"
	"testing"
)

func TestLibrary(t *testing.T) {
	list := All()
	if len(list) < 24 || len(list) > 32 {
		t.Fatalf("the library has %d methodologies; it is meant to hold about 28", len(list))
	}
	perSport := map[string]int{}
	seen := map[string]bool{}
	for _, m := range list {
		if seen[m.ID] {
			t.Fatalf("id %s twice", m.ID)
		}
		seen[m.ID] = true
		perSport[m.Sport]++
		if got, ok := Get(m.ID); !ok || got.Name != m.Name {
			t.Fatalf("Get(%s) = %v, %v", m.ID, got.Name, ok)
		}
		// Concise facts: a summary is a sentence or two, not an essay.
		if len(m.Summary) > 300 {
			t.Errorf("%s: summary of %d characters", m.ID, len(m.Summary))
		}
	}
	for _, s := range Sports {
		if perSport[s] < 3 {
			t.Errorf("sport %s has %d methodologies, want at least 3", s, perSport[s])
		}
		for _, m := range OfSport(s) {
			if m.Sport != s {
				t.Fatalf("OfSport(%s) holds %s of %s", s, m.ID, m.Sport)
			}
		}
	}
	if len(perSport) != len(Sports) {
		t.Fatalf("sports %v, want exactly %v", perSport, Sports)
	}
	// All is a copy: changing it does not change the library.
	list[0].Name = "changed"
	if All()[0].Name == "changed" {
		t.Fatal("All hands out the library itself")
	}
}

func TestLoadRefusesBrokenData(t *testing.T) {
	good := `{"id":"a","name":"A","sport":"running","summary":"s","suitedFor":"x","principles":["p"],"phases":[{"name":"n","weeks":"1","focus":"f"}],"typicalSessions":["t"]}`
	if _, err := load([]byte("[" + good + "]")); err != nil {
		t.Fatalf("a good entry: %v", err)
	}
	for name, data := range map[string]string{
		"duplicate id":  "[" + good + "," + good + "]",
		"unknown sport": "[" + strings.Replace(good, `"running"`, `"golf"`, 1) + "]",
		"no summary":    "[" + strings.Replace(good, `"summary":"s"`, `"summary":""`, 1) + "]",
		"no principles": "[" + strings.Replace(good, `"principles":["p"]`, `"principles":[]`, 1) + "]",
		"empty session": "[" + strings.Replace(good, `"typicalSessions":["t"]`, `"typicalSessions":[" "]`, 1) + "]",
		"phase focus":   "[" + strings.Replace(good, `"focus":"f"`, `"focus":""`, 1) + "]",
		"unknown field": "[" + strings.Replace(good, `"id":"a"`, `"id":"a","extra":1`, 1) + "]",
	} {
		if _, err := load([]byte(data)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func TestSearch(t *testing.T) {
	got := Search("threshold", "")
	if len(got) == 0 {
		t.Fatal("no methodology mentions threshold")
	}
	// A name match comes before a match in the text.
	first := Search("sweet spot", "")
	if len(first) == 0 || first[0].ID != "cycling-sweet-spot" {
		t.Fatalf("Search(sweet spot) = %v", first)
	}
	for _, m := range Search("interval", "swimming") {
		if m.Sport != "swimming" {
			t.Fatalf("sport filter let %s through", m.ID)
		}
	}
	if n := len(Search("", "")); n != len(All()) {
		t.Fatalf("an empty query matches %d of %d", n, len(All()))
	}
	if len(Search("SWEET spot", "running")) != 0 {
		t.Fatal("the sport filter did not hold")
	}
	if len(Search("nothing-like-this-anywhere", "")) != 0 {
		t.Fatal("matched nonsense")
	}
}

// FuzzLoad: load never panics, and what it accepts holds its rules.
func FuzzLoad(f *testing.F) {
	f.Add(raw)
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"id":"a","name":"A","sport":"running","summary":"s","suitedFor":"x","principles":["p"],"phases":[{"name":"n","weeks":"1","focus":"f"}],"typicalSessions":["t"]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		list, err := load(b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, m := range list {
			if m.ID == "" || seen[m.ID] || len(m.Phases) == 0 {
				t.Fatalf("accepted %+v", m)
			}
			seen[m.ID] = true
		}
	})
}

package exercises

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/otherwise/perform/internal/domain"
)

var slug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// TestCatalogue validates catalogue.json: every field from its vocabulary,
// every alternative a real, different exercise that names this one back.
func TestCatalogue(t *testing.T) {
	all := All()
	if len(all) < 140 {
		t.Fatalf("the catalogue has %d exercises; it should hold about 150", len(all))
	}
	ids, names, namesHe := map[string]bool{}, map[string]string{}, map[string]string{}
	for _, e := range all {
		if !slug.MatchString(e.ID) {
			t.Errorf("%q: an id is a kebab-case slug", e.ID)
		}
		if ids[e.ID] {
			t.Errorf("%s: id used twice", e.ID)
		}
		ids[e.ID] = true
		if e.Custom || e.CreatedAt != nil {
			t.Errorf("%s: a built-in is not custom and has no creation time", e.ID)
		}
		if strings.TrimSpace(e.Name) == "" {
			t.Errorf("%s: no English name", e.ID)
		}
		if other, dup := names[Normalize(e.Name)]; dup {
			t.Errorf("%s: name %q is also %s's", e.ID, e.Name, other)
		}
		names[Normalize(e.Name)] = e.ID
		if !hebrew(e.NameHe) {
			t.Errorf("%s: Hebrew name %q is not Hebrew script", e.ID, e.NameHe)
		}
		if other, dup := namesHe[Normalize(e.NameHe)]; dup {
			t.Errorf("%s: Hebrew name %q is also %s's", e.ID, e.NameHe, other)
		}
		namesHe[Normalize(e.NameHe)] = e.ID
		if !slices.ContainsFunc(e.Aliases, hebrew) || slices.IndexFunc(e.Aliases, func(a string) bool { return !hebrew(a) }) < 0 {
			t.Errorf("%s: aliases %q should hold both English and Hebrew ones", e.ID, e.Aliases)
		}
		for _, a := range e.Aliases {
			if Normalize(a) != strings.ToLower(strings.TrimSpace(a)) && !strings.ContainsAny(a, "-'") {
				t.Errorf("%s: alias %q has stray spacing", e.ID, a)
			}
		}
		if !slices.Contains(Categories, e.Category) {
			t.Errorf("%s: category %q is not one of %v", e.ID, e.Category, Categories)
		}
		if !slices.Contains(Measures, e.Measure) {
			t.Errorf("%s: measure %q is not one of %v", e.ID, e.Measure, Measures)
		}
		if len(e.Primary) == 0 || len(e.Equipment) == 0 || len(e.Loads) == 0 {
			t.Errorf("%s: needs primary muscles, equipment and loaded areas", e.ID)
		}
		for _, m := range slices.Concat(e.Primary, e.Secondary) {
			if !slices.Contains(Muscles, m) {
				t.Errorf("%s: muscle %q is not one of Muscles", e.ID, m)
			}
		}
		for _, q := range e.Equipment {
			if !slices.Contains(Equipment, q) {
				t.Errorf("%s: equipment %q is not one of Equipment", e.ID, q)
			}
		}
		for _, a := range e.Loads {
			if !slices.Contains(domain.BodyAreas, a) {
				t.Errorf("%s: body area %q is not one of domain.BodyAreas", e.ID, a)
			}
		}
	}
	for _, e := range all {
		if len(e.Alternatives) == 0 {
			t.Errorf("%s: no alternatives", e.ID)
		}
		for _, id := range e.Alternatives {
			alt, ok := Get(id)
			switch {
			case id == e.ID:
				t.Errorf("%s: names itself as an alternative", e.ID)
			case !ok:
				t.Errorf("%s: alternative %q is not in the catalogue", e.ID, id)
			case !slices.Contains(alt.Alternatives, e.ID):
				t.Errorf("%s: alternative %s does not name it back", e.ID, id)
			case endurance(e) && endurance(alt):
				// Cardio swaps by energy system, not by muscle.
			case !shares(e.Primary, slices.Concat(alt.Primary, alt.Secondary)) && !shares(e.Loads, alt.Loads):
				t.Errorf("%s: alternative %s shares neither a primary muscle nor a loaded area", e.ID, id)
			}
		}
		if got := Alternatives(e.ID); len(got) != len(e.Alternatives) {
			t.Errorf("Alternatives(%s) = %d exercises, want %d", e.ID, len(got), len(e.Alternatives))
		}
	}
	// Every vocabulary word is used, so none is a typo of another.
	for _, m := range Muscles {
		if !slices.ContainsFunc(all, func(e domain.Exercise) bool { return slices.Contains(e.Primary, m) || slices.Contains(e.Secondary, m) }) {
			t.Errorf("muscle %q is used by no exercise", m)
		}
	}
	for _, q := range Equipment {
		if !slices.ContainsFunc(all, func(e domain.Exercise) bool { return slices.Contains(e.Equipment, q) }) {
			t.Errorf("equipment %q is used by no exercise", q)
		}
	}
	for _, c := range Categories {
		if !slices.ContainsFunc(all, func(e domain.Exercise) bool { return e.Category == c }) {
			t.Errorf("category %q is used by no exercise", c)
		}
	}
}

// hebrew: at least one Hebrew letter and no Latin one.
func hebrew(s string) bool {
	he := false
	for _, r := range s {
		if unicode.Is(unicode.Latin, r) {
			return false
		}
		he = he || unicode.Is(unicode.Hebrew, r)
	}
	return he
}

func endurance(e domain.Exercise) bool {
	return e.Category == domain.CategoryCardio || e.Category == domain.CategoryConditioning
}

func shares(a, b []string) bool {
	return slices.ContainsFunc(a, func(v string) bool { return slices.Contains(b, v) })
}

func searchIDs(studio []domain.Exercise, f Filter) []string {
	var out []string
	for _, e := range Search(studio, f) {
		out = append(out, e.ID)
	}
	return out
}

func TestSearch(t *testing.T) {
	for _, c := range []struct {
		q     string
		first string   // the best match
		has   []string // also found
		not   []string // not found
	}{
		{q: "סקוואט", first: "back-squat", has: []string{"front-squat", "goblet-squat", "bulgarian-split-squat", "hack-squat"}, not: []string{"deadlift"}},
		{q: "squat", first: "back-squat", has: []string{"bodyweight-squat", "front-squat", "squat-jump"}},
		{q: "  Goblet   SQUAT ", first: "goblet-squat"},
		{q: "rdl", first: "romanian-deadlift", has: []string{"dumbbell-romanian-deadlift", "single-leg-romanian-deadlift"}},
		{q: "pull up", first: "pull-up", has: []string{"assisted-pull-up"}},
		{q: "Pull-Up", first: "pull-up"},
		{q: "מתח", first: "pull-up", has: []string{"chin-up", "assisted-pull-up"}},
		{q: "לאנג׳", first: "forward-lunge", has: []string{"reverse-lunge"}}, // geresh typed as ׳
		{q: "military press", first: "overhead-press"},
		{q: "ריצה", first: "running", has: []string{"treadmill-running", "trail-running"}},
		{q: "erg", first: "rowing-machine", has: []string{"ski-erg"}},
		{q: "no such exercise"},
	} {
		got := searchIDs(nil, Filter{Q: c.q})
		if c.first == "" {
			if len(got) != 0 {
				t.Errorf("Search(%q) = %v, want nothing", c.q, got)
			}
			continue
		}
		if len(got) == 0 || got[0] != c.first {
			t.Errorf("Search(%q) = %v, want %s first", c.q, got, c.first)
		}
		for _, id := range c.has {
			if !slices.Contains(got, id) {
				t.Errorf("Search(%q) = %v, want it to find %s", c.q, got, id)
			}
		}
		for _, id := range c.not {
			if slices.Contains(got, id) {
				t.Errorf("Search(%q) found %s", c.q, id)
			}
		}
	}
}

// TestSearchRanks: an exact name, then a prefix, then a substring.
func TestSearchRanks(t *testing.T) {
	mine := func(id, name string) domain.Exercise {
		return domain.Exercise{ID: id, Name: name, NameHe: "תרגיל", Category: domain.CategoryStrength, Custom: true}
	}
	studio := []domain.Exercise{mine("exr_3", "Zig row"), mine("exr_2", "Row zig"), mine("exr_1", "Zig")}
	got := searchIDs(studio, Filter{Q: "zig"})
	if want := []string{"exr_1", "exr_3", "exr_2"}; !slices.Equal(got, want) {
		t.Fatalf("Search(zig) = %v, want %v (exact, prefix, substring)", got, want)
	}
	if got := searchIDs(studio, Filter{Q: "תרגיל"}); len(got) != 3 {
		t.Errorf("Hebrew search of the studio's exercises = %v", got)
	}
	all := searchIDs(studio, Filter{})
	if len(all) != len(All())+3 || all[0] != All()[0].ID || all[len(all)-1] != "exr_1" {
		t.Errorf("Search without a query: %d exercises, want the %d built-ins in order and then the studio's", len(all), len(All())+3)
	}
}

func TestSearchFilters(t *testing.T) {
	check := func(f Filter, ok func(domain.Exercise) bool, want string) {
		t.Helper()
		got := Search(nil, f)
		if !slices.ContainsFunc(got, func(e domain.Exercise) bool { return e.ID == want }) {
			t.Errorf("Search(%+v) lacks %s", f, want)
		}
		for _, e := range got {
			if !ok(e) {
				t.Errorf("Search(%+v) found %s", f, e.ID)
			}
		}
		if len(got) == len(All()) {
			t.Errorf("Search(%+v) filtered nothing", f)
		}
	}
	check(Filter{Category: domain.CategoryCardio}, func(e domain.Exercise) bool { return e.Category == domain.CategoryCardio }, "swimming")
	check(Filter{Equipment: "kettlebell"}, func(e domain.Exercise) bool { return slices.Contains(e.Equipment, "kettlebell") }, "kettlebell-swing")
	check(Filter{Muscle: "lats"}, func(e domain.Exercise) bool {
		return slices.Contains(e.Primary, "lats") || slices.Contains(e.Secondary, "lats")
	}, "pull-up")
	check(Filter{Area: "knee"}, func(e domain.Exercise) bool { return Loads(e, "knee") }, "back-squat")
	check(Filter{Q: "press", Equipment: "dumbbell", Area: "shoulder"}, func(e domain.Exercise) bool {
		return Matches(e, "press") && slices.Contains(e.Equipment, "dumbbell") && Loads(e, "shoulder")
	}, "dumbbell-shoulder-press")
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"  \t\n ":             "",
		" Back  SQUAT\t":      "back squat",
		"push-up":             "push up",
		"לחיצת\u00a0 חזה":     "לחיצת חזה",
		"לאנג׳":               "לאנג'",
		"סקוואט־גביע":         "סקוואט גביע",
		"Farmer’s\u2003carry": "farmer's carry",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSearch(f *testing.F) {
	for _, s := range []string{"", " ", "סקוואט", "squat סקוואט", "Goblet SQUAT", "\x00", "a\x00b", "\xff\xfe", "pull-up", "לאנג׳", "ש", strings.Repeat("סקוואט ", 5000), strings.Repeat("a", 1<<16)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		n := Normalize(q)
		if Normalize(n) != n {
			t.Fatalf("Normalize is not idempotent on %q: %q then %q", q, n, Normalize(n))
		}
		if n != strings.TrimSpace(n) || strings.Contains(n, "  ") {
			t.Fatalf("Normalize(%q) = %q keeps stray spacing", q, n)
		}
		got := Search(nil, Filter{Q: q})
		if n == "" && len(got) != len(All()) {
			t.Fatalf("an empty query %q found %d of %d", q, len(got), len(All()))
		}
		last := rankExact
		for _, e := range got {
			if !Matches(e, q) {
				t.Fatalf("Search(%q) found %s, which does not match", q, e.ID)
			}
			if n == "" {
				continue
			}
			r := keysOf(e).rank(n)
			if r < last {
				t.Fatalf("Search(%q): %s (rank %d) after a rank %d", q, e.ID, r, last)
			}
			last = r
		}
	})
}

// BenchmarkSearch is one search of the whole catalogue beside 50 studio
// exercises, as GET /exercises runs it.
func BenchmarkSearch(b *testing.B) {
	var studio []domain.Exercise
	for i := range 50 {
		studio = append(studio, domain.Exercise{ID: fmt.Sprintf("exr_%02d", i), Name: fmt.Sprintf("Studio drill %d", i), NameHe: "תרגיל סטודיו", Aliases: []string{"drill"}, Category: domain.CategoryConditioning})
	}
	for _, q := range []string{"", "squat", "סקוואט", "zzz"} {
		b.Run(fmt.Sprintf("q=%q", q), func(b *testing.B) {
			for b.Loop() {
				Search(studio, Filter{Q: q})
			}
		})
	}
}

// TestPatterns: every exercise has a movement pattern and a level from the
// lists, and loads at least its pattern's areas (a jump, an Olympic lift,
// a get-up or a step-up loads the knees).
func TestPatterns(t *testing.T) {
	used := map[string]bool{}
	for _, e := range All() {
		if !slices.Contains(Patterns, e.Pattern) {
			t.Errorf("%s: pattern %q is not one of %v", e.ID, e.Pattern, Patterns)
		}
		if !slices.Contains(Levels, e.Level) {
			t.Errorf("%s: level %q is not one of %v", e.ID, e.Level, Levels)
		}
		used[e.Pattern] = true
		for _, a := range PatternAreas[e.Pattern] {
			if !slices.Contains(e.Loads, a) {
				t.Errorf("%s: a %s exercise loads the %s; its loadsAreas %v do not say so", e.ID, e.Pattern, a, e.Loads)
			}
		}
	}
	for _, p := range Patterns {
		if !used[p] {
			t.Errorf("pattern %q is used by no exercise", p)
		}
	}
	for _, c := range []struct{ id, area string }{
		{"pogo-jumps", "knee"}, {"power-snatch", "knee"}, {"turkish-get-up", "knee"}, {"step-up", "knee"},
		{"copenhagen-plank", "lower_back"}, {"box-jump", "knee"}, {"front-squat", "lower_back"}, {"barbell-row", "shoulder"},
		{"seated-cable-row", "shoulder"},
	} {
		if e, _ := Get(c.id); !slices.Contains(e.Loads, c.area) {
			t.Errorf("%s should load the %s: %v", c.id, c.area, e.Loads)
		}
	}
	for id, level := range map[string]string{"handstand-push-up": "advanced", "copenhagen-plank": "advanced", "goblet-squat": "beginner", "pull-up": "intermediate",
		"stiff-leg-deadlift": "intermediate", "dumbbell-pullover": "intermediate", "arnold-press": "intermediate", "upright-row": "intermediate"} {
		if e, _ := Get(id); e.Level != level {
			t.Errorf("%s: level %q, want %q", id, e.Level, level)
		}
	}
	for _, id := range []string{"wall-sit", "spanish-squat-hold", "isometric-calf-raise-hold"} {
		if e, ok := Get(id); !ok || e.Pattern != "isometric" {
			t.Errorf("%s: an isometric the rehabilitation rules can give (%+v)", id, e.Pattern)
		}
	}
}

// Named: a name, Hebrew name or alias whole, else the names it starts,
// else the names it sounds like in the other script; short skeletons
// sound like nothing.
func TestNamed(t *testing.T) {
	for q, want := range map[string]string{
		"back squat": "back-squat", "Back-Squat": "back-squat", "סקוואט": "back-squat", "bench": "bench-press",
		"squat": "back-squat bodyweight-squat", "לג פרס": "leg-press", "דדליפט": "deadlift", "rdl": "romanian-deadlift",
		"nope": "", "": "",
	} {
		var got []string
		for _, e := range Named(nil, q) {
			got = append(got, e.ID)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Named(%q) = %v, want %q", q, got, want)
		}
	}
}

// Near: what a query that matches nothing as written may mean, in the
// other script or by its spelling, within the filters.
func TestNear(t *testing.T) {
	for q, want := range map[string]string{"לג פרס": "leg-press", "dedlift": "deadlift", "סקוואט אחורי": "", "zzzz": ""} {
		got := Near(nil, Filter{Q: q})
		if want == "" && len(got) > 0 && q == "zzzz" {
			t.Errorf("Near(%q) = %v", q, got)
		}
		if want != "" && (len(got) == 0 || got[0].ID != want) {
			var ids []string
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			t.Errorf("Near(%q) = %v, want %s first", q, ids, want)
		}
	}
	if got := Near(nil, Filter{Q: "dedlift", Equipment: "none"}); slices.ContainsFunc(got, func(e domain.Exercise) bool { return e.ID == "deadlift" }) {
		t.Error("Near ignored the filters")
	}
}

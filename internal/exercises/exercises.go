// Package exercises is Perform's built-in exercise catalogue: plain facts
// the project writes (catalogue.json), embedded in the binary. A studio's
// own exercises live in the store and are searched beside these.
package exercises

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/translit"
)

//go:embed catalogue.json
var catalogueJSON []byte

// builtIn is the catalogue in file order, byID the same entries by id,
// keys their search keys in the same order.
var builtIn, byID = load(catalogueJSON)

var builtInKeys = func() []keys {
	out := make([]keys, len(builtIn))
	for i, e := range builtIn {
		out[i] = keysOf(e)
	}
	return out
}()

// The vocabularies an exercise's fields take, the built-in catalogue's and
// a studio's alike (the lane validates a studio's exercise against them).
var (
	Categories = []string{
		domain.CategoryStrength, domain.CategoryCardio, domain.CategoryMobility,
		domain.CategoryPlyometric, domain.CategoryCore, domain.CategoryConditioning,
	}
	Measures = []string{domain.MeasureRepsLoad, domain.MeasureReps, domain.MeasureTime, domain.MeasureDistance}
	Muscles  = []string{
		"quadriceps", "hamstrings", "glutes", "adductors", "abductors", "hip flexors", "calves", "tibialis",
		"lower back", "upper back", "lats", "traps", "rhomboids", "neck",
		"chest", "front delts", "side delts", "rear delts", "rotator cuff", "biceps", "triceps", "forearms",
		"core", "abs", "obliques",
	}
	// Equipment: "none" is an exercise that needs nothing (body weight,
	// running); a list names what it can be done with.
	Equipment = []string{
		"none", "barbell", "dumbbell", "kettlebell", "ez bar", "trap bar", "plate", "rack", "bench", "box",
		"machine", "cable", "band", "pull-up bar", "dip bars", "rings", "suspension trainer", "landmine",
		"medicine ball", "stability ball", "ab wheel", "sled", "battle ropes", "jump rope", "foam roller",
		"mat", "dowel", "treadmill", "bike", "stationary bike", "air bike", "rower", "ski erg",
		"elliptical", "stair climber", "pool",
	}
)

// Patterns are the movement patterns an exercise's Pattern takes: the
// rules read them to place an exercise in a week and to know what it
// loads. PatternAreas is each pattern's floor: the body areas every
// exercise of that pattern loads, at least (a jump loads the knees, an
// Olympic lift the wrists and the lower back).
var (
	Patterns = []string{
		"squat", "hinge", "lunge", "step_up", "push_horizontal", "push_vertical", "pull_horizontal", "pull_vertical",
		"carry", "core", "isometric", "isolation_upper", "isolation_lower", "plyometric", "throw", "olympic", "get_up",
		"run", "walk", "cycle", "swim", "row", "conditioning", "mobility",
	}
	PatternAreas = map[string][]string{
		"squat": {"knee", "hip"}, "lunge": {"knee", "hip"}, "step_up": {"knee", "hip"}, "hinge": {"hip"},
		"push_horizontal": {"shoulder", "elbow"}, "push_vertical": {"shoulder", "elbow"},
		"pull_horizontal": {"upper_back", "shoulder", "elbow"}, "pull_vertical": {"shoulder", "elbow"},
		"carry": {"hand", "lower_back"}, "core": {"abdomen"}, "plyometric": {"knee", "ankle", "foot"},
		"throw": {"shoulder"}, "olympic": {"knee", "hip", "shoulder", "wrist", "lower_back"},
		"get_up": {"knee", "hip", "shoulder", "wrist"}, "run": {"knee", "ankle", "foot"}, "walk": {"ankle", "foot"},
		"cycle": {"knee"}, "swim": {"shoulder"}, "row": {"lower_back", "knee"},
	}
	// Levels are the experience an exercise asks for, least first.
	Levels = []string{"beginner", "intermediate", "advanced"}
)

// Endurance patterns: an exercise of these is prescribed in minutes or
// kilometres, not in sets.
var EndurancePatterns = []string{"run", "walk", "cycle", "swim", "row", "conditioning"}

func load(raw []byte) ([]domain.Exercise, map[string]domain.Exercise) {
	var list []domain.Exercise
	if err := json.Unmarshal(raw, &list); err != nil {
		panic("exercises: catalogue.json: " + err.Error())
	}
	m := make(map[string]domain.Exercise, len(list))
	for _, e := range list {
		if _, dup := m[e.ID]; dup {
			panic(fmt.Sprintf("exercises: catalogue.json: %s twice", e.ID))
		}
		m[e.ID] = e
	}
	return list, m
}

// All is the built-in catalogue. The slice is shared: do not modify it.
func All() []domain.Exercise { return builtIn }

// Get is the built-in exercise with id.
func Get(id string) (domain.Exercise, bool) {
	e, ok := byID[id]
	return e, ok
}

// Alternatives are the exercises the catalogue names as swaps for id.
func Alternatives(id string) []domain.Exercise {
	e, ok := byID[id]
	if !ok {
		return nil
	}
	return Resolve(e.Alternatives, nil)
}

// Resolve turns exercise ids into exercises: built-ins by slug, the rest
// from studio (a studio's own exercises, by id). Unknown ids are skipped.
func Resolve(ids []string, studio map[string]domain.Exercise) []domain.Exercise {
	out := make([]domain.Exercise, 0, len(ids))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		} else if e, ok := studio[id]; ok {
			out = append(out, e)
		}
	}
	return out
}

// Loads reports whether e loads the body area.
func Loads(e domain.Exercise, area string) bool { return slices.Contains(e.Loads, area) }

// Matches reports whether q is a substring of e's name, Hebrew name or an
// alias, ignoring case, spacing and hyphens (Normalize).
func Matches(e domain.Exercise, q string) bool {
	q = Normalize(q)
	return q == "" || keysOf(e).rank(q) < noMatch
}

// Normalize is the form both sides of a search are compared in:
// lower-cased, hyphens (Latin and the Hebrew maqaf) as spaces, the Hebrew
// geresh and gershayim as the ASCII quotes people type, runs of white
// space as one space, trimmed. Niqqud and final letters are left as
// they are.
func Normalize(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '-', '‐', '‑', '–', '־', '_':
			return ' '
		case '׳', '’', '`':
			return '\''
		case '״', '“', '”':
			return '"'
		}
		return r
	}, strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// Filter narrows Search. Empty fields do not filter.
type Filter struct {
	Q         string // part of the name, Hebrew name or an alias
	Category  string
	Equipment string // one of Equipment
	Muscle    string // a primary or secondary muscle
	Area      string // a body area the exercise loads (domain.BodyAreas)
}

// Match ranks: a lower rank sorts first.
const (
	rankExact = iota // q is the whole name, Hebrew name or an alias
	rankPrefix
	rankSubstring
	noMatch
)

// keys are an exercise's searchable texts, normalised.
type keys []string

func keysOf(e domain.Exercise) keys {
	k := make(keys, 0, 2+len(e.Aliases))
	k = append(k, Normalize(e.Name), Normalize(e.NameHe))
	for _, a := range e.Aliases {
		k = append(k, Normalize(a))
	}
	return k
}

// rank is how well the normalised, non-empty q matches.
func (k keys) rank(q string) int {
	best := noMatch
	for _, s := range k {
		switch {
		case s == q:
			return rankExact
		case strings.HasPrefix(s, q):
			best = min(best, rankPrefix)
		case best > rankSubstring && strings.Contains(s, q):
			best = rankSubstring
		}
	}
	return best
}

func (f Filter) admits(e domain.Exercise) bool {
	return (f.Category == "" || e.Category == f.Category) &&
		(f.Equipment == "" || slices.Contains(e.Equipment, f.Equipment)) &&
		(f.Muscle == "" || slices.Contains(e.Primary, f.Muscle) || slices.Contains(e.Secondary, f.Muscle)) &&
		(f.Area == "" || slices.Contains(e.Loads, f.Area))
}

// Search is the built-in catalogue and the studio's own exercises (studio,
// searched beside them) that pass f. With a query they come best match
// first: an exact name, then a name that starts with it, then one that
// contains it, ties by name; without one, the built-ins in catalogue order
// (grouped by movement) and then the studio's in the order given.
func Search(studio []domain.Exercise, f Filter) []domain.Exercise {
	q := Normalize(f.Q)
	type hit struct {
		e    domain.Exercise
		rank int
		name string
	}
	var hits []hit
	consider := func(e domain.Exercise, k keys) {
		if !f.admits(e) {
			return
		}
		r := rankSubstring
		if q != "" {
			if r = k.rank(q); r == noMatch {
				return
			}
		}
		hits = append(hits, hit{e, r, k[0]})
	}
	for i, e := range builtIn {
		consider(e, builtInKeys[i])
	}
	for _, e := range studio {
		consider(e, keysOf(e))
	}
	if q != "" {
		slices.SortStableFunc(hits, func(a, b hit) int {
			if a.rank != b.rank {
				return a.rank - b.rank
			}
			return strings.Compare(a.name, b.name)
		})
	}
	out := make([]domain.Exercise, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out
}

// Named is the exercises a name a person gave may mean, built-in and the
// studio's: those whose name, Hebrew name or an alias it is (Normalize
// aside); else, when the best search matches start with it and one is
// best, that one; else those whose names it sounds like in the other
// script ("סקוואט" for Squat; translit). More than one is ambiguous.
func Named(studio []domain.Exercise, name string) []domain.Exercise {
	q := Normalize(name)
	if q == "" {
		return nil
	}
	var exact, prefix []domain.Exercise
	consider := func(e domain.Exercise, k keys) {
		switch k.rank(q) {
		case rankExact:
			exact = append(exact, e)
		case rankPrefix:
			prefix = append(prefix, e)
		}
	}
	for i, e := range builtIn {
		consider(e, builtInKeys[i])
	}
	for _, e := range studio {
		consider(e, keysOf(e))
	}
	if len(exact) > 0 {
		return exact
	}
	if len(prefix) > 0 {
		return prefix
	}
	var sounds []domain.Exercise
	// A short skeleton ("np" for nope) sounds like too much: a name is
	// matched across scripts when its words hold 3 consonants or more.
	consonants := 0
	for _, w := range translit.Words(name) {
		longest := 0
		for _, k := range translit.Keys(w) {
			longest = max(longest, len(k))
		}
		consonants += longest
	}
	if consonants < 3 {
		return nil
	}
	for _, e := range append(slices.Clip(builtIn), studio...) {
		if slices.ContainsFunc(keysOf(e), func(k string) bool {
			return translit.Matches(name, k) && len(translit.Words(name)) == len(translit.Words(k))
		}) {
			sounds = append(sounds, e)
		}
	}
	return sounds
}

// Near is, when q matches no exercise as written, the ones it may mean: up
// to 5 whose name, Hebrew name or an alias q sounds like in the other
// script ("לג פרס" for Leg press; words of 3 consonants or more), else
// the nearest spellings by trigram similarity (0.3 or more, closest
// first: "dedlift" for Deadlift). They pass f's other filters.
func Near(studio []domain.Exercise, f Filter) []domain.Exercise {
	q := Normalize(f.Q)
	if q == "" || len(q) > 200 {
		return nil
	}
	all := append(slices.Clip(builtIn), studio...)
	var out []domain.Exercise
	if named := Named(studio, f.Q); len(named) > 0 {
		for _, e := range named {
			if f.admits(e) && len(out) < 5 {
				out = append(out, e)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	type near struct {
		e     domain.Exercise
		score float64
	}
	var found []near
	grams := nearGrams(q)
	for _, e := range all {
		if !f.admits(e) {
			continue
		}
		best := 0.0
		for _, k := range keysOf(e) {
			best = max(best, nearScore(grams, nearGrams(k)))
		}
		if best >= 0.3 {
			found = append(found, near{e, best})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	for _, n := range found[:min(len(found), 5)] {
		out = append(out, n.e)
	}
	return out
}

// nearGrams are the padded three-letter runs of each word of s (pg_trgm's).
func nearGrams(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		rs := []rune("  " + w + " ")
		for i := 0; i+3 <= len(rs); i++ {
			out = append(out, string(rs[i:i+3]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// nearScore is shared trigrams over all distinct ones (sorted inputs).
func nearScore(a, b []string) float64 {
	shared := 0
	for _, g := range a {
		if _, ok := slices.BinarySearch(b, g); ok {
			shared++
		}
	}
	if all := len(a) + len(b) - shared; all > 0 {
		return float64(shared) / float64(all)
	}
	return 0
}

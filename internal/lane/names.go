package lane

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/translit"
)

// Names where ids are asked. Wherever the lane takes the id of a record a
// person knows by name (a trainee, coach, plan, program template, form or
// tag: a path's {id} and every ref field), it takes the name too, in
// Hebrew or English, or a slug ("quarterly-plan"): the value is resolved
// here, once, before the handler runs, and the answer says what it
// matched (the envelope's matched). A name that fits several records is
// refused with the candidates; one that fits none, with the nearest. A
// trainee's own connection resolves no names of people: a trainee is
// never told another trainee's (or a coach's) name.

// A Named is a record a name may mean.
type Named struct {
	ID   string
	Name string
}

// MaxCandidates is how many records an ambiguous or unknown name lists.
const MaxCandidates = 5

// AllRows reads a catalogue whole: a studio's plans, templates, forms,
// tags and coaches are tens, not thousands.
var AllRows = store.Page{Limit: 1000}

// ListNamed is the Named of a kind the studio has few of: every record
// (list reads them, AllRows), ranked by how the name fits it.
func ListNamed[T any](list func(c *Call) (store.List[T], error), named func(T) Named) func(c *Call, name string) ([]Named, bool, error) {
	return func(c *Call, name string) ([]Named, bool, error) {
		l, err := list(c)
		if err != nil {
			return nil, false, err
		}
		rows := make([]Named, len(l.Items))
		for i, x := range l.Items {
			rows[i] = named(x)
		}
		if fit := Fit(name, rows); len(fit) > 0 {
			return fit, true, nil
		}
		return Nearest(name, rows), false, nil
	}
}

// Fit is the records name fits best: the first non-empty of those whose
// whole name it is; whose every word it names whole; whose words it
// starts; whose name holds it; whose words it sounds like, in either
// script (translit). Case, hyphens and spacing aside ("quarterly-plan" is
// "Quarterly plan").
func Fit(name string, rows []Named) []Named {
	q := store.SearchWords(name)
	if len(q) == 0 {
		return nil
	}
	joined := strings.Join(q, " ")
	tiers := []func(words []string) bool{
		func(w []string) bool { return strings.Join(w, " ") == joined },
		func(w []string) bool { return every(q, func(x string) bool { return slices.Contains(w, x) }) },
		func(w []string) bool {
			return every(q, func(x string) bool {
				return slices.ContainsFunc(w, func(y string) bool { return strings.HasPrefix(y, x) })
			})
		},
		func(w []string) bool { return strings.Contains(strings.Join(w, " "), joined) },
	}
	for _, tier := range tiers {
		var out []Named
		for _, r := range rows {
			if tier(store.SearchWords(r.Name)) {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	var out []Named
	for _, r := range rows {
		if translit.Matches(name, r.Name) {
			out = append(out, r)
		}
	}
	return out
}

func every(xs []string, f func(string) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// Nearest is up to MaxCandidates records whose names are like name by
// trigram similarity (store.NearThreshold), the most like first.
func Nearest(name string, rows []Named) []Named {
	q := store.Trigrams(name)
	type scored struct {
		n     Named
		score float64
	}
	var found []scored
	for _, r := range rows {
		if s := store.Similarity(q, store.Trigrams(r.Name)); s >= store.NearThreshold {
			found = append(found, scored{r, s})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	out := make([]Named, 0, min(len(found), MaxCandidates))
	for _, f := range found[:min(len(found), MaxCandidates)] {
		out = append(out, f.n)
	}
	return out
}

// Resolve turns the value of a field (or the path's id: field "id") that
// takes an id of kind into that id: an id as it is (checked by the caller,
// as before), a name to the one record it fits. The answer's matched says
// what the name was taken for.
func (c *Call) Resolve(kind ids.Kind, field, value string) (string, error) {
	if ids.Valid(value, kind) {
		return value, nil
	}
	held := c.l.held.nouns[kind]
	if _, looksLikeID := ids.KindOf(value); looksLikeID || held.Named == nil || strings.TrimSpace(value) == "" || text.Problem(value) != "" ||
		c.P != nil && c.P.IsTrainee() && held.Person {
		return "", NotFound(kind, value)
	}
	rows, fits, err := held.Named(c, strings.TrimSpace(value))
	if err != nil {
		return "", err
	}
	shown := fmt.Sprintf("%q", text.Truncate(text.Printable(value), 80))
	noun := kind.Noun()
	if !fits {
		msg := fmt.Sprintf("No %s in this studio has the id or name %s.", noun, shown)
		if len(rows) > 0 {
			msg += " The nearest: " + listed(rows) + "."
		}
		msg += fmt.Sprintf(" Give one of those, or an id from %s.", kind.Source())
		return "", &Error{Status: 404, Code: CodeNotFound, Message: msg}
	}
	if len(rows) > 1 {
		more := ""
		if len(rows) > MaxCandidates {
			more = fmt.Sprintf(" and %d more", len(rows)-MaxCandidates)
		}
		return "", InvalidField(field, fmt.Sprintf("%s: %s fits %d %ss: %s%s. Give the id of the one meant, or more of the name.",
			field, shown, len(rows), noun, listed(rows[:min(len(rows), MaxCandidates)]), more))
	}
	c.matched(fmt.Sprintf("%s %s: %s %s (%s)", field, shown, noun, rows[0].Name, rows[0].ID))
	return rows[0].ID, nil
}

// listed names records as "Name (id)".
func listed(rows []Named) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprintf("%s (%s)", r.Name, r.ID)
	}
	return strings.Join(parts, ", ")
}

// matched records one resolution for the answer's matched.
func (c *Call) matched(s string) {
	ri := infoFrom(c.Ctx)
	ri.matched = append(ri.matched, s)
}

// Matched notes, for the answer, what a name given for an id was taken
// for: for the resolutions an area does itself (an exercise's name; a
// tag's, which is its own id: id "").
func (c *Call) Matched(field, given, noun, name, id string) {
	if id == "" {
		c.matched(fmt.Sprintf("%s %q: %s %s", field, text.Truncate(given, 80), noun, name))
		return
	}
	c.matched(fmt.Sprintf("%s %q: %s %s (%s)", field, text.Truncate(given, 80), noun, name, id))
}

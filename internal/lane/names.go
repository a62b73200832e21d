package lane

import (
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/domain"
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

// maxCandidates is how many records an ambiguous or unknown name lists.
const maxCandidates = 5

// namers list the records of each kind a name may mean: the ones the name
// fits, or (none fitting) every record, for the nearest.
var namers = map[ids.Kind]func(c *Call, name string) ([]Named, bool, error){
	ids.Trainee: traineesNamed,
	ids.Coach: listNamed(func(c *Call) ([]Named, error) {
		l, err := c.Studio().ListCoaches(c.Ctx, allRows)
		return collect(l, err, func(x domain.Coach) Named { return Named{x.ID, x.Name} })
	}),
	ids.Product: listNamed(func(c *Call) ([]Named, error) {
		l, err := c.Studio().ListProducts(c.Ctx, "", allRows)
		return collect(l, err, func(x domain.Product) Named { return Named{x.ID, x.Name} })
	}),
	ids.ProgramTemplate: listNamed(func(c *Call) ([]Named, error) {
		l, err := c.Studio().ListProgramTemplates(c.Ctx, "", allRows)
		return collect(l, err, func(x domain.ProgramTemplate) Named { return Named{x.ID, x.Name} })
	}),
	ids.FormTemplate: listNamed(func(c *Call) ([]Named, error) {
		l, err := c.Studio().ListFormTemplates(c.Ctx, "", allRows)
		return collect(l, err, func(x domain.FormTemplate) Named { return Named{x.ID, x.Name} })
	}),
	ids.Tag: listNamed(func(c *Call) ([]Named, error) {
		l, err := c.Studio().ListTags(c.Ctx, allRows)
		return collect(l, err, func(x domain.Tag) Named { return Named{x.ID, x.Name} })
	}),
}

// personKinds are the kinds whose names are people's.
var personKinds = []ids.Kind{ids.Trainee, ids.Coach}

// allRows reads a catalogue whole: a studio's plans, templates, forms,
// tags and coaches are tens, not thousands.
var allRows = store.Page{Limit: 1000}

// collect makes the Named rows of a list.
func collect[T any](l store.List[T], err error, named func(T) Named) ([]Named, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Named, len(l.Items))
	for i, x := range l.Items {
		out[i] = named(x)
	}
	return out, nil
}

// listNamed is the namer of a kind the studio has few of: every record,
// ranked by how the name fits it.
func listNamed(all func(c *Call) ([]Named, error)) func(c *Call, name string) ([]Named, bool, error) {
	return func(c *Call, name string) ([]Named, bool, error) {
		rows, err := all(c)
		if err != nil {
			return nil, false, err
		}
		if fit := Fit(name, rows); len(fit) > 0 {
			return fit, true, nil
		}
		return Nearest(name, rows), false, nil
	}
}

// traineesNamed: the trainees whose names hold every word of the name,
// the best fitting first; else those it sounds like in either script;
// else the nearest by spelling.
func traineesNamed(c *Call, name string) ([]Named, bool, error) {
	ss := c.Studio()
	f := store.TraineeFilter{Q: name, Page: store.Page{Limit: 50}}
	for _, sounds := range []bool{false, true} {
		f.Sounds = sounds
		l, err := ss.SearchTrainees(c.Ctx, f)
		if err != nil {
			return nil, false, err
		}
		rows := make([]Named, len(l.Items))
		for i, t := range l.Items {
			rows[i] = Named{ID: t.ID, Name: strings.TrimSpace(t.FirstName + " " + t.LastName)}
		}
		if fit := Fit(name, rows); len(fit) > 0 {
			return fit, true, nil
		}
	}
	near, err := ss.NearTrainees(c.Ctx, f, maxCandidates)
	if err != nil {
		return nil, false, err
	}
	rows := make([]Named, len(near))
	for i, t := range near {
		rows[i] = Named{ID: t.ID, Name: strings.TrimSpace(t.FirstName + " " + t.LastName)}
	}
	return rows, false, nil
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

// Nearest is up to maxCandidates records whose names are like name by
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
	out := make([]Named, 0, min(len(found), maxCandidates))
	for _, f := range found[:min(len(found), maxCandidates)] {
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
	namer := namers[kind]
	if _, looksLikeID := ids.KindOf(value); looksLikeID || namer == nil || strings.TrimSpace(value) == "" || text.Problem(value) != "" ||
		c.P != nil && c.P.IsTrainee() && slices.Contains(personKinds, kind) {
		return "", NotFound(kind, value)
	}
	rows, fits, err := namer(c, strings.TrimSpace(value))
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
		if len(rows) > maxCandidates {
			more = fmt.Sprintf(" and %d more", len(rows)-maxCandidates)
		}
		return "", InvalidField(field, fmt.Sprintf("%s: %s fits %d %ss: %s%s. Give the id of the one meant, or more of the name.",
			field, shown, len(rows), noun, listed(rows[:min(len(rows), maxCandidates)]), more))
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
// for: for the resolutions an area does itself (an exercise's name).
func (c *Call) Matched(field, given, noun, name, id string) {
	c.matched(fmt.Sprintf("%s %q: %s %s (%s)", field, text.Truncate(given, 80), noun, name, id))
}

package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
)

// The exercise catalogue: Perform's built-ins (internal/exercises, ids are
// slugs such as "back-squat") and the studio's own (exr_…), searched and
// read together. Their ids are what sessions, program days and swaps name.

type exercisesQuery struct {
	Q         string `json:"q,omitempty" jsonschema:"Part of the exercise's name in English or Hebrew, or of one of its aliases; case, spacing and hyphens do not matter. Best matches first: the whole name, then names that start with it, then names that contain it." lane:"maxLength=200"`
	Category  string `json:"category,omitempty" jsonschema:"Only exercises of this category." lane:"enum=strength|cardio|mobility|plyometric|core|conditioning"`
	Equipment string `json:"equipment,omitempty" jsonschema:"Only exercises done with this equipment, e.g. barbell, dumbbell, kettlebell, machine, cable, band, none (no equipment); an unknown word answers the whole list." lane:"maxLength=50"`
	Muscle    string `json:"muscle,omitempty" jsonschema:"Only exercises that work this muscle (primary or secondary), e.g. quadriceps, glutes, hamstrings, chest, lats, front delts, triceps, core; an unknown word answers the whole list." lane:"maxLength=50"`
	Area      string `json:"area,omitempty" jsonschema:"Only exercises that load this body area, e.g. knee, shoulder, lower_back (the injury areas); an unknown one answers the whole list." lane:"maxLength=50"`
	View      string `json:"view,omitempty" jsonschema:"compact (the default): id, name, nameHe, category, equipment, measure; full: each row also carries aliases, muscles, unilateral, loadsAreas and alternatives." lane:"enum=compact|full"`
	lane.PageQuery
}

// exerciseRow is one row of a search: compact by default, the whole
// record with view=full.
type exerciseRow struct {
	ID        string   `json:"id" jsonschema:"The exercise's id: a slug for Perform's catalogue (back-squat), exr_… for the studio's own."`
	Name      string   `json:"name"`
	NameHe    string   `json:"nameHe"`
	Category  string   `json:"category"`
	Equipment []string `json:"equipment"`
	Measure   string   `json:"measure" jsonschema:"How it is logged: reps_load (reps and kg), reps, time (seconds) or distance (metres)."`

	Aliases      []string   `json:"aliases,omitempty" jsonschema:"Only with view=full."`
	Primary      []string   `json:"primaryMuscles,omitempty" jsonschema:"Only with view=full."`
	Secondary    []string   `json:"secondaryMuscles,omitempty" jsonschema:"Only with view=full."`
	Unilateral   *bool      `json:"unilateral,omitempty" jsonschema:"Only with view=full."`
	Loads        []string   `json:"loadsAreas,omitempty" jsonschema:"The body areas it loads; only with view=full."`
	Alternatives []string   `json:"alternatives,omitempty" jsonschema:"Ids of exercises of the same movement with other equipment; only with view=full."`
	Custom       *bool      `json:"custom,omitempty" jsonschema:"true for the studio's own exercise; only with view=full."`
	CreatedAt    *time.Time `json:"createdAt,omitempty"`
}

func compactRow(e domain.Exercise) exerciseRow {
	return exerciseRow{ID: e.ID, Name: e.Name, NameHe: e.NameHe, Category: e.Category, Equipment: e.Equipment, Measure: e.Measure}
}

func fullRow(e domain.Exercise) exerciseRow {
	r := compactRow(e)
	r.Aliases, r.Primary, r.Secondary, r.Loads, r.Alternatives = e.Aliases, e.Primary, e.Secondary, e.Loads, e.Alternatives
	r.Unilateral, r.Custom, r.CreatedAt = &e.Unilateral, &e.Custom, e.CreatedAt
	return r
}

// exerciseDetail is one exercise with its alternatives resolved.
type exerciseDetail struct {
	domain.Exercise
	AlternativeExercises []exerciseRow `json:"alternativeExercises" jsonschema:"The swaps for it (same movement, other equipment), as compact rows: its own alternatives and the studio's exercises that name it as theirs."`
}

type createExerciseInput struct {
	Name             string   `json:"name" jsonschema:"The exercise's name in English (or the studio's language); unique in the studio and not a name of Perform's catalogue." lane:"minLength=1,maxLength=100"`
	NameHe           *string  `json:"nameHe,omitempty" jsonschema:"The exercise's name in Hebrew." lane:"minLength=1,maxLength=100"`
	Aliases          []string `json:"aliases,omitempty" jsonschema:"Other names it goes by, in any language; search finds them." lane:"minLength=1,maxLength=100,maxItems=20"`
	Category         string   `json:"category" jsonschema:"What kind of exercise it is." lane:"enum=strength|cardio|mobility|plyometric|core|conditioning"`
	PrimaryMuscles   []string `json:"primaryMuscles" jsonschema:"The muscles it mainly works (GET /exercises?view=full shows the catalogue's words: quadriceps, glutes, chest, lats…)." lane:"maxLength=50,maxItems=10"`
	SecondaryMuscles []string `json:"secondaryMuscles,omitempty" jsonschema:"The muscles it also works." lane:"maxLength=50,maxItems=10"`
	Equipment        []string `json:"equipment" jsonschema:"What it is done with: barbell, dumbbell, machine, cable, band… or none." lane:"maxLength=50,maxItems=10"`
	Unilateral       bool     `json:"unilateral,omitempty" jsonschema:"true when it works one side at a time."`
	Measure          string   `json:"measure" jsonschema:"How it is logged: reps_load (reps and kg), reps, time (seconds) or distance (metres)." lane:"enum=reps_load|reps|time|distance"`
	LoadsAreas       []string `json:"loadsAreas" jsonschema:"The body areas it loads, from the injury areas (knee, shoulder, lower_back…); injury guidance reads them." lane:"maxLength=50,maxItems=19"`
	Alternatives     []string `json:"alternatives,omitempty" jsonschema:"Ids of exercises of the same movement with other equipment: slugs of Perform's catalogue or the studio's own exr_… ids." lane:"maxLength=100,maxItems=10"`
}

func (a *Area) exerciseRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/exercises", "Search the exercise catalogue: Perform's built-in exercises and the studio's own, in English and Hebrew, with filters and paging. Rows are compact (id, name, nameHe, category, equipment, measure); view=full adds the rest.", a.searchExercises, lane.Tool("search_exercises"))
	lane.Add(rs, "GET", "/exercises/{id}", "One exercise (a catalogue slug or the studio's exr_… id) with its alternatives resolved.", a.getExercise)
	lane.Add(rs, "POST", "/exercises", "Add an exercise of the studio's own.", a.createExercise, lane.Admin(), lane.Created())
}

// vocabularyError is the sentence for a word a vocabulary does not hold.
func vocabularyError(field, value, what string, words []string) lane.FieldError {
	return lane.FieldError{Field: field, Message: fmt.Sprintf("%s %q is not %s the catalogue knows; use one of: %s.", field, value, what, strings.Join(words, ", "))}
}

// exerciseSearch is the search answer: items match q as written; only when
// none does are the exercises it may mean listed apart, in nearMatches.
type exerciseSearch struct {
	lane.ListOf[exerciseRow]
	NearMatches []exerciseRow `json:"nearMatches,omitempty" jsonschema:"Only when q matched nothing as written: up to 5 exercises it may mean, in the other script (לג פרס: Leg press) or spelled otherwise, closest first."`
}

func (a *Area) searchExercises(c *lane.Call, q *exercisesQuery) (exerciseSearch, error) {
	f := exercises.Filter{Q: q.Q, Category: q.Category, Equipment: strings.TrimSpace(q.Equipment), Muscle: strings.TrimSpace(q.Muscle), Area: strings.TrimSpace(q.Area)}
	var errs []lane.FieldError
	if f.Equipment != "" && !slices.Contains(exercises.Equipment, f.Equipment) {
		errs = append(errs, vocabularyError("equipment", f.Equipment, "equipment", exercises.Equipment))
	}
	if f.Muscle != "" && !slices.Contains(exercises.Muscles, f.Muscle) {
		errs = append(errs, vocabularyError("muscle", f.Muscle, "a muscle", exercises.Muscles))
	}
	if f.Area != "" && !slices.Contains(domain.BodyAreas, f.Area) {
		errs = append(errs, vocabularyError("area", f.Area, "a body area", domain.BodyAreas))
	}
	if len(errs) > 0 {
		return exerciseSearch{}, lane.ValidationError(errs)
	}
	own, err := c.Studio().ListExercises(c.Ctx)
	if err != nil {
		return exerciseSearch{}, err
	}
	page := lane.PageSlice(exercises.Search(own, f), q.Page())
	out := lane.ListOf[exerciseRow]{Items: make([]exerciseRow, len(page.Items)), Total: page.Total, NextOffset: page.NextOffset}
	for i, e := range page.Items {
		if q.View == "full" {
			out.Items[i] = fullRow(e)
		} else {
			out.Items[i] = compactRow(e)
		}
	}
	answer := exerciseSearch{ListOf: out}
	if out.Total == 0 && strings.TrimSpace(q.Q) != "" {
		for _, e := range exercises.Near(own, f) {
			answer.NearMatches = append(answer.NearMatches, compactRow(e))
		}
	}
	return answer, nil
}

// findExercise is a built-in by slug or the studio's own by exr_… id, else
// the not-found sentence (which names search_exercises). The route has no
// id kind of its own (an exercise id is either), so it checks here.
func findExercise(c *lane.Call, ss store.StudioStore, id string) (domain.Exercise, error) {
	if e, ok := exercises.Get(id); ok {
		return e, nil
	}
	if !ids.Is(id, ids.Exercise) {
		return domain.Exercise{}, lane.NotFound(ids.Exercise, id)
	}
	return lane.Lookup(c.Ctx, ids.Exercise, id, ss.GetExercise)
}

func (a *Area) getExercise(c *lane.Call, _ *lane.NoInput) (exerciseDetail, error) {
	ss := c.Studio()
	e, err := findExercise(c, ss, c.ID())
	if err != nil {
		return exerciseDetail{}, err
	}
	own, err := ss.ListExercises(c.Ctx)
	if err != nil {
		return exerciseDetail{}, err
	}
	return exerciseDetail{Exercise: e, AlternativeExercises: alternativesOf(e, own)}, nil
}

// alternativesOf resolves e's alternatives, and adds the studio's
// exercises that name e as theirs, so a swap sees both directions.
func alternativesOf(e domain.Exercise, own []domain.Exercise) []exerciseRow {
	byID := make(map[string]domain.Exercise, len(own))
	for _, x := range own {
		byID[x.ID] = x
	}
	want := slices.Clone(e.Alternatives)
	for _, x := range own {
		if x.ID != e.ID && slices.Contains(x.Alternatives, e.ID) && !slices.Contains(want, x.ID) {
			want = append(want, x.ID)
		}
	}
	out := []exerciseRow{}
	for _, a := range exercises.Resolve(want, byID) {
		out = append(out, compactRow(a))
	}
	return out
}

func (a *Area) createExercise(c *lane.Call, in *createExerciseInput) (domain.Exercise, error) {
	e := domain.Exercise{
		ID:           ids.New(ids.Exercise),
		Name:         strings.Join(strings.Fields(in.Name), " "),
		Aliases:      lane.CleanStrings(in.Aliases),
		Category:     in.Category,
		Primary:      lane.CleanStrings(in.PrimaryMuscles),
		Secondary:    lane.CleanStrings(in.SecondaryMuscles),
		Equipment:    lane.CleanStrings(in.Equipment),
		Unilateral:   in.Unilateral,
		Measure:      in.Measure,
		Loads:        lane.CleanStrings(in.LoadsAreas),
		Alternatives: lane.CleanStrings(in.Alternatives),
		Custom:       true,
	}
	now := c.Now().UTC()
	e.CreatedAt = &now
	var errs []lane.FieldError
	if e.Name == "" {
		errs = append(errs, lane.FieldError{Field: "name", Message: "name must not be blank; give the exercise's name."})
	}
	if in.NameHe != nil {
		e.NameHe = strings.Join(strings.Fields(*in.NameHe), " ")
		if !strings.ContainsFunc(e.NameHe, func(r rune) bool { return unicode.Is(unicode.Hebrew, r) }) {
			errs = append(errs, lane.FieldError{Field: "nameHe", Message: fmt.Sprintf("nameHe %q has no Hebrew letters; give the name in Hebrew, or omit nameHe.", e.NameHe)})
		}
	}
	words := func(field string, list []string, what string, vocab []string, required bool) {
		if required && len(list) == 0 {
			errs = append(errs, lane.FieldError{Field: field, Message: fmt.Sprintf("%s must list at least one; use one of: %s.", field, strings.Join(vocab, ", "))})
		}
		for i, w := range list {
			if !slices.Contains(vocab, w) {
				errs = append(errs, vocabularyError(fmt.Sprintf("%s[%d]", field, i), w, what, vocab))
			}
		}
	}
	words("primaryMuscles", e.Primary, "a muscle", exercises.Muscles, true)
	words("secondaryMuscles", e.Secondary, "a muscle", exercises.Muscles, false)
	words("equipment", e.Equipment, "equipment", exercises.Equipment, true)
	words("loadsAreas", e.Loads, "a body area", domain.BodyAreas, true)
	if len(errs) > 0 {
		return e, lane.ValidationError(errs)
	}
	for _, b := range exercises.All() {
		if exercises.Normalize(b.Name) == exercises.Normalize(e.Name) {
			return e, lane.Conflict(fmt.Sprintf("Perform's catalogue already has %q (id %s); use it, or give this exercise another name.", b.Name, b.ID))
		}
	}
	err := c.InTx(func(ss store.StudioStore) error {
		own, err := ss.ListExercises(c.Ctx)
		if err != nil {
			return err
		}
		for _, a := range e.Alternatives {
			if _, ok := exercises.Get(a); ok {
				continue
			}
			if !slices.ContainsFunc(own, func(x domain.Exercise) bool { return x.ID == a }) {
				return lane.NotFound(ids.Exercise, a)
			}
		}
		return ss.CreateExercise(c.Ctx, &e)
	})
	if err != nil {
		return e, err
	}
	c.SetResource(e.ID)
	return e, nil
}

// Exercise resolves an exercise: a built-in id (back-squat), one of the
// studio's own (exr_…), or a name or alias of either in Hebrew or English
// ("back squat", "סקוואט"), which must fit one exercise; the answer's
// matched says which. The FieldError names field.
func Exercise(c *lane.Call, ss store.StudioStore, field, id string) (domain.Exercise, *lane.FieldError) {
	id = strings.TrimSpace(id)
	if e, ok := exercises.Get(id); ok {
		return e, nil
	}
	if ids.Is(id, ids.Exercise) {
		e, err := ss.GetExercise(c.Ctx, id)
		if err == nil {
			return e, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return domain.Exercise{}, &lane.FieldError{Field: field, Message: fmt.Sprintf("%s %s could not be read; try again.", field, id)}
		}
		return domain.Exercise{}, &lane.FieldError{Field: field, Message: fmt.Sprintf("%s %s is not an exercise of this studio; use a built-in exercise id (such as back-squat) or one of the studio's own exercises.", field, text.Truncate(id, 100))}
	}
	if _, looksLikeID := ids.KindOf(id); !looksLikeID && id != "" {
		if e, fe, ok := exerciseNamed(c, ss, field, id); ok {
			return e, fe
		}
	}
	return domain.Exercise{}, &lane.FieldError{Field: field, Message: fmt.Sprintf("%s %q is not an exercise's id or name: give a built-in id (such as back-squat, bench-press, running), a studio exercise id (exr_…) or a name search_exercises finds.", field, text.Truncate(id, 100))}
}

// exerciseNamed resolves an exercise's name: the exercises whose name,
// Hebrew name or alias it is whole, else the best matches search ranks
// (exercises.Search), else those it sounds like in the other script. ok is
// false when nothing fits.
func exerciseNamed(c *lane.Call, ss store.StudioStore, field, name string) (domain.Exercise, *lane.FieldError, bool) {
	own, err := ss.ListExercises(c.Ctx)
	if err != nil {
		return domain.Exercise{}, &lane.FieldError{Field: field, Message: fmt.Sprintf("%s %q could not be looked up; try again.", field, text.Truncate(name, 100))}, true
	}
	found := exercises.Named(own, name)
	switch len(found) {
	case 0:
		return domain.Exercise{}, nil, false
	case 1:
		c.Matched(field, name, "exercise", found[0].Name, found[0].ID)
		return found[0], nil, true
	}
	shown := make([]string, 0, 5)
	for _, e := range found[:min(len(found), 5)] {
		shown = append(shown, fmt.Sprintf("%s (%s)", e.Name, e.ID))
	}
	return domain.Exercise{}, &lane.FieldError{Field: field, Message: fmt.Sprintf("%s %q fits %d exercises: %s. Give the id of the one meant.", field, text.Truncate(name, 100), len(found), strings.Join(shown, ", "))}, true
}

package catalog

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/exercises"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/methodologies"
	"github.com/otherwise/perform/internal/store"
)

// The coaching resources: Perform's methodology library
// (internal/methodologies), its exercise catalogue searched beside it, and
// the studio's coaching persona. None holds a person's data, so a
// trainee's connection reads them too (shared routes).

func (a *Area) resourceRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/training-resources", "Search the coaching resource library, summary first: Perform's training methodologies (principles, phases, typical sessions with view=full) and its exercise catalogue.", a.trainingResources,
		lane.Shared(), lane.Trainee(auth.ScopeCoachRead), lane.TraineeTool("search_training_resources"),
		lane.Allow("items", "total", "nextOffset"))
	lane.Add(rs, "GET", "/methodologies", "Perform's training methodologies across seven sports (strength, running, cycling, swimming, triathlon, conditioning, mobility): principles, phase structure and typical sessions, as concise facts.", func(c *lane.Call, q *methodologiesQuery) (lane.ListOf[methodologies.Methodology], error) {
		list := methodologies.OfSport(q.Sport)
		return lane.PageSlice(list, store.Page{Limit: max(len(list), 1)}), nil
	}, lane.Shared(), lane.Trainee(auth.ScopeCoachRead), lane.Allow("items", "total", "nextOffset"))
	lane.Add(rs, "GET", "/studio/persona", "The studio's coaching voice for AI clients: tone, what to avoid, the answer format and examples. Perform's default until the studio sets its own.", a.getPersona,
		lane.Shared(), lane.Trainee(auth.ScopeCoachRead), lane.Allow("name", "tone", "avoid", "answerFormat", "examples", "custom"))
	lane.Add(rs, "PUT", "/studio/persona", "Set the studio's own coaching voice (the whole of it); AI clients read it as perform://coach/persona.", a.putPersona, lane.Admin())
	lane.Add(rs, "DELETE", "/studio/persona", "Drop the studio's own coaching voice; Perform's default applies again.", func(c *lane.Call, _ *lane.NoInput) (personaAnswer, error) {
		if err := c.Studio().DeletePersona(c.Ctx); err != nil {
			return personaAnswer{}, err
		}
		return personaAnswer{Persona: DefaultPersona()}, nil
	}, lane.Admin())
}

// Training resources.

type trainingResourcesQuery struct {
	Q      string `json:"q,omitempty" jsonschema:"Words to look for (all must match): a methodology's name, sport or content (threshold, deload, marathon), or an exercise's name in English or Hebrew. Empty lists everything." lane:"maxLength=200"`
	Kind   string `json:"kind,omitempty" jsonschema:"Only methodologies or only exercises; both when omitted (methodologies first)." lane:"enum=methodology|exercise"`
	Sport  string `json:"sport,omitempty" jsonschema:"Only methodologies of this sport (exercises are left out)." lane:"enum=strength|running|cycling|swimming|triathlon|conditioning|mobility"`
	View   string `json:"view,omitempty" jsonschema:"summary (the default): a line per resource; full: methodologies also carry principles, phases and typical sessions, exercises their muscles and alternatives." lane:"enum=summary|full"`
	Limit  int    `json:"limit,omitempty" jsonschema:"How many resources to return, 1 to 50; 10 when omitted." lane:"min=1,max=50"`
	Offset int    `json:"offset,omitempty" jsonschema:"How many to skip; pass the previous answer's nextOffset." lane:"min=0"`
}

// resourceRow is one methodology or exercise: a summary line, the rest with view=full.
type resourceRow struct {
	Kind    string `json:"kind" jsonschema:"methodology or exercise."`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Sport   string `json:"sport,omitempty" jsonschema:"A methodology's sport."`
	Summary string `json:"summary"`

	SuitedFor       string                `json:"suitedFor,omitempty" jsonschema:"Methodologies, view=full."`
	Principles      []string              `json:"principles,omitempty" jsonschema:"Methodologies, view=full."`
	Phases          []methodologies.Phase `json:"phases,omitempty" jsonschema:"Methodologies, view=full."`
	TypicalSessions []string              `json:"typicalSessions,omitempty" jsonschema:"Methodologies, view=full."`
	Muscles         []string              `json:"muscles,omitempty" jsonschema:"Exercises, view=full: primary then secondary."`
	Alternatives    []string              `json:"alternatives,omitempty" jsonschema:"Exercises, view=full: ids of the swaps."`
}

func (a *Area) trainingResources(c *lane.Call, q *trainingResourcesQuery) (lane.ListOf[resourceRow], error) {
	full := q.View == "full"
	var rows []resourceRow
	if q.Kind != "exercise" {
		for _, m := range methodologies.Search(q.Q, q.Sport) {
			r := resourceRow{Kind: "methodology", ID: m.ID, Name: m.Name, Sport: m.Sport, Summary: m.Summary}
			if full {
				r.SuitedFor, r.Principles, r.Phases, r.TypicalSessions = m.SuitedFor, m.Principles, m.Phases, m.TypicalSessions
			}
			rows = append(rows, r)
		}
	}
	if q.Kind != "methodology" && q.Sport == "" {
		for _, e := range exercises.Search(nil, exercises.Filter{Q: q.Q}) {
			r := resourceRow{Kind: "exercise", ID: e.ID, Name: e.Name, Summary: exerciseLine(e)}
			if full {
				r.Muscles, r.Alternatives = append(append([]string{}, e.Primary...), e.Secondary...), e.Alternatives
			}
			rows = append(rows, r)
		}
	}
	limit := q.Limit
	if limit == 0 {
		limit = 10
	}
	return lane.PageSlice(lane.NonNil(rows), store.Page{Limit: limit, Offset: q.Offset}), nil
}

// exerciseLine is an exercise in a line: "strength, barbell; logged as reps_load".
func exerciseLine(e domain.Exercise) string {
	eq := "no equipment"
	if len(e.Equipment) > 0 {
		eq = strings.Join(e.Equipment, ", ")
	}
	return fmt.Sprintf("%s, %s; logged as %s.", e.Category, eq, e.Measure)
}

type methodologiesQuery struct {
	Sport string `json:"sport,omitempty" jsonschema:"Only this sport's methodologies." lane:"enum=strength|running|cycling|swimming|triathlon|conditioning|mobility"`
}

// The coaching persona.

type personaAnswer struct {
	domain.Persona
	Custom    bool       `json:"custom" jsonschema:"true when the studio set its own voice; false: Perform's default."`
	UpdatedAt *time.Time `json:"updatedAt" jsonschema:"When the studio last set it; null for the default."`
}

type personaExampleInput struct {
	Situation string `json:"situation" jsonschema:"What the trainee says or where they stand." lane:"minLength=1,maxLength=300"`
	Reply     string `json:"reply" jsonschema:"How the coach answers it." lane:"minLength=1,maxLength=1500"`
}

type personaInput struct {
	Name         string                `json:"name" jsonschema:"What the coaching voice is called, such as the studio's name or Coach." lane:"minLength=1,maxLength=80"`
	Tone         string                `json:"tone" jsonschema:"How the coach sounds: warmth, directness, humour, language." lane:"minLength=1,maxLength=1000"`
	Avoid        []string              `json:"avoid,omitempty" jsonschema:"What the coach never does or says, one item each." lane:"minLength=1,maxLength=300,maxItems=20"`
	AnswerFormat string                `json:"answerFormat" jsonschema:"How answers are shaped: length, structure, numbers, what comes first." lane:"minLength=1,maxLength=1500"`
	Examples     []personaExampleInput `json:"examples,omitempty" jsonschema:"Up to 8 situations and the coach's reply to each." lane:"maxItems=8"`
}

func (a *Area) getPersona(c *lane.Call, _ *lane.NoInput) (personaAnswer, error) {
	p, at, err := c.Studio().GetPersona(c.Ctx)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return personaAnswer{Persona: DefaultPersona()}, nil
	case err != nil:
		return personaAnswer{}, err
	}
	return personaAnswer{Persona: p, Custom: true, UpdatedAt: &at}, nil
}

func (a *Area) putPersona(c *lane.Call, in *personaInput) (personaAnswer, error) {
	p := domain.Persona{Name: strings.TrimSpace(in.Name), Tone: strings.TrimSpace(in.Tone), AnswerFormat: strings.TrimSpace(in.AnswerFormat),
		Avoid: lane.CleanStrings(in.Avoid), Examples: []domain.PersonaExample{}}
	var errs []lane.FieldError
	for _, f := range []struct{ name, v string }{{"name", p.Name}, {"tone", p.Tone}, {"answerFormat", p.AnswerFormat}} {
		if f.v == "" {
			errs = append(errs, lane.FieldError{Field: f.name, Message: f.name + " is only spaces; say it in words."})
		}
	}
	for i, e := range in.Examples {
		ex := domain.PersonaExample{Situation: strings.TrimSpace(e.Situation), Reply: strings.TrimSpace(e.Reply)}
		if ex.Situation == "" || ex.Reply == "" {
			errs = append(errs, lane.FieldError{Field: fmt.Sprintf("examples[%d]", i), Message: fmt.Sprintf("examples[%d] needs both a situation and a reply in words.", i)})
		}
		p.Examples = append(p.Examples, ex)
	}
	if len(errs) > 0 {
		return personaAnswer{}, lane.ValidationError(errs)
	}
	at := c.Now().UTC().Truncate(time.Millisecond)
	if err := c.Studio().PutPersona(c.Ctx, p, at); err != nil {
		return personaAnswer{}, err
	}
	return personaAnswer{Persona: p, Custom: true, UpdatedAt: &at}, nil
}

// DefaultPersona is Perform's coaching voice, for a studio that has not set
// its own.
func DefaultPersona() domain.Persona {
	return domain.Persona{
		Name: "Perform Coach",
		Tone: "Warm, direct and calm, like a good coach on the gym floor: encouraging without hype, honest about what the numbers say, " +
			"and on the trainee's side. Plain words; technical terms only when they help, explained once. Answer in the trainee's language.",
		Avoid: []string{
			"Medical diagnoses or treatment advice: for pain that is sharp, growing or lasting, suggest seeing a doctor or physiotherapist and telling the coach.",
			"Shaming, guilt or moralising about missed sessions, food or body weight.",
			"Extreme diets, crash weight loss, or training through an injury's pain.",
			"Inventing numbers: say when the data is missing instead of guessing.",
			"Overriding the coach's program: suggest changes and say the coach has the last word.",
			"Long lectures, walls of text and lists of generic tips.",
		},
		AnswerFormat: "Lead with the answer in one or two sentences, then the numbers that support it (dates, loads, completion), then at most three next steps. " +
			"Keep it short: a few lines, a short list when it helps. Use the trainee's units (kg or lb, km or miles). " +
			"Read summaries first and fetch a session's full record only when the question needs it.",
		Examples: []domain.PersonaExample{
			{Situation: "I missed three sessions this week.", Reply: "That happens. You still got one in, and last month you completed 80% of your plan. " +
				"Let's make next week doable: keep the two key sessions and make the third a 20-minute optional one. Want me to adjust the plan?"},
			{Situation: "My squat hasn't moved in three weeks.", Reply: "Your best estimated 1RM has held at 100 kg since the 3rd, while your sleep scores dropped. " +
				"A stall like this often clears with a lighter week: try 3 sets at 85 kg this week, then build back. I'll flag it for your coach too."},
			{Situation: "My knee hurts when I run.", Reply: "Let's not push through that. I've recorded it so your coach sees it. " +
				"For now swap running for cycling or swimming if those are pain-free, and if the pain is sharp or lasts more than a few days, see a physiotherapist."},
		},
	}
}

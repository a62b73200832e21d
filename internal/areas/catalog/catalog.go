package catalog

import (
	"fmt"
	"strings"
	"time"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/training"
)

type createProductInput struct {
	Name         string   `json:"name" jsonschema:"The plan's name." lane:"minLength=1,maxLength=200"`
	Price        *float64 `json:"price,omitempty" jsonschema:"List price in major units of currency (349.90), at most its decimals; omit or null to set the price per trainee." lane:"min=0,max=1000000"`
	Currency     *string  `json:"currency,omitempty" jsonschema:"ISO 4217 currency code; the studio's (ILS unless set) when omitted." lane:"minLength=3,maxLength=3"`
	DurationDays *int     `json:"durationDays,omitempty" jsonschema:"Length in days; omit or null for open-ended until cancelled." lane:"min=1,max=3650"`
	Active       *bool    `json:"active,omitempty" jsonschema:"Whether the plan is on sale; true when omitted."`
	Kind         *string  `json:"kind,omitempty" jsonschema:"package (sessions in all, valid validDays from its start), membership (sessions a week for a period that renews) or other (neither; the default)." lane:"enum=package|membership|other"`
	Sessions     *int     `json:"sessions,omitempty" jsonschema:"A package's sessions in all, or a membership's sessions a week (null: unlimited)." lane:"min=1,max=1000"`
	ValidDays    *int     `json:"validDays,omitempty" jsonschema:"A package's validity in days from its start; null: no expiry." lane:"min=1,max=3650"`
	Period       *string  `json:"period,omitempty" jsonschema:"A membership's period, week or month (month when omitted); each renewal adds one and charges it." lane:"enum=week|month"`
	AutoRenew    *bool    `json:"autoRenew,omitempty" jsonschema:"Whether a membership renews into its next period (true when omitted; the studio's renewMemberships may turn every renewal off)."`
}

type updateProductInput struct {
	Name         *string  `json:"name,omitempty" jsonschema:"The plan's name." lane:"minLength=1,maxLength=200,null=false"`
	Price        *float64 `json:"price,omitempty" jsonschema:"List price in major units of currency (349.90), at most its decimals; null makes it priced per trainee." lane:"min=0,max=1000000"`
	Currency     *string  `json:"currency,omitempty" jsonschema:"ISO 4217 currency code; without price, the price is kept in it." lane:"minLength=3,maxLength=3,null=false"`
	DurationDays *int     `json:"durationDays,omitempty" jsonschema:"Length in days; null makes it open-ended." lane:"min=1,max=3650"`
	Active       *bool    `json:"active,omitempty" jsonschema:"Whether the plan is on sale." lane:"null=false"`
	Kind         *string  `json:"kind,omitempty" jsonschema:"package (sessions in all, valid validDays from its start), membership (sessions a week for a period that renews) or other (neither; the default)." lane:"enum=package|membership|other,null=false"`
	Sessions     *int     `json:"sessions,omitempty" jsonschema:"A package's sessions in all, or a membership's sessions a week (null: unlimited)." lane:"min=1,max=1000"`
	ValidDays    *int     `json:"validDays,omitempty" jsonschema:"A package's validity in days from its start; null: no expiry." lane:"min=1,max=3650"`
	Period       *string  `json:"period,omitempty" jsonschema:"A membership's period, week or month (month when omitted); each renewal adds one and charges it." lane:"enum=week|month"`
	AutoRenew    *bool    `json:"autoRenew,omitempty" jsonschema:"Whether a membership renews into its next period (true when omitted; the studio's renewMemberships may turn every renewal off)." lane:"null=false"`
}

type createProgramTemplateInput struct {
	Name        string  `json:"name" jsonschema:"The program's name." lane:"minLength=1,maxLength=200"`
	Description *string `json:"description,omitempty" jsonschema:"What the program is." lane:"maxLength=4000"`
	Weeks       *int    `json:"weeks,omitempty" jsonschema:"Length in weeks; with phases it must equal their weeks, and is taken from them when omitted." lane:"min=1,max=260"`
	structureInput
}

type formFieldInput struct {
	Key      string   `json:"key" jsonschema:"Stable key of the answer." lane:"minLength=1,maxLength=100"`
	Label    string   `json:"label" jsonschema:"The question." lane:"minLength=1,maxLength=500"`
	Type     string   `json:"type" jsonschema:"The kind of answer: text (a string), number, date (YYYY-MM-DD), choice (one of options) or scale (a whole number from 1 to 10)." lane:"enum=text|number|date|choice|scale"`
	Required bool     `json:"required,omitempty" jsonschema:"Whether an answer is required."`
	Options  []string `json:"options,omitempty" jsonschema:"The choices of a choice field." lane:"minLength=1,maxLength=200,maxItems=50"`
}

type createFormTemplateInput struct {
	Name        string           `json:"name" jsonschema:"The form's name." lane:"minLength=1,maxLength=200"`
	Description *string          `json:"description,omitempty" jsonschema:"What the form is for." lane:"maxLength=4000"`
	Fields      []formFieldInput `json:"fields" jsonschema:"The questions, in order." lane:"maxItems=100"`
}

func (a *Area) catalogRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/products", "The studio's plans (products). A null price means it is set per trainee; a null durationDays means open-ended. kind is package (sessions in all, validDays from its start), membership (sessions a week, null unlimited, for a period that renews) or other.", func(c *lane.Call, q *lane.SearchQuery) (lane.ListOf[domain.Product], error) {
		res, err := c.Studio().ListProducts(c.Ctx, strings.TrimSpace(q.Search), q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_plans"))
	lane.Add(rs, "POST", "/products", "Create a plan.", func(c *lane.Call, in *createProductInput) (domain.Product, error) {
		p := domain.Product{
			ID:           ids.New(ids.Product),
			Name:         strings.TrimSpace(in.Name),
			DurationDays: in.DurationDays,
			Active:       in.Active == nil || *in.Active,
			CreatedAt:    c.Now().UTC(),
		}
		var err error
		if p.Currency, err = newPlanCurrency(c, in.Currency); err != nil {
			return p, err
		}
		if p.Price, err = c.Amount("price", p.Currency); err != nil {
			return p, err
		}
		p.Kind, p.Sessions, p.ValidDays, p.Period, p.AutoRenew = domain.PlanOther, in.Sessions, in.ValidDays, in.Period, in.AutoRenew == nil || *in.AutoRenew
		if in.Kind != nil {
			p.Kind = *in.Kind
		}
		if err := planKindCheck(c, &p); err != nil {
			return p, err
		}
		if err := c.Studio().CreateProduct(c.Ctx, &p); err != nil {
			return p, err
		}
		c.SetResource(p.ID)
		return p, nil
	}, lane.Admin(), lane.Created())
	lane.Add(rs, "PATCH", "/products/{id}", "Change a plan.", func(c *lane.Call, in *updateProductInput) (domain.Product, error) {
		ss := c.Studio()
		p, err := lane.Lookup(c.Ctx, ids.Product, c.ID(), ss.GetProduct)
		if err != nil {
			return p, err
		}
		if in.Name != nil {
			p.Name = strings.TrimSpace(*in.Name)
		}
		if err := repricePlan(c, &p, in.Currency); err != nil {
			return p, err
		}
		if c.Has("durationDays") {
			p.DurationDays = in.DurationDays
		}
		if in.Active != nil {
			p.Active = *in.Active
		}
		if in.Kind != nil {
			p.Kind = *in.Kind
		}
		if c.Has("sessions") {
			p.Sessions = in.Sessions
		}
		if c.Has("validDays") {
			p.ValidDays = in.ValidDays
		}
		if c.Has("period") {
			p.Period = in.Period
		}
		if in.AutoRenew != nil {
			p.AutoRenew = *in.AutoRenew
		}
		if err := planKindCheck(c, &p); err != nil {
			return p, err
		}
		if err := ss.UpdateProduct(c.Ctx, &p); err != nil {
			return p, err
		}
		return p, nil
	}, lane.Admin())

	lane.Add(rs, "GET", "/program-templates", "The studio's program templates, each with a summary of its structure (GET /program-templates/{id} has the whole of it).", func(c *lane.Call, q *lane.SearchQuery) (lane.ListOf[templateRow], error) {
		res, err := c.Studio().ListProgramTemplates(c.Ctx, strings.TrimSpace(q.Search), q.Page())
		rows := store.List[templateRow]{Items: make([]templateRow, len(res.Items)), Total: res.Total}
		for i, t := range res.Items {
			rows.Items[i] = TemplateRowOf(t)
		}
		return lane.PageOf(rows, q.Page()), err
	}, lane.Tool("list_program_templates"))
	lane.Add(rs, "POST", "/program-templates", "Create a program template, with its phases, weeks, days and planned exercises when given.", func(c *lane.Call, in *createProgramTemplateInput) (domain.ProgramTemplate, error) {
		t := domain.ProgramTemplate{ID: ids.New(ids.ProgramTemplate), Name: strings.TrimSpace(in.Name), Description: in.Description, Weeks: in.Weeks, CreatedAt: c.Now().UTC()}
		if c.Has("phases") {
			st, err := structure(c, c.Studio(), &in.structureInput)
			if err != nil {
				return t, err
			}
			weeks := training.Weeks(*st)
			if in.Weeks != nil && *in.Weeks != weeks {
				return t, lane.InvalidField("weeks", fmt.Sprintf("weeks is %d but the phases hold %d weeks; omit weeks or make them agree.", *in.Weeks, weeks))
			}
			t.Structure, t.Weeks = st, &weeks
		}
		if err := c.Studio().CreateProgramTemplate(c.Ctx, &t); err != nil {
			return t, err
		}
		c.SetResource(t.ID)
		return t, nil
	}, lane.Admin(), lane.Created())
	lane.Add(rs, "GET", "/program-templates/{id}", "One program template with its whole structure: phases → weeks → days → planned exercises with their targets.", func(c *lane.Call, _ *lane.NoInput) (domain.ProgramTemplate, error) {
		return lane.Lookup(c.Ctx, ids.ProgramTemplate, c.ID(), c.Studio().GetProgramTemplate)
	})
	lane.Add(rs, "PUT", "/program-templates/{id}/structure", "Replace a program template's structure (phases → weeks → days → planned exercises); its weeks become the structure's. Programs already assigned keep the sessions they laid out.", func(c *lane.Call, in *structureInput) (domain.ProgramTemplate, error) {
		var t domain.ProgramTemplate
		err := c.InTx(func(ss store.StudioStore) error {
			var err error
			if t, err = lane.Lookup(c.Ctx, ids.ProgramTemplate, c.ID(), ss.GetProgramTemplate); err != nil {
				return err
			}
			st, err := structure(c, ss, in)
			if err != nil {
				return err
			}
			weeks := training.Weeks(*st)
			t.Structure, t.Weeks = st, &weeks
			return ss.UpdateProgramTemplate(c.Ctx, &t)
		})
		return t, err
	}, lane.Admin())

	lane.Add(rs, "GET", "/forms", "The studio's form templates.", func(c *lane.Call, q *lane.SearchQuery) (lane.ListOf[domain.FormTemplate], error) {
		res, err := c.Studio().ListFormTemplates(c.Ctx, strings.TrimSpace(q.Search), q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Tool("list_forms"))
	lane.Add(rs, "POST", "/forms", "Create a form template.", a.createFormTemplate, lane.Admin(), lane.Created())
}

// newPlanCurrency is the currency a new plan is sold in: the one sent, else
// the studio's.
func newPlanCurrency(c *lane.Call, sent *string) (string, error) {
	if sent != nil {
		return lane.Currency("currency", *sent)
	}
	st, err := c.DB().StudioByID(c.Ctx, c.P.StudioID)
	return st.Currency(), err
}

// repricePlan applies a change's price and currency to p. A new currency
// without a price keeps the amount (350 ILS becomes 350 USD), refused when
// the amount has more decimals than the new currency.
func repricePlan(c *lane.Call, p *domain.Product, currency *string) error {
	if currency != nil {
		code, err := lane.Currency("currency", *currency)
		if err != nil {
			return err
		}
		if p.Price != nil && !c.Has("price") {
			m, err := p.Price.In(code)
			if err != nil {
				return lane.InvalidField("currency", fmt.Sprintf("The price %s does not fit %s: send price in %s too.", p.Price.Decimal(), code, code))
			}
			p.Price = &m
		}
		p.Currency = code
	}
	if c.Has("price") {
		m, err := c.Amount("price", p.Currency)
		if err != nil {
			return err
		}
		p.Price = m
	}
	return nil
}

func (a *Area) createFormTemplate(c *lane.Call, in *createFormTemplateInput) (domain.FormTemplate, error) {
	var errs []lane.FieldError
	if len(in.Fields) == 0 {
		errs = append(errs, lane.FieldError{Field: "fields", Message: "fields must list at least one question."})
	}
	seen := map[string]bool{}
	t := domain.FormTemplate{ID: ids.New(ids.FormTemplate), Name: strings.TrimSpace(in.Name), Description: in.Description, CreatedAt: c.Now().UTC()}
	for i, f := range in.Fields {
		name := fmt.Sprintf("fields[%d]", i)
		if seen[f.Key] {
			errs = append(errs, lane.FieldError{Field: name + ".key", Message: fmt.Sprintf("%s.key %q is used by an earlier field; keys must be unique.", name, f.Key)})
		}
		seen[f.Key] = true
		if f.Type == "choice" && len(f.Options) == 0 {
			errs = append(errs, lane.FieldError{Field: name + ".options", Message: name + ".options must list the choices of a choice field."})
		}
		t.Fields = append(t.Fields, domain.FormField{Key: f.Key, Label: f.Label, Type: f.Type, Required: f.Required, Options: f.Options})
	}
	if len(errs) > 0 {
		return t, lane.ValidationError(errs)
	}
	if err := c.Studio().CreateFormTemplate(c.Ctx, &t); err != nil {
		return t, err
	}
	c.SetResource(t.ID)
	return t, nil
}

// Program structure: phases → weeks → days → planned exercises. The
// targets of a planned exercise are its own fields, so every bound is a
// lane tag the schema (and the tools) show.

type PlannedExerciseInput struct {
	ExerciseID  string   `json:"exerciseId" jsonschema:"From search_exercises: a built-in slug (back-squat) or exr_…." lane:"minLength=1,maxLength=100"`
	Sets        *int     `json:"sets,omitempty" jsonschema:"Target sets." lane:"min=1,max=20"`
	Reps        *int     `json:"reps,omitempty" jsonschema:"Per set." lane:"min=1,max=100"`
	LoadKg      *float64 `json:"loadKg,omitempty" lane:"min=0,max=500"`
	PercentRM   *float64 `json:"percent1RM,omitempty" jsonschema:"% of 1RM." lane:"gt=0,max=100"`
	RPE         *float64 `json:"rpe,omitempty" lane:"min=1,max=10"`
	RIR         *int     `json:"rir,omitempty" jsonschema:"Reps in reserve." lane:"min=0,max=10"`
	RestSeconds *int     `json:"restSeconds,omitempty" lane:"min=0,max=1800"`
	Tempo       *string  `json:"tempo,omitempty" jsonschema:"Such as 3-1-1-0." lane:"maxLength=20"`
	Seconds     *int     `json:"seconds,omitempty" lane:"min=1,max=86400"`
	Metres      *float64 `json:"metres,omitempty" lane:"gt=0,max=1000000"`
	Notes       *string  `json:"notes,omitempty" lane:"maxLength=500"`
}

type programDayInput struct {
	Weekday     *int                   `json:"weekday,omitempty" jsonschema:"ISO weekday, 1 Monday to 7 Sunday. Omit to take the trainee's availability, else Monday/Wednesday/Friday and so on." lane:"min=1,max=7"`
	Title       string                 `json:"title" jsonschema:"The session's title." lane:"minLength=1,maxLength=200"`
	Sport       *string                `json:"sport,omitempty" jsonschema:"The session's sport or type (strength, running, mobility…); strength when omitted." lane:"minLength=1,maxLength=50"`
	DurationMin *int                   `json:"durationMin,omitempty" jsonschema:"Planned length in minutes." lane:"min=1,max=600"`
	Exercises   []PlannedExerciseInput `json:"exercises,omitempty" jsonschema:"The exercises, in order." lane:"maxItems=30"`
}

type programWeekInput struct {
	Days []programDayInput `json:"days" jsonschema:"The week's sessions; an empty list is a rest week." lane:"maxItems=7"`
}

type programPhaseInput struct {
	Name  string             `json:"name" jsonschema:"The phase's name (base, build, peak, deload…)." lane:"minLength=1,maxLength=100"`
	Focus *string            `json:"focus,omitempty" jsonschema:"What the phase is for." lane:"maxLength=500"`
	Weeks []programWeekInput `json:"weeks" jsonschema:"The phase's weeks, in order." lane:"maxItems=52"`
}

type structureInput struct {
	Phases []programPhaseInput `json:"phases,omitempty" jsonschema:"The program's phases, in order: each has weeks, each week days, each day planned exercises with targets." lane:"maxItems=12"`
}

// maxProgramWeeks bounds a structure: a program laid out is at most this
// many weeks of sessions.
const maxProgramWeeks = 104

// structure checks a structure input (every exercise id names an exercise)
// and builds the domain structure, exercise names filled in.
func structure(c *lane.Call, ss store.StudioStore, in *structureInput) (*domain.ProgramStructure, error) {
	var errs []lane.FieldError
	if len(in.Phases) == 0 {
		errs = append(errs, lane.FieldError{Field: "phases", Message: "phases must list at least one phase."})
	}
	out := &domain.ProgramStructure{Phases: []domain.ProgramPhase{}}
	weeks := 0
	for pi, p := range in.Phases {
		at := fmt.Sprintf("phases[%d]", pi)
		if len(p.Weeks) == 0 {
			errs = append(errs, lane.FieldError{Field: at + ".weeks", Message: at + ".weeks must list at least one week."})
		}
		weeks += len(p.Weeks)
		phase := domain.ProgramPhase{Name: strings.TrimSpace(p.Name), Focus: p.Focus, Weeks: []domain.ProgramWeek{}}
		for wi, w := range p.Weeks {
			week := domain.ProgramWeek{Days: []domain.ProgramDay{}}
			for di, d := range w.Days {
				dayAt := fmt.Sprintf("%s.weeks[%d].days[%d]", at, wi, di)
				day := domain.ProgramDay{Weekday: d.Weekday, Title: strings.TrimSpace(d.Title), Sport: "strength", DurationMin: d.DurationMin, Exercises: []domain.PlannedExercise{}}
				if d.Sport != nil {
					day.Sport = strings.ToLower(strings.TrimSpace(*d.Sport))
				}
				for ei, e := range d.Exercises {
					ex, fe := Exercise(c, ss, fmt.Sprintf("%s.exercises[%d].exerciseId", dayAt, ei), e.ExerciseID)
					if fe != nil {
						errs = append(errs, *fe)
						continue
					}
					day.Exercises = append(day.Exercises, domain.PlannedExercise{ExerciseID: ex.ID, Name: ex.Name, Target: e.Target(), Notes: e.Notes})
				}
				week.Days = append(week.Days, day)
			}
			phase.Weeks = append(phase.Weeks, week)
		}
		out.Phases = append(out.Phases, phase)
	}
	if weeks > maxProgramWeeks {
		errs = append(errs, lane.FieldError{Field: "phases", Message: fmt.Sprintf("phases hold %d weeks; a program has at most %d. Split it into programs assigned one after the other.", weeks, maxProgramWeeks)})
	}
	if len(errs) > 0 {
		return nil, lane.ValidationError(errs)
	}
	return out, nil
}

func (e PlannedExerciseInput) Target() domain.ExerciseTarget {
	return domain.ExerciseTarget{Sets: e.Sets, Reps: e.Reps, LoadKg: e.LoadKg, PercentRM: e.PercentRM, RPE: e.RPE, RIR: e.RIR,
		RestSeconds: e.RestSeconds, Tempo: e.Tempo, Seconds: e.Seconds, Metres: e.Metres}
}

// templateRow is a template in a list: its structure summarised.
type templateRow struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description *string           `json:"description"`
	Weeks       *int              `json:"weeks"`
	Structure   *StructureSummary `json:"structure" jsonschema:"A summary of the phases; null for a template that is only a name."`
	CreatedAt   time.Time         `json:"createdAt"`
}

type StructureSummary struct {
	Phases   []phaseSummary `json:"phases"`
	Weeks    int            `json:"weeks"`
	Sessions int            `json:"sessions"`
}

type phaseSummary struct {
	Name     string  `json:"name"`
	Focus    *string `json:"focus,omitempty"`
	Weeks    int     `json:"weeks"`
	Sessions int     `json:"sessions"`
}

func TemplateRowOf(t domain.ProgramTemplate) templateRow {
	row := templateRow{ID: t.ID, Name: t.Name, Description: t.Description, Weeks: t.Weeks, CreatedAt: t.CreatedAt}
	if t.Structure == nil {
		return row
	}
	sum := &StructureSummary{Phases: []phaseSummary{}}
	for _, p := range t.Structure.Phases {
		ps := phaseSummary{Name: p.Name, Focus: p.Focus, Weeks: len(p.Weeks)}
		for _, w := range p.Weeks {
			ps.Sessions += len(w.Days)
		}
		sum.Phases = append(sum.Phases, ps)
		sum.Weeks += ps.Weeks
		sum.Sessions += ps.Sessions
	}
	row.Structure = sum
	return row
}

// planKindCheck refuses the fields a plan's kind does not hold, with a
// sentence naming them, and gives a membership its default period. A
// change that makes a plan other drops what only a package or membership
// holds.
func planKindCheck(c *lane.Call, p *domain.Product) error {
	switch p.Kind {
	case domain.PlanPackage:
		switch {
		case p.Sessions == nil:
			return lane.InvalidField("sessions", "A package holds a number of sessions: send sessions (such as 10).")
		case p.Period != nil:
			return lane.InvalidField("period", "period is a membership's; a package runs validDays from its start. Leave period out, or send kind membership.")
		}
	case domain.PlanMembership:
		if p.ValidDays != nil {
			return lane.InvalidField("validDays", "validDays is a package's; a membership runs period by period until cancelled. Leave validDays out, or send kind package.")
		}
		if p.DurationDays != nil && c.Has("durationDays") {
			return lane.InvalidField("durationDays", "durationDays is not a membership's: it runs period by period (period) until cancelled. Leave durationDays out.")
		}
		if p.Period == nil {
			month := domain.PeriodMonth
			p.Period = &month
		}
	default:
		for _, f := range []string{"sessions", "validDays", "period", "autoRenew"} {
			if c.Has(f) && !c.Has("kind") {
				return lane.InvalidField(f, f+" belongs to a package or a membership: send kind (package or membership) with it.")
			}
		}
		if c.Has("sessions") || c.Has("validDays") || c.Has("period") {
			return lane.InvalidField("kind", "A plan of kind other holds no sessions, validDays or period: send kind package or membership, or leave them out.")
		}
		p.Sessions, p.ValidDays, p.Period = nil, nil, nil
	}
	return nil
}

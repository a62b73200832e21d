package lane

import (
	"fmt"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
)

type createProductInput struct {
	Name         string   `json:"name" jsonschema:"The plan's name." lane:"minLength=1,maxLength=200"`
	Price        *float64 `json:"price,omitempty" jsonschema:"List price; omit or null to set the price per trainee." lane:"min=0,max=1000000"`
	Currency     *string  `json:"currency,omitempty" jsonschema:"ISO 4217 currency code; ILS when omitted." lane:"minLength=3,maxLength=3"`
	DurationDays *int     `json:"durationDays,omitempty" jsonschema:"Length in days; omit or null for open-ended until cancelled." lane:"min=1,max=3650"`
	Active       *bool    `json:"active,omitempty" jsonschema:"Whether the plan is on sale; true when omitted."`
}

type updateProductInput struct {
	Name         *string  `json:"name,omitempty" jsonschema:"The plan's name." lane:"minLength=1,maxLength=200,null=false"`
	Price        *float64 `json:"price,omitempty" jsonschema:"List price; null makes it priced per trainee." lane:"min=0,max=1000000"`
	Currency     *string  `json:"currency,omitempty" jsonschema:"ISO 4217 currency code." lane:"minLength=3,maxLength=3,null=false"`
	DurationDays *int     `json:"durationDays,omitempty" jsonschema:"Length in days; null makes it open-ended." lane:"min=1,max=3650"`
	Active       *bool    `json:"active,omitempty" jsonschema:"Whether the plan is on sale." lane:"null=false"`
}

type createProgramTemplateInput struct {
	Name        string  `json:"name" jsonschema:"The program's name." lane:"minLength=1,maxLength=200"`
	Description *string `json:"description,omitempty" jsonschema:"What the program is." lane:"maxLength=4000"`
	Weeks       *int    `json:"weeks,omitempty" jsonschema:"Length in weeks." lane:"min=1,max=260"`
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

func (l *Lane) catalogRoutes() {
	add(l, "GET", "/products", "The studio's plans (products). A null price means it is set per trainee; a null durationDays means open-ended.", func(c *call, q *searchQuery) (listOf[domain.Product], error) {
		res, err := c.studio().ListProducts(c.ctx, strings.TrimSpace(q.Search), q.page())
		return pageOf(res, q.page()), err
	}, tool("list_plans"))
	add(l, "POST", "/products", "Create a plan.", func(c *call, in *createProductInput) (domain.Product, error) {
		p := domain.Product{
			ID:           ids.New(ids.Product),
			Name:         strings.TrimSpace(in.Name),
			Price:        in.Price,
			Currency:     "ILS",
			DurationDays: in.DurationDays,
			Active:       in.Active == nil || *in.Active,
			CreatedAt:    l.now().UTC(),
		}
		if in.Currency != nil {
			p.Currency = strings.ToUpper(*in.Currency)
		}
		if err := c.studio().CreateProduct(c.ctx, &p); err != nil {
			return p, err
		}
		c.setResource(p.ID)
		return p, nil
	}, admin(), created())
	add(l, "PATCH", "/products/{id}", "Change a plan.", func(c *call, in *updateProductInput) (domain.Product, error) {
		ss := c.studio()
		p, err := lookup(c.ctx, ids.Product, c.id(), ss.GetProduct)
		if err != nil {
			return p, err
		}
		if in.Name != nil {
			p.Name = strings.TrimSpace(*in.Name)
		}
		if c.has("price") {
			p.Price = in.Price
		}
		if in.Currency != nil {
			p.Currency = strings.ToUpper(*in.Currency)
		}
		if c.has("durationDays") {
			p.DurationDays = in.DurationDays
		}
		if in.Active != nil {
			p.Active = *in.Active
		}
		if err := ss.UpdateProduct(c.ctx, &p); err != nil {
			return p, err
		}
		return p, nil
	}, admin())

	add(l, "GET", "/program-templates", "The studio's program templates.", func(c *call, q *searchQuery) (listOf[domain.ProgramTemplate], error) {
		res, err := c.studio().ListProgramTemplates(c.ctx, strings.TrimSpace(q.Search), q.page())
		return pageOf(res, q.page()), err
	}, tool("list_program_templates"))
	add(l, "POST", "/program-templates", "Create a program template.", func(c *call, in *createProgramTemplateInput) (domain.ProgramTemplate, error) {
		t := domain.ProgramTemplate{ID: ids.New(ids.ProgramTemplate), Name: strings.TrimSpace(in.Name), Description: in.Description, Weeks: in.Weeks, CreatedAt: l.now().UTC()}
		if err := c.studio().CreateProgramTemplate(c.ctx, &t); err != nil {
			return t, err
		}
		c.setResource(t.ID)
		return t, nil
	}, admin(), created())

	add(l, "GET", "/forms", "The studio's form templates.", func(c *call, q *searchQuery) (listOf[domain.FormTemplate], error) {
		res, err := c.studio().ListFormTemplates(c.ctx, strings.TrimSpace(q.Search), q.page())
		return pageOf(res, q.page()), err
	}, tool("list_forms"))
	add(l, "POST", "/forms", "Create a form template.", l.createFormTemplate, admin(), created())
}

func (l *Lane) createFormTemplate(c *call, in *createFormTemplateInput) (domain.FormTemplate, error) {
	var errs []FieldError
	if len(in.Fields) == 0 {
		errs = append(errs, FieldError{"fields", "fields must list at least one question."})
	}
	seen := map[string]bool{}
	t := domain.FormTemplate{ID: ids.New(ids.FormTemplate), Name: strings.TrimSpace(in.Name), Description: in.Description, CreatedAt: l.now().UTC()}
	for i, f := range in.Fields {
		name := fmt.Sprintf("fields[%d]", i)
		if seen[f.Key] {
			errs = append(errs, FieldError{name + ".key", fmt.Sprintf("%s.key %q is used by an earlier field; keys must be unique.", name, f.Key)})
		}
		seen[f.Key] = true
		if f.Type == "choice" && len(f.Options) == 0 {
			errs = append(errs, FieldError{name + ".options", name + ".options must list the choices of a choice field."})
		}
		t.Fields = append(t.Fields, domain.FormField{Key: f.Key, Label: f.Label, Type: f.Type, Required: f.Required, Options: f.Options})
	}
	if len(errs) > 0 {
		return t, validationError(errs)
	}
	if err := c.studio().CreateFormTemplate(c.ctx, &t); err != nil {
		return t, err
	}
	c.setResource(t.ID)
	return t, nil
}

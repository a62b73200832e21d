package catalog

import (
	"context"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Area is the catalogue's routes.
type Area struct{}

// Routes adds the catalogue's routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.catalogRoutes(rs)
	a.exerciseRoutes(rs)
	a.resourceRoutes(rs)
}

// The catalogue's records, read one by id.
var (
	getProduct  = func(ss store.StudioStore) func(context.Context, string) (domain.Product, error) { return ss.GetProduct }
	getTemplate = func(ss store.StudioStore) func(context.Context, string) (domain.ProgramTemplate, error) {
		return ss.GetProgramTemplate
	}
	getForm = func(ss store.StudioStore) func(context.Context, string) (domain.FormTemplate, error) {
		return ss.GetFormTemplate
	}
)

// Declare says what the catalogue holds: the studio's plans (products),
// program templates and forms, each known by its name.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		named(ids.Product, "products", getProduct,
			func(c *lane.Call) (store.List[domain.Product], error) {
				return c.Studio().ListProducts(c.Ctx, "", lane.AllRows)
			},
			func(x domain.Product) lane.Named { return lane.Named{ID: x.ID, Name: x.Name} }),
		named(ids.ProgramTemplate, "program-templates", getTemplate,
			func(c *lane.Call) (store.List[domain.ProgramTemplate], error) {
				return c.Studio().ListProgramTemplates(c.Ctx, "", lane.AllRows)
			},
			func(x domain.ProgramTemplate) lane.Named { return lane.Named{ID: x.ID, Name: x.Name} }),
		named(ids.FormTemplate, "", getForm,
			func(c *lane.Call) (store.List[domain.FormTemplate], error) {
				return c.Studio().ListFormTemplates(c.Ctx, "", lane.AllRows)
			},
			func(x domain.FormTemplate) lane.Named { return lane.Named{ID: x.ID, Name: x.Name} }))
	d.Refs = map[string]lane.RefCheck{
		"product":  lane.RefOf(ids.Product, getProduct),
		"template": lane.RefOf(ids.ProgramTemplate, getTemplate),
		"form":     lane.RefOf(ids.FormTemplate, getForm),
	}
}

// named is the noun of a catalogue record known by its name: read one
// with get, list them all with list.
func named[T any](kind ids.Kind, collection string, get func(ss store.StudioStore) func(context.Context, string) (T, error),
	list func(c *lane.Call) (store.List[T], error), name func(T) lane.Named) lane.Noun {
	n := lane.Noun{Kind: kind, Named: lane.ListNamed(list, name), Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
		x, err := get(ss)(ctx, id)
		return name(x).Name, err
	}}
	if collection != "" {
		n.Collections = []string{collection}
	}
	return n
}

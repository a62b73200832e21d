package studio

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/modelbudget"
	"github.com/otherwise/perform/internal/store"
	"github.com/otherwise/perform/internal/text"
	"github.com/otherwise/perform/internal/translit"
)

// Area is the studio's routes.
type Area struct {
	// Budget are the operator's model budget ceilings: a studio's own
	// budget (PATCH /studio/settings) may only be lower.
	Budget modelbudget.Ceilings
}

// Routes adds the studio's routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.studioRoutes(rs)
	a.digestRoutes(rs)
}

// Declare says what the studio holds: its coaches, tags, tasks and keys.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Coach, Collections: []string{"coaches"}, Person: true,
			Named: lane.ListNamed(func(c *lane.Call) (store.List[domain.Coach], error) {
				return c.Studio().ListCoaches(c.Ctx, lane.AllRows)
			},
				func(x domain.Coach) lane.Named { return lane.Named{ID: x.ID, Name: x.Name} }),
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				x, err := ss.GetCoach(ctx, id)
				return x.Name, err
			}},
		lane.Noun{Kind: ids.Tag, Collections: []string{"tags"},
			Named: lane.ListNamed(func(c *lane.Call) (store.List[domain.Tag], error) { return c.Studio().ListTags(c.Ctx, lane.AllRows) },
				func(x domain.Tag) lane.Named { return lane.Named{ID: x.ID, Name: x.Name} })},
		lane.Noun{Kind: ids.Task, Collections: []string{"tasks"},
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				x, err := ss.GetTask(ctx, id)
				return x.Title, err
			}},
		lane.Noun{Kind: ids.APIKey, Collections: []string{"keys"}})
	d.Refs = map[string]lane.RefCheck{
		"coach":   lane.RefOf(ids.Coach, func(ss store.StudioStore) func(context.Context, string) (domain.Coach, error) { return ss.GetCoach }),
		"tagName": checkTagName,
	}
}

// maxTagsNamed bounds how many of the studio's tags an unknown-tag answer lists.
const maxTagsNamed = 30

// checkTagName answers 404 for a tag name the studio does not have, naming
// the tags it has.
func checkTagName(c *lane.Call, field, name string) (string, error) {
	tags, err := c.Studio().ListTags(c.Ctx, store.Page{Limit: maxTagsNamed + 1})
	if err != nil {
		return "", err
	}
	if tags.Total > len(tags.Items) {
		// More tags than listed: look the name up among all of them.
		if tags, err = c.Studio().ListTags(c.Ctx, store.Page{Limit: tags.Total}); err != nil {
			return "", err
		}
	}
	names := make([]string, 0, len(tags.Items))
	rows := make([]lane.Named, 0, len(tags.Items))
	for _, t := range tags.Items {
		if t.Name == name {
			return name, nil
		}
		names = append(names, t.Name)
		rows = append(rows, lane.Named{ID: t.Name, Name: t.Name})
	}
	// Not as written: the tag whose name it is, case and hyphens aside
	// ("vip" for VIP), or sounded in the other script.
	if fit := lane.Fit(name, rows); len(fit) == 1 && (slices.Equal(store.SearchWords(fit[0].Name), store.SearchWords(name)) || translit.Matches(name, fit[0].Name)) {
		c.Matched(field, name, "tag", fit[0].Name, "")
		return fit[0].Name, nil
	}
	names = names[:min(len(names), maxTagsNamed)]
	msg := fmt.Sprintf("This studio has no tag named %q, and it has no tags yet; omit tag, or give trainees tags with update_trainee.", text.Truncate(name, 50))
	if len(names) > 0 {
		shown := names[:min(len(names), maxTagsNamed)]
		more := ""
		if tags.Total > len(shown) {
			more = fmt.Sprintf(" and %d more (list_tags)", tags.Total-len(shown))
		}
		msg = fmt.Sprintf("This studio has no tag named %q; its tags are %s%s. Tag names match exactly, as list_tags gives them.", text.Truncate(name, 50), strings.Join(shown, ", "), more)
	}
	return "", &lane.Error{Status: 404, Code: lane.CodeNotFound, Message: msg}
}

package health

import (
	"context"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Area is the health routes.
type Area struct{}

// Routes adds the health routes.
func (a *Area) Routes(rs *lane.Routes) { a.healthRoutes(rs); a.withdrawRoutes(rs) }

// Declare says what health holds: injuries, goals (a trainee's own) and
// measurements.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Injury, Collections: []string{"injuries"}},
		lane.Noun{Kind: ids.Goal, Collections: []string{"goals"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				g, err := ss.GetGoal(ctx, id)
				return g.TraineeID, err
			}},
		lane.Noun{Kind: ids.Measurement, Collections: []string{"measurements"}})
}

package sessions

import (
	"context"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Area is the sessions' routes.
type Area struct{}

// Routes adds the sessions' and benchmarks' routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.sessionRoutes(rs)
	a.swapRoutes(rs)
}

// Declare says what the sessions hold: sessions and benchmarks, each a
// trainee's own.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Session, Collections: []string{"sessions"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				s, err := ss.GetSession(ctx, id)
				return s.TraineeID, err
			}},
		lane.Noun{Kind: ids.Benchmark, Collections: []string{"benchmarks"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				b, err := ss.GetBenchmark(ctx, id)
				return b.TraineeID, err
			}})
}

package roster

import (
	"context"
	"log/slog"
	"strings"

	"github.com/riverqueue/river"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Area is the roster's routes, and the forms' announcer that runs beside
// them.
type Area struct {
	// Store and Logger serve the announcer's job (nil Store: no job).
	Store  store.Store
	Logger *slog.Logger
}

// Routes adds the roster's routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.traineeRoutes(rs)
	a.planRoutes(rs)
	a.traineeRecordRoutes(rs)
	a.insightRoutes(rs)
	a.rosterRoutes(rs)
	a.groupRoutes(rs)
	a.messageRoutes(rs)
	a.traineeSelfRoutes(rs)
}

// Declare says what the roster holds: trainees, their subscriptions and
// programs, and the forms' announcer.
func (a *Area) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Trainee, Collections: []string{"trainees"}, Person: true, Named: traineesNamed,
			Name: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				t, err := ss.GetTrainee(ctx, id)
				return fullName(t), err
			}},
		lane.Noun{Kind: ids.Subscription, Collections: []string{"subscriptions"}},
		lane.Noun{Kind: ids.Program, Collections: []string{"programs"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				p, err := ss.GetProgram(ctx, id)
				return p.TraineeID, err
			}})
	d.Refs = map[string]lane.RefCheck{
		"trainee": lane.RefOf(ids.Trainee, func(ss store.StudioStore) func(context.Context, string) (domain.Trainee, error) { return ss.GetTrainee }),
	}
	if a.Store != nil {
		d.Workers = func(w *river.Workers) { river.AddWorker(w, &FormAnnouncer{Store: a.Store, Logger: a.Logger}) }
		d.Periodic = []*river.PeriodicJob{FormAnnouncerPeriodicJob()}
	}
}

func fullName(t domain.Trainee) string { return strings.TrimSpace(t.FirstName + " " + t.LastName) }

// traineesNamed: the trainees whose names hold every word of the name,
// the best fitting first; else those it sounds like in either script;
// else the nearest by spelling.
func traineesNamed(c *lane.Call, name string) ([]lane.Named, bool, error) {
	ss := c.Studio()
	f := store.TraineeFilter{Q: name, Page: store.Page{Limit: 50}}
	for _, sounds := range []bool{false, true} {
		f.Sounds = sounds
		l, err := ss.SearchTrainees(c.Ctx, f)
		if err != nil {
			return nil, false, err
		}
		rows := make([]lane.Named, len(l.Items))
		for i, t := range l.Items {
			rows[i] = lane.Named{ID: t.ID, Name: fullName(t)}
		}
		if fit := lane.Fit(name, rows); len(fit) > 0 {
			return fit, true, nil
		}
	}
	near, err := ss.NearTrainees(c.Ctx, f, lane.MaxCandidates)
	if err != nil {
		return nil, false, err
	}
	rows := make([]lane.Named, len(near))
	for i, t := range near {
		rows[i] = lane.Named{ID: t.ID, Name: fullName(t)}
	}
	return rows, false, nil
}

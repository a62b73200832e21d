package lane_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/auth/credentials"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
	"github.com/otherwise/perform/internal/oauth"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/store"
)

// toyArea is the kernel tests' own route table: a few task and tag routes
// written the way an area writes them, on the real store, so the policy
// point, decoding, idempotency, audit and limits are tested without
// linking any of the product's areas (their tests are in their packages,
// the route-wide sweeps in internal/areas/sweep).
type toyArea struct{}

type toyTaskInput struct {
	Title    string `json:"title" jsonschema:"What the coach should do." lane:"minLength=1,maxLength=200"`
	Priority *int   `json:"priority,omitempty" jsonschema:"0 (none, the default) to 5 (most urgent)." lane:"min=0,max=5"`
}

type toyWeightInput struct {
	WeightKg float64 `json:"weightKg" jsonschema:"The weight in kg." lane:"min=20,max=400"`
}

type toyTagInput struct {
	Name string `json:"name" jsonschema:"The tag." lane:"minLength=1,maxLength=50"`
}

func (toyArea) Routes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/tasks", "The studio's tasks.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Task], error) {
		f := store.TaskFilter{Page: q.Page()}
		res, err := c.Studio().ListTasks(c.Ctx, f)
		return lane.PageOf(res, f.Page), err
	})
	lane.Add(rs, "POST", "/tasks", "Create a task.", func(c *lane.Call, in *toyTaskInput) (domain.Task, error) {
		now := c.Now().UTC()
		t := domain.Task{ID: ids.New(ids.Task), Title: strings.TrimSpace(in.Title), Status: domain.TaskOpen, Source: c.P.Source, CreatedAt: now, UpdatedAt: now}
		if in.Priority != nil {
			t.Priority = *in.Priority
		}
		if err := c.Studio().CreateTask(c.Ctx, &t); err != nil {
			return t, err
		}
		c.SetResource(t.ID)
		return t, nil
	}, lane.Created())
	lane.Add(rs, "GET", "/tasks/{id}", "One task.", func(c *lane.Call, _ *lane.NoInput) (domain.Task, error) {
		return lane.Lookup(c.Ctx, ids.Task, c.ID(), c.Studio().GetTask)
	})
	// A trainee's own routes, and one record of hers.
	lane.Add(rs, "GET", "/trainees/{id}/weights", "A trainee's weights.", func(c *lane.Call, q *lane.PageQuery) (lane.ListOf[domain.Weight], error) {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
			return lane.ListOf[domain.Weight]{}, err
		}
		res, err := c.Studio().ListWeights(c.Ctx, c.ID(), q.Page())
		return lane.PageOf(res, q.Page()), err
	}, lane.Trainee(auth.ScopeHealthRead), lane.Allow("items.id", "items.weightKg", "total", "nextOffset"))
	lane.Add(rs, "POST", "/trainees/{id}/weights", "Log a trainee's weight.", func(c *lane.Call, in *toyWeightInput) (domain.Weight, error) {
		if _, err := lane.Lookup(c.Ctx, ids.Trainee, c.ID(), c.Studio().GetTrainee); err != nil {
			return domain.Weight{}, err
		}
		now := c.Now().UTC()
		w := domain.Weight{ID: ids.New(ids.Weight), TraineeID: c.ID(), WeightKg: in.WeightKg, RecordedAt: now, CreatedAt: now, LoggedBy: c.Author()}
		return w, c.Studio().CreateWeight(c.Ctx, &w)
	}, lane.Created(), lane.Trainee(auth.ScopeHealthWrite), lane.Allow("id", "weightKg"))
	lane.Add(rs, "GET", "/sessions/{id}", "One session.", func(c *lane.Call, _ *lane.NoInput) (domain.Session, error) {
		return lane.Lookup(c.Ctx, ids.Session, c.ID(), c.Studio().GetSession)
	}, lane.Trainee(auth.ScopeTrainingRead), lane.Allow("id", "title"))
	lane.Add(rs, "POST", "/tags", "Create a tag.", func(c *lane.Call, in *toyTagInput) (domain.Tag, error) {
		t := domain.Tag{ID: ids.New(ids.Tag), Name: strings.TrimSpace(in.Name), CreatedAt: c.Now().UTC()}
		if err := c.Studio().CreateTag(c.Ctx, &t); err != nil {
			return t, err
		}
		c.SetResource(t.ID)
		return t, nil
	}, lane.Created())
}

// Declare gives the toy area's nouns, as an area declares what it holds:
// trainees, their sessions (traced to the trainee), tasks and tags.
func (toyArea) Declare(d *lane.Declaration) {
	d.Nouns = append(d.Nouns,
		lane.Noun{Kind: ids.Trainee, Collections: []string{"trainees"}, Person: true},
		lane.Noun{Kind: ids.Session, Collections: []string{"sessions"},
			Owner: func(ctx context.Context, ss store.StudioStore, id string) (string, error) {
				s, err := ss.GetSession(ctx, id)
				return s.TraineeID, err
			}},
		lane.Noun{Kind: ids.Task, Collections: []string{"tasks"}},
		lane.Noun{Kind: ids.Tag, Collections: []string{"tags"}})
}

// toyTrainee adds a trainee to the studio studioID, with a planned session,
// straight to the store.
func toyTrainee(t *testing.T, st store.Store, studioID, first string) (trainee, session string) {
	t.Helper()
	ctx := context.Background()
	ss := st.Studio(studioID)
	tr := domain.Trainee{FirstName: first, LastName: "Toy", Phone: fmt.Sprintf("+97250%07d", time.Now().UnixNano()%10_000_000)}
	if err := ss.CreateTrainee(ctx, &tr); err != nil {
		t.Fatal(err)
	}
	ses := &domain.Session{TraineeID: tr.ID, Date: kit.Today(), Sport: "running", Title: "Easy", Status: domain.SessionPlanned}
	if err := ss.CreateSessions(ctx, []*domain.Session{ses}); err != nil {
		t.Fatal(err)
	}
	return tr.ID, ses.ID
}

// newToyTrainees is a toy lane that takes OAuth grants beside studio keys,
// trainees held to reads and writes.
func newToyTrainees(t *testing.T, st store.Store, reads, writes ratelimit.Limiter, now func() time.Time) *kit.Env {
	return newToy(t, st, kit.Options{Now: now, TraineeReads: reads, TraineeWrites: writes,
		Authenticator: credentials.New(credentials.Options{Keys: st, Grants: oauth.New(oauth.Options{Store: st})})})
}

// toyAreas is the kernel tests' route table.
func toyAreas() []lane.Area { return []lane.Area{toyArea{}} }

// newToy is a lane of the toy area on st behind a server on 127.0.0.1.
func newToy(t *testing.T, st store.Store, o ...kit.Options) *kit.Env {
	t.Helper()
	var opts kit.Options
	if len(o) > 0 {
		opts = o[0]
	}
	opts.Areas = toyAreas()
	return kit.New(t, st, opts)
}

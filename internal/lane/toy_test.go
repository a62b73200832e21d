package lane_test

import (
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/lane/lanetest/kit"
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
	lane.Add(rs, "POST", "/tags", "Create a tag.", func(c *lane.Call, in *toyTagInput) (domain.Tag, error) {
		t := domain.Tag{ID: ids.New(ids.Tag), Name: strings.TrimSpace(in.Name), CreatedAt: c.Now().UTC()}
		if err := c.Studio().CreateTag(c.Ctx, &t); err != nil {
			return t, err
		}
		c.SetResource(t.ID)
		return t, nil
	}, lane.Created())
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

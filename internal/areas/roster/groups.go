package roster

import (
	"fmt"

	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/store"
)

// Group writes: a form or a plan to a tag or a list of trainees in one
// call, each trainee's write the one-trainee route's (lane.ForEach).

// MaxGroup is the most trainees one group call reaches.
const MaxGroup = 200

// Group names the trainees of a group write: a tag or a list.
type Group struct {
	Tag        string   `json:"tag,omitempty" jsonschema:"Every active trainee with this tag (a name from list_tags, any case); or give traineeIds." lane:"maxLength=100" ref:"tagName"`
	TraineeIDs []string `json:"traineeIds,omitempty" jsonschema:"The trainees, by id (search_trainees) or name, up to 200; or give tag." lane:"maxLength=100,maxItems=200" ref:"trainee"`
}

// ForGroup makes the write method path (its {id} the trainee's) for each
// trainee of g, with the body body gives for that trainee (lane.ForEach).
func ForGroup(c *lane.Call, g Group, method, path string, body func(traineeID string) any) (lane.GroupAnswer, error) {
	trainees, err := members(c, g)
	if err != nil {
		return lane.GroupAnswer{}, err
	}
	return c.ForEach(trainees, method, path, body), nil
}

// members are the trainees g names, in the order given (by name for a tag).
func members(c *lane.Call, g Group) ([]domain.Trainee, error) {
	ss := c.Studio()
	switch {
	case g.Tag != "" && len(g.TraineeIDs) > 0:
		return nil, lane.InvalidField("tag", "Give tag or traineeIds, not both.")
	case g.Tag != "":
		l, err := ss.SearchTrainees(c.Ctx, store.TraineeFilter{Tag: g.Tag, Status: domain.TraineeActive, Page: store.Page{Limit: MaxGroup + 1}})
		if err != nil {
			return nil, err
		}
		if l.Total > MaxGroup {
			return nil, lane.InvalidField("tag", fmt.Sprintf("Tag %s has %d active trainees; a group call reaches at most %d. Give traineeIds in parts.", g.Tag, l.Total, MaxGroup))
		}
		if l.Total == 0 {
			return nil, lane.InvalidField("tag", fmt.Sprintf("No active trainee has the tag %s.", g.Tag))
		}
		return l.Items, nil
	case len(g.TraineeIDs) > 0:
		var out []domain.Trainee
		for _, id := range lane.CleanStrings(g.TraineeIDs) {
			t, err := lane.Lookup(c.Ctx, ids.Trainee, id, ss.GetTrainee)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	return nil, lane.InvalidField("traineeIds", "Name the group: tag (a name from list_tags) or traineeIds (ids or names, up to 200).")
}

type groupFormInput struct {
	Group
	assignFormInput
}

type groupPlanInput struct {
	Group
	assignPlanInput
}

func (a *Area) groupRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/groups/forms", "Send a form to every trainee of a tag or a list (up to 200): each one's send_form, idempotent, audited and dry-runnable on its own; the answer says per trainee what was done or why not.",
		func(c *lane.Call, in *groupFormInput) (lane.GroupAnswer, error) {
			return ForGroup(c, in.Group, "POST", "/trainees/{id}/forms/assign", func(string) any { return in.assignFormInput })
		}, lane.Tool("send_form_to_group"), lane.Fanout())
	lane.Add(rs, "POST", "/groups/subscriptions", "Assign a plan to every trainee of a tag or a list (up to 200): each one's assign_plan, idempotent, audited and dry-runnable on its own; the answer says per trainee what was done or why not.",
		func(c *lane.Call, in *groupPlanInput) (lane.GroupAnswer, error) {
			return ForGroup(c, in.Group, "POST", "/trainees/{id}/subscription", func(string) any { return in.assignPlanInput })
		}, lane.Tool("assign_plan_to_group"), lane.Fanout())
}

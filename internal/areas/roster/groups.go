package roster

import "github.com/otherwise/perform/internal/lane"

// Group writes: a form or a plan to a tag or a list of trainees in one
// call, each trainee's write the one-trainee route's (lane.ForEach).

type groupFormInput struct {
	lane.Group
	assignFormInput
}

type groupPlanInput struct {
	lane.Group
	assignPlanInput
}

func (a *Area) groupRoutes(rs *lane.Routes) {
	lane.Add(rs, "POST", "/groups/forms", "Send a form to every trainee of a tag or a list (up to 200): each one's send_form, idempotent, audited and dry-runnable on its own; the answer says per trainee what was done or why not.",
		func(c *lane.Call, in *groupFormInput) (lane.GroupAnswer, error) {
			return c.ForEach(in.Group, "POST", "/trainees/{id}/forms/assign", func(string) any { return in.assignFormInput })
		}, lane.Tool("send_form_to_group"), lane.Fanout())
	lane.Add(rs, "POST", "/groups/subscriptions", "Assign a plan to every trainee of a tag or a list (up to 200): each one's assign_plan, idempotent, audited and dry-runnable on its own; the answer says per trainee what was done or why not.",
		func(c *lane.Call, in *groupPlanInput) (lane.GroupAnswer, error) {
			return c.ForEach(in.Group, "POST", "/trainees/{id}/subscription", func(string) any { return in.assignPlanInput })
		}, lane.Tool("assign_plan_to_group"), lane.Fanout())
}

package public

import (
	"fmt"

	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/money"
	"github.com/otherwise/perform/internal/store"
)

// publicLimit bounds each list of the public offer: an agent reads it in
// one call, and a studio's plans and templates are few.
const publicLimit = 50

// publicPlan is a plan as a prospect sees it: no ids, nothing internal.
type publicPlan struct {
	Name         string       `json:"name"`
	Price        *money.Money `json:"price"`        // null: set per trainee; major units
	Currency     string       `json:"currency"`     // ISO code, with price
	DurationDays *int         `json:"durationDays"` // null: open-ended
}

// publicProgram is a program template by name.
type publicProgram struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Weeks       *int    `json:"weeks"`
}

// publicOffer is what an agent platform's key reads: the studio and what
// it offers, nothing about any person.
type publicOffer struct {
	Studio   string          `json:"studio"`
	Plans    []publicPlan    `json:"plans"`    // active plans
	Programs []publicProgram `json:"programs"` // program templates
	// Truncated: the studio has more plans or templates than one answer holds.
	Truncated bool   `json:"truncated"`
	HowToJoin string `json:"howToJoin"`
}

func (a *Area) platformRoutes(rs *lane.Routes) {
	lane.Add(rs, "GET", "/public/studio", "The studio's public offer for an agent platform's key: its name, active plans with prices and durations, program templates by name, and how to join.",
		func(c *lane.Call, _ *lane.NoInput) (publicOffer, error) {
			out := publicOffer{Studio: c.P.StudioName, Plans: []publicPlan{}, Programs: []publicProgram{}}
			plans, err := c.Studio().ListProducts(c.Ctx, "", store.Page{Limit: publicLimit})
			if err != nil {
				return out, err
			}
			for _, p := range plans.Items {
				if p.Active {
					out.Plans = append(out.Plans, publicPlan{Name: p.Name, Price: p.Price, Currency: p.Currency, DurationDays: p.DurationDays})
				}
			}
			templates, err := c.Studio().ListProgramTemplates(c.Ctx, "", store.Page{Limit: publicLimit})
			if err != nil {
				return out, err
			}
			for _, t := range templates.Items {
				out.Programs = append(out.Programs, publicProgram{Name: t.Name, Description: t.Description, Weeks: t.Weeks})
			}
			out.Truncated = plans.Total > len(plans.Items) || templates.Total > len(templates.Items)
			out.HowToJoin = fmt.Sprintf("To join %s, choose a plan and contact the studio: a coach signs new trainees up and starts their plan. A trainee already with the studio can verify their phone to see their own training.", c.P.StudioName)
			return out, nil
		}, lane.Platform())
	a.verifyRoutes(rs)
}

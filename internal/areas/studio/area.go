package studio

import (
	"github.com/otherwise/perform/internal/lane"
	"github.com/otherwise/perform/internal/modelbudget"
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

package studio

import "github.com/otherwise/perform/internal/lane"

// Area is the studio's routes.
type Area struct{}

// Routes adds the studio's routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.studioRoutes(rs)
	a.digestRoutes(rs)
}

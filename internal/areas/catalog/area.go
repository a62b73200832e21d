package catalog

import "github.com/otherwise/perform/internal/lane"

// Area is the catalogue's routes.
type Area struct{}

// Routes adds the catalogue's routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.catalogRoutes(rs)
	a.exerciseRoutes(rs)
	a.resourceRoutes(rs)
}

package health

import "github.com/otherwise/perform/internal/lane"

// Area is the health routes.
type Area struct{}

// Routes adds the health routes.
func (a *Area) Routes(rs *lane.Routes) { a.healthRoutes(rs); a.withdrawRoutes(rs) }

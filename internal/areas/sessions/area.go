package sessions

import "github.com/otherwise/perform/internal/lane"

// Area is the sessions' routes.
type Area struct{}

// Routes adds the sessions' and benchmarks' routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.sessionRoutes(rs)
	a.swapRoutes(rs)
}

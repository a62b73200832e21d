package roster

import "github.com/otherwise/perform/internal/lane"

// Area is the roster's routes.
type Area struct{}

// Routes adds the roster's routes.
func (a *Area) Routes(rs *lane.Routes) {
	a.traineeRoutes(rs)
	a.planRoutes(rs)
	a.traineeRecordRoutes(rs)
	a.insightRoutes(rs)
	a.rosterRoutes(rs)
	a.groupRoutes(rs)
	a.messageRoutes(rs)
	a.traineeSelfRoutes(rs)
}

package lane

// sessionRoutes: workout sessions, program structure and benchmarks.
func (l *Lane) sessionRoutes() {}

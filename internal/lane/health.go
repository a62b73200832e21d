package lane

// healthRoutes: body measurements, check-ins, injuries, goals and the training profile.
func (l *Lane) healthRoutes() {}

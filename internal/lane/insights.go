package lane

// insightRoutes: the read models (overview, debrief, insights, roster triage).
func (l *Lane) insightRoutes() {}

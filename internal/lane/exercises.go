package lane

// exerciseRoutes: the exercise catalogue.
func (l *Lane) exerciseRoutes() {}

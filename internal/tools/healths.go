package tools

// healthTools are the coach tools of the training memory's health area.
func healthTools() []spec {
	return nil
}

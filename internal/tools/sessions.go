package tools

// sessionTools are the coach tools of the training memory's session area.
func sessionTools() []spec {
	return nil
}

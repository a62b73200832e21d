package tools

// exerciseTools are the coach tools of the training memory's exercise area.
func exerciseTools() []spec {
	return nil
}

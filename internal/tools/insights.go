package tools

// insightTools are the coach tools of the training memory's insight area.
func insightTools() []spec {
	return nil
}

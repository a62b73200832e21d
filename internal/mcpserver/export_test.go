package mcpserver

// FastCalls is how many calls the fast path has answered in this process.
func FastCalls() int64 { return fastCalls.Load() }

package mcpserver

import (
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FastCalls is how many calls the fast path has answered in this process.
func FastCalls() int64 { return fastCalls.Load() }

// EndpointFor is the endpoint with srv as its only server, the fast path
// on: the floor a benchmark measures Perform's own part of a call against.
func EndpointFor(srv *mcp.Server) http.Handler {
	one := &served{server: srv, sdkOnly: map[string]bool{}}
	all := &servers{all: one, platform: one, by: map[string]*served{}}
	sdk := mcp.NewStreamableHTTPHandler(all.forRequest, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return &endpoint{next: sdk, servers: all, fast: true, logger: slog.New(slog.DiscardHandler)}
}

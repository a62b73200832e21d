package toolset

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/tools"
	"github.com/otherwise/perform/internal/tools/executor"
	"github.com/otherwise/perform/internal/views"
)

// viewMeta is a tool's _meta naming the view that draws its answer (MCP
// Apps): ui.resourceUri, and the flat ui/resourceUri key hosts written
// before the extension was stable still read. nil for a tool without one.
func viewMeta(t tools.Tool) mcp.Meta {
	if t.View == "" {
		return nil
	}
	return mcp.Meta{"ui": map[string]any{"resourceUri": t.View}, "ui/resourceUri": t.View}
}

// addViews lists and serves the views of the tools ex offers, each a
// resource of the MCP Apps MIME type read from the binary: a view holds no
// data (the host hands it the tool's result), so reading one calls no lane.
func addViews(s *mcp.Server, ex *executor.Executor) {
	seen := map[string]bool{}
	for _, t := range ex.Tools() {
		if t.View != "" {
			seen[t.View] = true
		}
	}
	for _, v := range views.All() {
		if !seen[v.URI] {
			continue
		}
		s.AddResource(&mcp.Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: views.MIMEType},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: v.URI, MIMEType: views.MIMEType, Text: v.HTML}}}, nil
			})
	}
}

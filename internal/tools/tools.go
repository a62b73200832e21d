// Package tools holds Perform's coach tool set as data: each tool is a
// description of one HTTP call to the automation lane. The hosted MCP
// server, the perform-mcp binary and the WhatsApp agent all read it; none
// of them touches the store.
package tools

import (
	"encoding/json"
	"net/url"

	"github.com/google/jsonschema-go/jsonschema"
)

// Request is one call to the lane: Method, Path relative to /v1/automation,
// optional query and JSON body.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   any
}

// Tool is one tool definition.
type Tool struct {
	Name        string
	Title       string
	Description string
	ReadOnly    bool
	InputSchema *jsonschema.Schema
	// Build decodes and validates the model's arguments and returns the lane call.
	Build func(args json.RawMessage) (Request, error)
}

package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// go-sdk v1.8.0 answers a message it refuses before dispatch (an unknown
// method or notification, a request without the params its method needs, a
// call to a notification, a payload that is not JSON-RPC) with a plain-text
// HTTP 400, and no option changes that on protocols before 2026-07-28.
// protocolErrors turns those answers into JSON-RPC errors in the protocol's
// shape: a call gets HTTP 200 and an error with its id, as for any failed
// call; a notification or unreadable message gets HTTP 400 and an error
// with a null id, as the Streamable HTTP transport allows.
type protocolErrors struct {
	http.ResponseWriter
	request   bytes.Buffer // the start of the request body, for its id and method
	intercept bool
	status    int
	text      bytes.Buffer
}

// maxKeptBody is how much of the request body is kept to read the id and
// method of a refused message; a message longer than that is answered with
// a null id.
const maxKeptBody = 64 << 10

func (p *protocolErrors) WriteHeader(status int) {
	if status == http.StatusBadRequest && strings.HasPrefix(p.Header().Get("Content-Type"), "text/plain") {
		p.intercept, p.status = true, status
		return
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *protocolErrors) Write(b []byte) (int, error) {
	if p.intercept {
		if p.text.Len() < 4096 {
			p.text.Write(b)
		}
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (p *protocolErrors) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// Flush passes flushes through, except of an answer being rewritten.
func (p *protocolErrors) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok && !p.intercept {
		f.Flush()
	}
}

// finish writes the JSON-RPC error for an intercepted answer.
func (p *protocolErrors) finish() {
	if !p.intercept {
		return
	}
	h := p.Header()
	h.Del("X-Content-Type-Options")
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	sdk := strings.TrimSpace(p.text.String())
	code, message := classify(sdk)
	single := json.Unmarshal(p.request.Bytes(), &msg) == nil && msg.Method != nil
	if single {
		message = fmt.Sprintf("Method %q: %s", *msg.Method, message)
	}
	id := json.RawMessage("null")
	status := http.StatusBadRequest
	if single && len(msg.ID) > 0 && string(msg.ID) != "null" && code != jsonrpc.CodeInvalidRequest {
		id, status = msg.ID, http.StatusOK
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, &jsonrpc.Error{Code: code, Message: message}})
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	p.ResponseWriter.WriteHeader(status)
	_, _ = p.ResponseWriter.Write(body)
}

// classify reads the SDK's plain-text refusal: its JSON-RPC code and a
// sentence saying what to fix.
func classify(sdk string) (int64, string) {
	switch {
	case strings.Contains(sdk, "JSON RPC not handled"):
		return jsonrpc.CodeMethodNotFound, "Perform's MCP server does not serve this method; it serves the methods of the MCP specification, tools/list and tools/call among them."
	case strings.Contains(sdk, `missing required "params"`):
		return jsonrpc.CodeInvalidParams, "This method needs params; for tools/call send {\"name\": <a tool from tools/list>, \"arguments\": {…}}."
	case strings.HasPrefix(sdk, "malformed payload"), strings.Contains(sdk, "non-empty body"):
		return jsonrpc.CodeParseError, "The request body is not a JSON-RPC 2.0 message; send one JSON object with jsonrpc \"2.0\", method and, for a call, an id."
	case strings.Contains(sdk, "missing id"):
		return jsonrpc.CodeInvalidRequest, "This method is a call and needs an id; without one it is read as a notification."
	case strings.Contains(sdk, "unexpected id"):
		return jsonrpc.CodeInvalidRequest, "This method is a notification and takes no id; send it without one."
	default:
		return jsonrpc.CodeInvalidRequest, "The MCP request was refused: " + strings.TrimSuffix(sdk, ".") + "."
	}
}

// bodyPrefix passes the request body through and keeps its first
// maxKeptBody bytes.
type bodyPrefix struct {
	io.ReadCloser
	keep *bytes.Buffer
}

func (b *bodyPrefix) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := maxKeptBody - b.keep.Len(); room > 0 && n > 0 {
		b.keep.Write(p[:min(n, room)])
	}
	return n, err
}

// Package mcpserver is the hosted MCP endpoint, POST /mcp: the coach tools
// (package toolset) over stateless Streamable HTTP, behind Perform's own
// bearer-shape check, with tool calls counted in the metrics.
package mcpserver

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/mcpserver/toolset"
	"github.com/otherwise/perform/internal/metrics"
	"github.com/otherwise/perform/internal/ratelimit"
	"github.com/otherwise/perform/internal/tools"
)

// Options configure the endpoint; see toolset.Options. OnToolCall defaults
// to counting calls in perform_mcp_tool_calls_total.
type Options = toolset.Options

// Instructions are sent to the client at initialize.
const Instructions = toolset.Instructions

// codeUnauthorized is the JSON-RPC error code of a refused credential
// (the implementation-defined server error range).
const codeUnauthorized = -32001

// UnauthorizedMessage tells a person without a key where to get one.
const UnauthorizedMessage = "Perform needs a studio API key as a bearer token (Authorization: Bearer pf_live_…). " +
	"Create one with `perform key create --studio SLUG --name NAME`, or on your studio's integrations page, and add it to your MCP client."

// StatelessMessage answers GET and DELETE: there is no stream or session.
const StatelessMessage = "This server is stateless; use POST."

// New returns the hosted endpoint for POST /mcp: stateless Streamable HTTP
// with JSON answers, every protocol version from 2024-11-05 to the newest
// the SDK speaks, DNS-rebinding and cross-origin protection on.
//
// On its own it checks only that the bearer token has a studio key's shape
// (the lane checks the key on each tool call); the server mounts it behind
// a Gate, which checks the key and counts the message against the rate
// limit before the SDK sees it.
func New(opts Options) http.Handler {
	if opts.OnToolCall == nil {
		opts.OnToolCall = metrics.ToolCall
	}
	servers := newServers(opts)
	streamable := mcp.NewStreamableHTTPHandler(
		servers.forRequest,
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger},
	)
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &endpoint{next: streamable, servers: servers, fast: !opts.SDKPathOnly, logger: logger}
}

type endpoint struct {
	next    http.Handler
	servers *servers
	// fast: a single tools/call takes the fast path (fastpath.go).
	fast   bool
	logger *slog.Logger
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Every answer names its request, so a report of a failure can be
	// found in the log.
	requestID := ids.New(ids.Request)
	w.Header().Set("X-Request-Id", requestID)
	tw := &trackingWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			e.logger.Error("mcp request panicked", "requestId", requestID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !tw.wrote {
				writeError(w, http.StatusInternalServerError, jsonrpc.CodeInternalError,
					"Perform failed unexpectedly while answering this MCP request (request "+requestID+"); try again.")
			}
		}
	}()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, StatelessMessage)
		return
	}
	if !originAllowed(r) {
		writeError(w, http.StatusForbidden, jsonrpc.CodeInvalidRequest,
			"Requests from the web page at "+r.Header.Get("Origin")+" are not accepted by this MCP server.")
		return
	}
	if token, ok := auth.Bearer(r.Header.Get("Authorization")); !ok || !strings.HasPrefix(token, auth.KeyPrefix) && !strings.HasPrefix(token, auth.AccessTokenPrefix) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="Perform", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, codeUnauthorized, UnauthorizedMessage)
		return
	}
	if e.fast && e.serveFast(tw, r) {
		return
	}
	// The SDK answers some malformed messages with plain text; they go out
	// as JSON-RPC errors (see protocolErrors).
	pw := &protocolErrors{ResponseWriter: tw}
	r.Body = &bodyPrefix{ReadCloser: r.Body, keep: &pw.request}
	e.next.ServeHTTP(pw, r)
	pw.finish()
}

// servers are the MCP servers of the endpoint: one with every coach tool
// for studio keys, one per set of scopes a coach's OAuth grant holds, and
// one per set of scopes a trainee's connection holds, with the trainee
// tools those scopes allow (built on first use; the sets are few).
type servers struct {
	opts Options
	all  *served
	// platform is an agent platform's key's: the public tools only.
	platform *served
	mu       sync.Mutex
	by       map[string]*served
}

// served is one MCP server and the tools whose calls only the SDK's
// handler answers (see sdkOnlyTools).
type served struct {
	server  *mcp.Server
	sdkOnly map[string]bool
}

func serve(opts Options) *served {
	return &served{server: toolset.NewServer(opts), sdkOnly: sdkOnlyTools(opts)}
}

// sdkOnlyTools are the tools of a set whose calls skip the fast path: one
// that sends notifications while it runs, or whose input schema binds an
// argument to an HTTP header (x-mcp-header), which the SDK's handler
// checks against the request's Mcp-Param-* headers.
func sdkOnlyTools(opts Options) map[string]bool {
	m := map[string]bool{}
	for _, t := range toolset.Executor(opts).Tools() {
		schema, _ := json.Marshal(t.InputSchema)
		if t.Notifies || strings.Contains(string(schema), "x-mcp-header") {
			m[t.Name] = true
		}
	}
	return m
}

func newServers(opts Options) *servers {
	// The trainee set is built here, so a trainee tool whose lane route
	// disagrees with it fails at start-up, not at a trainee's first call.
	tools.Trainee()
	platform := opts
	platform.Platform = true
	return &servers{opts: opts, all: serve(opts), platform: serve(platform), by: map[string]*served{}}
}

// forRequest picks the server for the principal the gate admitted r with.
func (s *servers) forRequest(r *http.Request) *mcp.Server { return s.pick(r).server }

// pick picks the server for the principal the gate admitted r with. A
// trainee never gets the coach set, whatever its credential.
func (s *servers) pick(r *http.Request) *served {
	admission, ok := auth.AdmissionFrom(r.Context())
	if !ok {
		return s.all
	}
	p := admission.Principal()
	trainee := p.IsTrainee()
	if p.Kind == auth.KindPlatformKey && !trainee {
		return s.platform
	}
	if p.Kind == auth.KindStudioKey && !trainee {
		return s.all
	}
	key := strings.Join(p.Scopes, " ")
	platform := p.Kind == auth.KindPlatformKey // here a verified conversation: a trainee
	if trainee {
		key = "trainee:" + key
	}
	if platform {
		key = "platform " + key
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	srv, ok := s.by[key]
	if !ok {
		opts := s.opts
		opts.Scopes = append([]string{}, p.Scopes...)
		opts.Trainee = trainee
		opts.Platform = platform
		srv = serve(opts)
		s.by[key] = srv
	}
	return srv
}

// originAllowed is the Origin half of DNS-rebinding protection (go-sdk
// checks the Host). Clients other than browsers send no Origin. A browser's
// Origin must name the host the request was sent to, or, when the server
// listens on loopback, any loopback name. Ports are not compared: a reverse
// proxy or TLS terminator in front changes them.
func originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Hostname(), hostname(r.Host)) {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && isLoopback(hostname(local.String())) && isLoopback(u.Hostname())
}

func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errorResponse is a JSON-RPC error that belongs to no request, so its id
// is null (the SDK's encoder leaves an unknown id out, which JSON-RPC 2.0
// does not allow).
type errorResponse struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      *struct{}      `json:"id"`
	Error   *jsonrpc.Error `json:"error"`
}

// codeRateLimited is the JSON-RPC error code of a request over the rate
// limit (the implementation-defined server error range).
const codeRateLimited = -32029

// DenyRateLimited answers a request over the rate limit as MCP clients
// expect: HTTP 429 (Retry-After is set) with a JSON-RPC error whose message
// says how long to wait.
func DenyRateLimited(w http.ResponseWriter, _ *http.Request, d ratelimit.Decision) {
	writeError(w, http.StatusTooManyRequests, codeRateLimited, d.Message())
}

// writeError answers with a JSON-RPC error that belongs to no request.
func writeError(w http.ResponseWriter, status int, code int64, message string) {
	body, _ := json.Marshal(errorResponse{JSONRPC: "2.0", Error: &jsonrpc.Error{Code: code, Message: message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// trackingWriter remembers whether an answer has begun, so a late failure
// does not write a second one.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(status int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(status)
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer (flushes).
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// Flush keeps streamed answers flowing through the wrapper.
func (t *trackingWriter) Flush() {
	t.wrote = true
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

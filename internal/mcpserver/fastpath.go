package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/segmentio/encoding/json"
)

// The fast path answers the one message that is most of the endpoint's
// traffic, a single tools/call, without the SDK's Streamable HTTP handler:
// go-sdk v1.8.0 decodes such a body nine times (thirteen for a 2026-07-28
// client, with the tool's input schema re-marshalled on every call), each
// decode with a fresh 32 KiB buffer. The fast path decodes the envelope
// once, with the parser and flags the SDK decodes with, and hands the
// request to the same mcp.Server over a one-shot mcp.Connection: the
// server still validates it, dispatches it and shapes the result. It then
// writes the reply with the headers and status the SDK's handler would.
//
// It takes a message only when every check the SDK's handler makes before
// dispatch is known to pass; anything else (another method, a
// notification, a batch, a header or body the SDK would refuse or treat
// specially, a call that may send notifications) goes to the SDK's handler
// untouched, with the body as it came. The differential test holds the two
// answers equal, request by request.

// maxDepth is the nesting the SDK's decoder accepts; the fast path takes a
// body only when it cannot nest deeper (it counts every opening bracket).
const maxDepth = 1000

// The headers the fast path reads.
const (
	protocolVersionHeader = "Mcp-Protocol-Version"
	methodHeader          = "Mcp-Method"
	nameHeader            = "Mcp-Name"
	lastEventIDHeader     = "Last-Event-Id"
	// version20260728 is the first version whose calls carry their version
	// in _meta and their method and name in headers.
	version20260728 = "2026-07-28"
	// defaultVersion is the version of a message sent without the header.
	defaultVersion = "2025-03-26"
	// progressTokenKey is the _meta key that asks for progress
	// notifications.
	progressTokenKey = "progressToken"
)

// sdkVersions are the protocol versions the SDK's handler serves.
var sdkVersions = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range mcp.SupportedProtocolVersions() {
		m[v] = true
	}
	return m
}()

// envelope is a JSON-RPC message as the SDK decodes it (jsonrpc2's wire
// form): the same fields and types, so the same bodies decode.
type envelope struct {
	VersionTag string          `json:"jsonrpc"`
	ID         json.RawMessage `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// callParams are mcp.CallToolParams as the SDK decodes them, with the raw
// parts left raw (a test holds the fields to the SDK's).
type callParams struct {
	Meta           map[string]any  `json:"_meta,omitempty"`
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments,omitempty"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   json.RawMessage `json:"requestState,omitempty"`
}

// parseFlags are the SDK's decoder flags: fields match case-sensitively.
const parseFlags = json.DontMatchCaseInsensitiveStructFields

// fastCall is a tools/call the fast path takes.
type fastCall struct {
	req     *jsonrpc.Request
	version string // the Mcp-Protocol-Version header, "" when absent
}

// fastCalls counts the calls the fast path answered (for the tests).
var fastCalls atomic.Int64

// bodyPool holds request-body buffers between calls.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// serveFast answers r when it is a call the fast path takes, and reports
// whether it did. When it did not, r.Body reads the body from its start.
func (e *endpoint) serveFast(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || !headersFit(r) {
		return false
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<10 {
			bodyPool.Put(buf)
		}
	}()
	_, err := buf.ReadFrom(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	body := buf.Bytes()
	if err != nil || int64(len(body)) > mcp.DefaultMaxRequestBodyBytes {
		r.Body = replay(body, r.Body, err)
		return false
	}
	srv := e.servers.pick(r)
	call, ok := parseCall(r, body, srv)
	if !ok {
		r.Body = replay(body, r.Body, nil)
		return false
	}
	e.dispatch(w, r, srv.server, call)
	return true
}

// headersFit reports whether the SDK's handler would pass r's headers on
// to its session, and would not treat the message specially for them.
func headersFit(r *http.Request) bool {
	if r.Method != http.MethodPost || len(r.Header.Values(lastEventIDHeader)) > 0 {
		return false
	}
	// The SDK refuses a Host that is not loopback on a loopback listener.
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if sdkLoopback(local.String()) && !sdkLoopback(r.Host) {
			return false
		}
	}
	if v := r.Header.Get(protocolVersionHeader); v != "" && !sdkVersions[v] {
		return false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	return acceptsBoth(r.Header.Values("Accept"))
}

// sdkLoopback is loopback as the SDK reads a host or address: the name
// localhost, exactly, or a loopback IP.
func sdkLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// acceptsBoth reports whether the Accept values take both JSON and an
// event stream (wildcards included), parameters aside.
func acceptsBoth(values []string) bool {
	jsonOK, streamOK := false, false
	for _, value := range values {
		for value != "" {
			var item string
			item, value, _ = strings.Cut(value, ",")
			base, _, _ := strings.Cut(item, ";")
			base = strings.TrimSpace(base)
			switch {
			case strings.EqualFold(base, "*/*"):
				jsonOK, streamOK = true, true
			case strings.EqualFold(base, "application/json"), strings.EqualFold(base, "application/*"):
				jsonOK = true
			case strings.EqualFold(base, "text/event-stream"), strings.EqualFold(base, "text/*"):
				streamOK = true
			}
		}
	}
	return jsonOK && streamOK
}

// parseCall decodes body once and reports whether it is a call the fast
// path takes: one tools/call with a plain id, which the SDK's handler
// would hand to the server as it is.
func parseCall(r *http.Request, body []byte, srv *served) (fastCall, bool) {
	if !shallow(body) {
		return fastCall{}, false
	}
	var env envelope
	rest, err := json.Parse(body, &env, parseFlags)
	if err != nil || len(bytes.TrimLeft(rest, " \t\r\n")) != 0 || env.VersionTag != "2.0" ||
		string(env.Method) != `"tools/call"` || len(env.Params) == 0 || env.Params[0] != '{' {
		return fastCall{}, false
	}
	id, ok := plainID(env.ID)
	if !ok {
		return fastCall{}, false
	}
	var p callParams
	if rest, err := json.Parse(env.Params, &p, parseFlags); err != nil || len(rest) != 0 ||
		len(p.InputResponses) > 0 || len(p.RequestState) > 0 || srv.sdkOnly[p.Name] {
		return fastCall{}, false
	}
	if _, ok := p.Meta[progressTokenKey]; ok {
		return fastCall{}, false
	}
	// A call that names a version in _meta, or is sent as 2026-07-28, must
	// name the same version in the header; the SDK answers a mismatch.
	version := r.Header.Get(protocolVersionHeader)
	metaVersion, _ := p.Meta[mcp.MetaKeyProtocolVersion].(string)
	if (version >= version20260728 || metaVersion != "") && (version == "" || version != metaVersion) {
		return fastCall{}, false
	}
	if version >= version20260728 {
		// The standard headers must name the method and the tool; the
		// SDK answers a missing or different one.
		if r.Header.Get(methodHeader) != "tools/call" || p.Name == "" || r.Header.Get(nameHeader) != p.Name {
			return fastCall{}, false
		}
	}
	req := &jsonrpc.Request{ID: id, Method: "tools/call", Params: bytes.Clone(env.Params)}
	req.Extra = &mcp.RequestExtra{
		TokenInfo: sdkauth.TokenInfoFromContext(r.Context()),
		Header:    r.Header,
		// Closing the stream early means nothing for an answer sent as
		// one JSON body; no Perform tool asks for it.
		CloseSSEStream: func(mcp.CloseSSEStreamArgs) {},
	}
	return fastCall{req: req, version: version}, true
}

// shallow reports whether body cannot nest deeper than the SDK accepts.
func shallow(body []byte) bool {
	return bytes.Count(body, []byte{'{'})+bytes.Count(body, []byte{'['}) <= maxDepth
}

// plainID reads an id that is a JSON integer the SDK keeps exactly, or a
// string without escapes; anything else is the SDK's to read.
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		s := raw[1 : len(raw)-1]
		for _, c := range s {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return jsonrpc.ID{}, false
			}
		}
		id, err := jsonrpc.MakeID(string(s))
		return id, err == nil
	}
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || digits[0] == '0' && len(raw) > 1 {
		return jsonrpc.ID{}, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return jsonrpc.ID{}, false
		}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// replay is a request body that reads what was read of it, then the rest
// (or the error reading it stopped on).
func replay(read []byte, rest io.ReadCloser, err error) io.ReadCloser {
	head := bytes.NewReader(bytes.Clone(read))
	if err != nil {
		return readCloser{io.MultiReader(head, errReader{err}), rest}
	}
	return readCloser{io.MultiReader(head, rest), rest}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// dispatch hands the call to srv over a one-shot connection and writes its
// answer as the SDK's handler writes one: JSON, not cached, with the
// status 2026-07-28 gives a protocol error.
func (e *endpoint) dispatch(w http.ResponseWriter, r *http.Request, srv *mcp.Server, call fastCall) {
	fastCalls.Add(1)
	ctx := r.Context()
	conn := &oneShot{in: call.req, reply: make(chan *jsonrpc.Response, 1), closed: make(chan struct{})}
	session, err := srv.Connect(ctx, conn, &mcp.ServerSessionOptions{State: sessionState(call.version)})
	if err != nil {
		e.logger.Error("mcp: connecting the session failed", "err", err)
		http.Error(w, "failed connection", http.StatusInternalServerError)
		return
	}
	defer session.Close()
	h := w.Header()
	h["Cache-Control"] = noCache
	h["Content-Type"] = jsonType
	var resp *jsonrpc.Response
	select {
	case resp = <-conn.reply:
	case <-ctx.Done():
		return
	}
	if status := errorStatus(call.version, resp); status != 0 {
		w.WriteHeader(status)
	}
	if writeResult(w, resp) {
		return
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		e.logger.Error("mcp: encoding the answer failed", "err", err)
		return
	}
	_, _ = w.Write(data)
}

// writeResult writes a successful answer with an integer id as
// jsonrpc.EncodeMessage would, without encoding it again: the SDK gives
// the result already compact (its encoder's output, HTML left unescaped),
// and EncodeMessage would only copy and re-scan it. It reports false for
// anything else (an error, a string id), which EncodeMessage writes.
func writeResult(w io.Writer, resp *jsonrpc.Response) bool {
	id, ok := resp.ID.Raw().(int64)
	if !ok || resp.Error != nil || len(resp.Result) == 0 {
		return false
	}
	buf := answerPool.Get().(*[]byte)
	b := append((*buf)[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"result":`...)
	b = append(b, resp.Result...)
	b = append(b, '}')
	_, _ = w.Write(b)
	if cap(b) <= 64<<10 {
		*buf = b
		answerPool.Put(buf)
	}
	return true
}

// answerPool holds answer buffers between calls.
var answerPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// noCache and jsonType are the answer's header values, shared: a value
// slice at its capacity is copied by any append.
var (
	noCache  = []string{"no-cache, no-transform"}[:1:1]
	jsonType = []string{"application/json"}[:1:1]
)

// sessionState is the state the SDK's handler gives a stateless session:
// for a version before 2026-07-28, an initialized session at info level;
// from 2026-07-28 on, none (each call carries its own).
func sessionState(version string) *mcp.ServerSessionState {
	if version >= version20260728 {
		return &mcp.ServerSessionState{}
	}
	if version == "" {
		version = defaultVersion
	}
	return &mcp.ServerSessionState{
		InitializeParams:  &mcp.InitializeParams{ProtocolVersion: version},
		InitializedParams: &mcp.InitializedParams{},
		LogLevel:          "info",
	}
}

// errorStatus is the HTTP status of a protocol error from 2026-07-28 on:
// 404 for an unknown method, 400 for bad params, an unsupported version
// or missing client capabilities; 0 keeps 200.
func errorStatus(version string, resp *jsonrpc.Response) int {
	if version < version20260728 || resp.Error == nil {
		return 0
	}
	var jerr *jsonrpc.Error
	if !errors.As(resp.Error, &jerr) {
		return 0
	}
	switch jerr.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return 0
}

// oneShot is an mcp.Transport and its mcp.Connection for one call: it
// reads the call once, then waits to be closed; it takes the call's
// response. A stateless server cannot make requests, and a call the fast
// path takes sends no notifications (see served.sdkOnly), so any other
// message written is dropped.
type oneShot struct {
	in     *jsonrpc.Request
	reply  chan *jsonrpc.Response
	mu     sync.Mutex
	read   bool
	closed chan struct{}
	once   sync.Once
}

func (c *oneShot) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *oneShot) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	first := !c.read
	c.read = true
	c.mu.Unlock()
	if first {
		return c.in, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *oneShot) Write(_ context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID == c.in.ID {
		select {
		case c.reply <- resp:
		default:
		}
	}
	return nil
}

func (c *oneShot) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *oneShot) SessionID() string { return "" }

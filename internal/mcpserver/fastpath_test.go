package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/laneclient"
	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// The fast path is held to the SDK's handler: every request of the corpus,
// for every protocol version, is answered by the endpoint with the fast
// path and by the endpoint without it, and the two answers must be equal
// in status, headers and body (X-Request-Id, a fresh id per request, is the
// one header compared by presence only). Run again on every go-sdk
// upgrade: it runs in `go test ./...`.

// wire is one HTTP request of the corpus.
type wire struct {
	name    string
	method  string
	body    string
	header  map[string]string // "" deletes a default header
	host    string
	local   bool // the request arrived on a loopback listener
	fast    bool // the fast path must take it
	version string
}

// newMeta is the _meta a 2026-07-28 client sends with each call.
func newMeta(version string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"claude-ai","version":"0.1.0"}}`
}

// corpus is the requests sent as a client of version speaks (version ""
// sends no Mcp-Protocol-Version header).
func corpus(version, trainee, otherStudioTrainee string) []wire {
	modern := version >= "2026-07-28"
	meta := ""
	if modern {
		meta = newMeta(version) + ","
	}
	call := func(id, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + meta + `"name":"` + name + `","arguments":` + args + `}}`
	}
	get := `{"traineeId":"` + trainee + `"}`
	std := func(name string) map[string]string {
		if !modern {
			return nil
		}
		return map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": name}
	}
	with := func(h map[string]string, k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range h {
			m[a] = b
		}
		m[k] = v
		return m
	}
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	shallowNest := strings.Repeat("[", 990) + strings.Repeat("]", 990)
	cs := []wire{
		{name: "get_trainee, integer id", body: call("1", "get_trainee", get), header: std("get_trainee"), fast: true},
		{name: "get_trainee, string id", body: call(`"call-7"`, "get_trainee", get), header: std("get_trainee"), fast: true},
		{name: "get_trainee, negative id", body: call("-42", "get_trainee", get), header: std("get_trainee"), fast: true},
		{name: "get_trainee, zero id", body: call("0", "get_trainee", get), header: std("get_trainee"), fast: true},
		{name: "get_trainee, whitespace around", body: " \n\t" + call("2", "get_trainee", get) + " \r\n", header: std("get_trainee"), fast: true},
		{name: "another studio's trainee", body: call("3", "get_trainee", `{"traineeId":"`+otherStudioTrainee+`"}`), header: std("get_trainee"), fast: true},
		{name: "arguments missing a field", body: call("4", "get_trainee", `{}`), header: std("get_trainee"), fast: true},
		{name: "arguments of the wrong type", body: call("5", "get_trainee", `[1,2]`), header: std("get_trainee"), fast: true},
		{name: "unknown tool", body: call("6", "no_such_tool", `{}`), header: std("no_such_tool"), fast: true},
		{name: "list_trainees", body: call("8", "list_trainees", `{"limit":2}`), header: std("list_trainees"), fast: true},
		{name: "charset in Content-Type", body: call("9", "get_trainee", get), header: with(std("get_trainee"), "Content-Type", "application/json; charset=utf-8"), fast: true},
		{name: "Accept */*", body: call("10", "get_trainee", get), header: with(std("get_trainee"), "Accept", "*/*"), fast: true},
		{name: "Accept wildcards by type", body: call("11", "get_trainee", get), header: with(std("get_trainee"), "Accept", "application/*;q=0.9, TEXT/*"), fast: true},
		{name: "loopback host on a loopback listener", body: call("12", "get_trainee", get), header: std("get_trainee"), local: true, host: "localhost:8080", fast: true},
		{name: "nesting under the limit", body: call("13", "get_trainee", `{"traineeId":"`+trainee+`","x":`+shallowNest+`}`), header: std("get_trainee"), fast: true},
		{name: "case-different field names are ignored", body: `{"jsonrpc":"2.0","id":14,"method":"tools/call","Method":"initialize","params":{` + meta + `"name":"get_trainee","Name":"x","arguments":` + get + `}}`, header: std("get_trainee"), fast: true},

		// What the fast path leaves to the SDK's handler.
		{name: "other host on a loopback listener", body: call("20", "get_trainee", get), header: std("get_trainee"), local: true, host: "evil.example"},
		{name: "LOCALHOST on a loopback listener", body: call("21", "get_trainee", get), header: std("get_trainee"), local: true, host: "LOCALHOST"},
		{name: "fractional id", body: call("1.5", "get_trainee", get), header: std("get_trainee")},
		{name: "exponent id", body: call("1e2", "get_trainee", get), header: std("get_trainee")},
		{name: "minus zero id", body: call("-0", "get_trainee", get), header: std("get_trainee")},
		{name: "huge id", body: call("9007199254740993", "get_trainee", get), header: std("get_trainee")},
		{name: "null id", body: call("null", "get_trainee", get), header: std("get_trainee")},
		{name: "boolean id", body: call("true", "get_trainee", get), header: std("get_trainee")},
		{name: "object id", body: call(`{"a":1}`, "get_trainee", get), header: std("get_trainee")},
		{name: "escaped string id", body: call(`"a\"b"`, "get_trainee", get), header: std("get_trainee")},
		{name: "unicode string id", body: call(`"קריאה"`, "get_trainee", get), header: std("get_trainee")},
		{name: "no id", body: `{"jsonrpc":"2.0","method":"tools/call","params":{` + meta + `"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee")},
		{name: "method in another case", body: strings.Replace(call("30", "get_trainee", get), `"tools/call"`, `"Tools/call"`, 1), header: std("get_trainee")},
		{name: "escaped method", body: strings.Replace(call("31", "get_trainee", get), `"tools/call"`, `"tools\/call"`, 1), header: std("get_trainee")},
		{name: "method twice", body: `{"jsonrpc":"2.0","id":32,"method":"tools/call","method":"tools/list","params":{}}`, header: std("get_trainee")},
		{name: "method twice, call last", body: `{"jsonrpc":"2.0","id":33,"method":"tools/list","method":"tools/call","params":{` + meta + `"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee"), fast: true},
		{name: "params twice", body: `{"jsonrpc":"2.0","id":34,"method":"tools/call","params":{"name":"nope"},"params":{` + meta + `"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee"), fast: true},
		{name: "jsonrpc 1.0", body: strings.Replace(call("35", "get_trainee", get), `"2.0"`, `"1.0"`, 1), header: std("get_trainee")},
		{name: "no jsonrpc", body: `{"id":36,"method":"tools/call","params":{"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee")},
		{name: "params an array", body: `{"jsonrpc":"2.0","id":37,"method":"tools/call","params":["get_trainee"]}`, header: std("get_trainee")},
		{name: "params null", body: `{"jsonrpc":"2.0","id":38,"method":"tools/call","params":null}`, header: std("get_trainee")},
		{name: "no params", body: `{"jsonrpc":"2.0","id":39,"method":"tools/call"}`, header: std("get_trainee")},
		{name: "name not a string", body: `{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{` + meta + `"name":7}}`, header: std("get_trainee")},
		{name: "error field of the wrong shape", body: `{"jsonrpc":"2.0","id":41,"method":"tools/call","error":5,"params":{"name":"get_trainee"}}`, header: std("get_trainee")},
		{name: "batch of one call", body: "[" + call("42", "get_trainee", get) + "]", header: std("get_trainee")},
		{name: "empty batch", body: "[]", header: std("get_trainee")},
		{name: "trailing garbage", body: call("43", "get_trainee", get) + " x", header: std("get_trainee")},
		{name: "two messages", body: call("44", "get_trainee", get) + call("45", "get_trainee", get), header: std("get_trainee")},
		{name: "nesting over the limit", body: call("46", "get_trainee", `{"traineeId":"`+trainee+`","x":`+deep+`}`), header: std("get_trainee")},
		{name: "not JSON", body: `{"jsonrpc":"2.0","id":47,"method":"tools/call",`, header: std("get_trainee")},
		{name: "empty body", body: ``, header: std("get_trainee")},
		{name: "invalid UTF-8 in arguments", body: call("48", "get_trainee", "{\"traineeId\":\"\xff\xfe\"}"), header: std("get_trainee"), fast: true},
		{name: "Content-Type text/plain", body: call("49", "get_trainee", get), header: with(std("get_trainee"), "Content-Type", "text/plain")},
		{name: "Content-Type in capitals", body: call("50", "get_trainee", get), header: with(std("get_trainee"), "Content-Type", "APPLICATION/JSON"), fast: true},
		{name: "no Content-Type", body: call("51", "get_trainee", get), header: with(std("get_trainee"), "Content-Type", "")},
		{name: "Accept JSON only", body: call("52", "get_trainee", get), header: with(std("get_trainee"), "Accept", "application/json")},
		{name: "no Accept", body: call("53", "get_trainee", get), header: with(std("get_trainee"), "Accept", "")},
		{name: "Last-Event-ID", body: call("54", "get_trainee", get), header: with(std("get_trainee"), "Last-Event-ID", "abc_1")},
		{name: "progress token", body: `{"jsonrpc":"2.0","id":55,"method":"tools/call","params":{"_meta":{"progressToken":"p1"},"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee")},
		{name: "inputResponses", body: `{"jsonrpc":"2.0","id":56,"method":"tools/call","params":{` + meta + `"name":"get_trainee","arguments":` + get + `,"inputResponses":{}}}`, header: std("get_trainee")},
		{name: "requestState", body: `{"jsonrpc":"2.0","id":57,"method":"tools/call","params":{` + meta + `"name":"get_trainee","arguments":` + get + `,"requestState":"s"}}`, header: std("get_trainee")},
		{name: "_meta not an object", body: `{"jsonrpc":"2.0","id":58,"method":"tools/call","params":{"_meta":5,"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee")},
		{name: "_meta names 2026-07-28", body: `{"jsonrpc":"2.0","id":59,"method":"tools/call","params":{` + newMeta("2026-07-28") + `,"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee"), fast: version == "2026-07-28"},
		{name: "_meta names 2025-11-25", body: `{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{` + newMeta("2025-11-25") + `,"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee"), fast: version == "2025-11-25"},
		{name: "_meta without capabilities", body: `{"jsonrpc":"2.0","id":61,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get_trainee","arguments":` + get + `}}`, header: std("get_trainee"), fast: version == "2026-07-28"},
		{name: "unsupported version header", body: call("62", "get_trainee", get), header: with(std("get_trainee"), "Mcp-Protocol-Version", "1999-01-01")},
		{name: "future version header", body: `{"jsonrpc":"2.0","id":63,"method":"tools/call","params":{` + newMeta("2099-01-01") + `,"name":"get_trainee","arguments":` + get + `}}`,
			header: map[string]string{"Mcp-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/call", "Mcp-Name": "get_trainee"}},
		{name: "Mcp-Method missing", body: call("64", "get_trainee", get), header: with(std("get_trainee"), "Mcp-Method", ""), fast: !modern},
		{name: "Mcp-Method different", body: call("65", "get_trainee", get), header: with(std("get_trainee"), "Mcp-Method", "tools/list"), fast: !modern},
		{name: "Mcp-Name missing", body: call("66", "get_trainee", get), header: with(std("get_trainee"), "Mcp-Name", ""), fast: !modern},
		{name: "Mcp-Name different", body: call("67", "get_trainee", get), header: with(std("get_trainee"), "Mcp-Name", "list_trainees"), fast: !modern},
		{name: "Mcp-Param header the tool does not bind", body: call("68", "get_trainee", get), header: with(std("get_trainee"), "Mcp-Param-TraineeId", "x"), fast: true},

		// Other methods, notifications, other HTTP methods.
		{name: "initialize", body: `{"jsonrpc":"2.0","id":70,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":71,"method":"tools/list","params":{` + strings.TrimSuffix(meta, ",") + `}}`, header: map[string]string{"Mcp-Method": "tools/list"}},
		{name: "server/discover", body: `{"jsonrpc":"2.0","id":72,"method":"server/discover","params":{` + strings.TrimSuffix(meta, ",") + `}}`, header: map[string]string{"Mcp-Method": "server/discover"}},
		{name: "ping", body: `{"jsonrpc":"2.0","id":73,"method":"ping"}`, header: map[string]string{"Mcp-Method": "ping"}},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: map[string]string{"Mcp-Method": "notifications/initialized"}},
		{name: "GET", method: http.MethodGet},
		{name: "DELETE", method: http.MethodDelete},
		{name: "no bearer token", body: call("74", "get_trainee", get), header: with(std("get_trainee"), "Authorization", "")},
	}
	for i := range cs {
		cs[i].version = version
	}
	return cs
}

func (c wire) request(key string) *http.Request {
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	r := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(c.body))
	if c.host != "" {
		r.Host = c.host
	}
	r.Header.Set("Authorization", "Bearer "+key)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if c.version != "" {
		r.Header.Set("Mcp-Protocol-Version", c.version)
	}
	for k, v := range c.header {
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	if c.local {
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	}
	return r
}

// endpoints are the endpoint with the fast path and without it, on one
// lane in process.
func endpoints(t testing.TB, f *mcptest.Fixture) (fast, sdk http.Handler) {
	client := laneclient.New("http://perform.internal", laneclient.HandlerTransport(f.Lane), "mcp")
	fast = mcpserver.New(mcpserver.Options{Client: client, Logger: mcptest.Quiet()})
	sdk = mcpserver.New(mcpserver.Options{Client: client, Logger: mcptest.Quiet(), SDKPathOnly: true})
	return fast, sdk
}

var protocolVersions = []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func TestFastPathAnswersAsTheSDK(t *testing.T) {
	f := mcptest.New(t)
	fast, sdk := endpoints(t, f)
	for _, version := range protocolVersions {
		for _, c := range corpus(version, f.A.TraineeID, f.B.TraineeID) {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				want := httptest.NewRecorder()
				sdk.ServeHTTP(want, c.request(f.A.Key))
				before := mcpserver.FastCalls()
				got := httptest.NewRecorder()
				fast.ServeHTTP(got, c.request(f.A.Key))
				if took := mcpserver.FastCalls() > before; took != c.fast {
					t.Errorf("the fast path took it: %v, want %v", took, c.fast)
				}
				compareAnswers(t, got, want)
			})
		}
	}
}

// compareAnswers fails t unless got and want are the same answer.
func compareAnswers(t *testing.T, got, want *httptest.ResponseRecorder) {
	t.Helper()
	if got.Code != want.Code {
		t.Errorf("status %d, the SDK's %d", got.Code, want.Code)
	}
	if got.Body.String() != want.Body.String() {
		t.Errorf("body\n%s\nthe SDK's\n%s", got.Body, want.Body)
	}
	gh, wh := got.Header().Clone(), want.Header().Clone()
	if (gh.Get("X-Request-Id") == "") != (wh.Get("X-Request-Id") == "") {
		t.Errorf("X-Request-Id %q, the SDK's %q", gh.Get("X-Request-Id"), wh.Get("X-Request-Id"))
	}
	gh.Del("X-Request-Id")
	wh.Del("X-Request-Id")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range wh {
			if !yield(k) {
				return
			}
		}
		for k := range gh {
			if _, ok := wh[k]; !ok && !yield(k) {
				return
			}
		}
	}) {
		if !slices.Equal(gh[k], wh[k]) {
			t.Errorf("header %s: %q, the SDK's %q", k, gh[k], wh[k])
		}
	}
}

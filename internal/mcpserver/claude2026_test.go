package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// Claude's clients speaking 2026-07-28, as regression tests. Each answer
// is what go-sdk v1.8.0's handler gives (the endpoint with the fast path
// off), and the endpoint with the fast path must give the same.

// answerBoth sends c to the endpoint with the fast path and without it,
// fails t unless the two answers are equal, and returns the answer.
func answerBoth(t *testing.T, f *mcptest.Fixture, c wire) (*httptest.ResponseRecorder, rpcAnswer) {
	t.Helper()
	fast, sdk := endpoints(t, f)
	want := httptest.NewRecorder()
	sdk.ServeHTTP(want, c.request(f.A.Key))
	got := httptest.NewRecorder()
	fast.ServeHTTP(got, c.request(f.A.Key))
	compareAnswers(t, got, want)
	var a rpcAnswer
	if err := json.Unmarshal(got.Body.Bytes(), &a); err != nil {
		t.Fatalf("%s: the answer is not JSON: %d %q", c.name, got.Code, got.Body)
	}
	return got, a
}

func call2026(id, name, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + newMeta("2026-07-28") + `,"name":"` + name + `","arguments":` + args + `}}`
}

// A reconnecting client opens with server/discover alone (no initialize),
// then calls a tool; over TCP, behind the gate, as perform serve mounts it.
func TestClaudeReconnectOpensWithDiscoverAlone(t *testing.T) {
	f := mcptest.New(t)
	url := f.URL + mcptest.GatedPath
	h2026 := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	a := post(t, "POST", url, f.A.Key, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+newMeta("2026-07-28")+`}}`, h2026)
	var d struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if a.status != http.StatusOK || json.Unmarshal(a.Result, &d) != nil || !slices.Contains(d.SupportedVersions, "2026-07-28") || !slices.Contains(d.SupportedVersions, "2025-11-25") {
		t.Fatalf("server/discover: %d %s %+v", a.status, a.Result, a.Error)
	}
	// The fast path takes every version the SDK speaks (it falls back on
	// any other); a server narrowed to fewer versions would need it to
	// narrow too.
	if !slices.Equal(d.SupportedVersions, mcp.SupportedProtocolVersions()) {
		t.Errorf("the server speaks %v; the fast path takes %v", d.SupportedVersions, mcp.SupportedProtocolVersions())
	}
	before := mcpserver.FastCalls()
	h2026["Mcp-Method"], h2026["Mcp-Name"] = "tools/call", "get_trainee"
	a = post(t, "POST", url, f.A.Key, call2026("2", "get_trainee", `{"traineeId":"`+f.A.TraineeID+`"}`), h2026)
	if a.status != http.StatusOK || a.Error != nil || !strings.Contains(string(a.Result), f.A.TraineeLastName) ||
		!strings.Contains(string(a.Result), `"io.modelcontextprotocol/serverInfo"`) {
		t.Fatalf("tools/call after discover: %d %s %+v", a.status, a.Result, a.Error)
	}
	if mcpserver.FastCalls() == before {
		t.Error("the call after discover did not take the fast path")
	}
	// The same two messages, both ways, answer alike.
	answerBoth(t, f, wire{name: "discover", version: "2026-07-28", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + newMeta("2026-07-28") + `}}`,
		header: map[string]string{"Mcp-Method": "server/discover"}})
	answerBoth(t, f, wire{name: "call", version: "2026-07-28", body: call2026("2", "get_trainee", `{"traineeId":"`+f.A.TraineeID+`"}`),
		header: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_trainee"}})
}

// Mcp-Method and Mcp-Name must name the body's method and tool: a
// mismatch is HTTP 400 with -32020; a version the server does not speak
// is HTTP 400 with -32022.
func TestClaudeStandardHeaders(t *testing.T) {
	f := mcptest.New(t)
	get := `{"traineeId":"` + f.A.TraineeID + `"}`
	for _, tc := range []struct {
		name    string
		version string
		body    string
		header  map[string]string
		status  int
		code    int
	}{
		{"headers name the call", "2026-07-28", call2026("1", "get_trainee", get), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_trainee"}, 200, 0},
		{"Mcp-Name names another tool", "2026-07-28", call2026("2", "get_trainee", get), map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "list_trainees"}, 400, -32020},
		{"Mcp-Method names another method", "2026-07-28", call2026("3", "get_trainee", get), map[string]string{"Mcp-Method": "tools/list", "Mcp-Name": "get_trainee"}, 400, -32020},
		{"Mcp-Method missing", "2026-07-28", call2026("4", "get_trainee", get), map[string]string{"Mcp-Name": "get_trainee"}, 400, -32020},
		{"Mcp-Name missing", "2026-07-28", call2026("5", "get_trainee", get), map[string]string{"Mcp-Method": "tools/call"}, 400, -32020},
		{"unsupported version", "2099-01-01", strings.ReplaceAll(call2026("6", "get_trainee", get), "2026-07-28", "2099-01-01"),
			map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_trainee"}, 400, -32022},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, a := answerBoth(t, f, wire{name: tc.name, version: tc.version, body: tc.body, header: tc.header})
			code := 0
			if a.Error != nil {
				code = a.Error.Code
			}
			if w.Code != tc.status || code != tc.code {
				t.Errorf("%d %d, want %d %d: %s", w.Code, code, tc.status, tc.code, w.Body)
			}
		})
	}
}

// A client that negotiated 2025-11-25 and then sends the 2026-07-28
// version header: a call without the 2026-07-28 _meta is refused (400,
// -32602, the _meta is missing), one whose _meta still says 2025-11-25 is
// a version mismatch (400, -32020), and one that speaks 2026-07-28 whole
// is answered.
func TestClaudeNegotiated20251125ThenSends2026Header(t *testing.T) {
	f := mcptest.New(t)
	get := `{"traineeId":"` + f.A.TraineeID + `"}`
	w, a := answerBoth(t, f, wire{name: "initialize", body: initialize("2025-11-25")})
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if w.Code != 200 || json.Unmarshal(a.Result, &init) != nil || init.ProtocolVersion != "2025-11-25" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	std := map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_trainee"}
	legacyMeta := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + newMeta("2025-11-25") + `,"name":"get_trainee","arguments":` + get + `}}`
	for _, tc := range []struct {
		name, body string
		status     int
		code       int
	}{
		{"no _meta", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_trainee","arguments":` + get + `}}`, 400, -32602},
		{"_meta of 2025-11-25", legacyMeta, 400, -32020},
		{"2026-07-28 whole", call2026("4", "get_trainee", get), 200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, a := answerBoth(t, f, wire{name: tc.name, version: "2026-07-28", body: tc.body, header: std})
			code := 0
			if a.Error != nil {
				code = a.Error.Code
			}
			if w.Code != tc.status || code != tc.code {
				t.Errorf("%d %d, want %d %d: %s", w.Code, code, tc.status, tc.code, w.Body)
			}
		})
	}
	// The 2025-11-25 header, as negotiated, is answered as before.
	w, a = answerBoth(t, f, wire{name: "legacy call", version: "2025-11-25", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_trainee","arguments":` + get + `}}`})
	if w.Code != 200 || a.Error != nil || !strings.Contains(string(a.Result), f.A.TraineeLastName) {
		t.Errorf("2025-11-25 call: %d %s", w.Code, w.Body)
	}
}

package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
	"github.com/otherwise/perform/internal/tools"
)

// rpcAnswer is a JSON-RPC answer as a plain client reads it.
type rpcAnswer struct {
	status  int
	header  http.Header
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one raw request the way a minimal client (Perfox) does: plain
// POSTs, no session id.
func post(t *testing.T, method, url, token, body string, header map[string]string) rpcAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := rpcAnswer{status: resp.StatusCode, header: resp.Header}
	if len(bytes.TrimSpace(raw)) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %q", method, url, raw)
		}
	}
	if a.Result == nil && a.Error == nil && resp.StatusCode != http.StatusAccepted && resp.StatusCode < 400 {
		t.Fatalf("%s %s: %d %q", method, url, resp.StatusCode, raw)
	}
	return a
}

func initialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"perfox","version":"1.0"}}}`
}

func TestRawClientWithPlainPOSTs(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	url := f.URL + "/mcp"
	init := post(t, "POST", url, f.A.Key, initialize("2024-11-05"), nil)
	var ir struct {
		ProtocolVersion string                `json:"protocolVersion"`
		ServerInfo      struct{ Name string } `json:"serverInfo"`
		Instructions    string                `json:"instructions"`
	}
	if init.status != 200 || json.Unmarshal(init.Result, &ir) != nil || ir.ProtocolVersion != "2024-11-05" || ir.ServerInfo.Name != "perform" || ir.Instructions == "" {
		t.Fatalf("initialize: %d %s", init.status, init.Result)
	}
	if id := init.header.Get("Mcp-Session-Id"); id != "" {
		t.Errorf("stateless server handed out session id %q", id)
	}
	if a := post(t, "POST", url, f.A.Key, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); a.status != http.StatusAccepted {
		t.Errorf("notifications/initialized: %d", a.status)
	}

	list := post(t, "POST", url, f.A.Key, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	var lr struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint    bool  `json:"readOnlyHint"`
				DestructiveHint *bool `json:"destructiveHint"`
				OpenWorldHint   *bool `json:"openWorldHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(list.Result, &lr) != nil || len(lr.Tools) != len(tools.All()) {
		t.Fatalf("tools/list: %s", list.Result)
	}
	for _, tool := range lr.Tools {
		a := tool.Annotations
		wantReadOnly := !strings.HasPrefix(tool.Name, "create_") && !strings.HasPrefix(tool.Name, "update_") &&
			!strings.HasPrefix(tool.Name, "assign_") && tool.Name != "send_form" && tool.Name != "send_form_to_group" && !strings.HasPrefix(tool.Name, "log_") &&
			!strings.HasPrefix(tool.Name, "modify_") && !strings.HasPrefix(tool.Name, "swap_") && !strings.HasPrefix(tool.Name, "record_") &&
			!strings.HasPrefix(tool.Name, "draft_") && !strings.HasPrefix(tool.Name, "apply_") && !strings.HasPrefix(tool.Name, "book_") &&
			!strings.HasPrefix(tool.Name, "cancel_") && !strings.HasPrefix(tool.Name, "mark_")
		// Every hint is on the wire: nothing is destructive, nothing reaches outside the studio.
		if a.ReadOnlyHint != wantReadOnly || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations on the wire %+v", tool.Name, a)
		}
	}

	callBody := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_trainee","arguments":{"traineeId":"` + f.A.TraineeID + `"}}}`
	res := post(t, "POST", url, f.A.Key, callBody, nil)
	var cr struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	}
	if json.Unmarshal(res.Result, &cr) != nil || cr.IsError || len(cr.Content) != 1 || cr.Content[0].Type != "text" ||
		!strings.Contains(cr.Content[0].Text, f.A.TraineeID) || cr.StructuredContent["id"] != f.A.TraineeID {
		t.Fatalf("tools/call get_trainee: %s", res.Result)
	}

	bad := post(t, "POST", url, f.A.Key, strings.Replace(callBody, f.A.TraineeID, f.B.TraineeID, 1), nil)
	if json.Unmarshal(bad.Result, &cr) != nil || !cr.IsError || !strings.Contains(cr.Content[0].Text, "search_trainees") {
		t.Fatalf("tools/call with another studio's id: %s", bad.Result)
	}
}

func TestEveryProtocolVersionFrom20241105(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	versions := mcp.SupportedProtocolVersions()
	if !strings.HasPrefix(versions[len(versions)-1], "2024-11-05") {
		t.Fatalf("the SDK no longer speaks 2024-11-05: %v", versions)
	}
	for _, v := range versions {
		if v >= "2026" {
			continue // the stateless protocol has no initialize; the SDK client below speaks it
		}
		a := post(t, "POST", f.URL+"/mcp", f.A.Key, initialize(v), nil)
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(a.Result, &ir) != nil || ir.ProtocolVersion != v {
			t.Errorf("initialize %s: %d %s", v, a.status, a.Result)
		}
		list := post(t, "POST", f.URL+"/mcp", f.A.Key, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": v})
		if list.Error != nil || !strings.Contains(string(list.Result), "log_weight") {
			t.Errorf("tools/list at %s: %+v %s", v, list.Error, list.Result)
		}
	}
	cs := mcptest.Connect(t, f.URL+"/mcp", f.A.Key)
	t.Logf("the SDK client negotiated %s", cs.InitializeResult().ProtocolVersion)
	if res := mcptest.Call(t, cs, "get_trainee", map[string]any{"traineeId": f.A.TraineeID}); res.IsError {
		t.Errorf("SDK client: %s", mcptest.Text(res))
	}
}

func TestMissingOrMalformedKeyIs401WithWhereToGetOne(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	for _, token := range []string{"", "sk_live_abc", "pf_test_abc", "Basic"} {
		a := post(t, "POST", f.URL+"/mcp", token, initialize("2025-06-18"), nil)
		if a.status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d", token, a.status)
			continue
		}
		if got := a.header.Get("WWW-Authenticate"); got != `Bearer realm="Perform", error="invalid_token"` {
			t.Errorf("token %q: WWW-Authenticate %q", token, got)
		}
		if a.JSONRPC != "2.0" || string(a.ID) != "null" || a.Error == nil || a.Error.Code != -32001 ||
			!strings.Contains(a.Error.Message, "perform key create --studio SLUG --name NAME") ||
			!strings.Contains(a.Error.Message, "integrations page") {
			t.Errorf("token %q: error %+v", token, a.Error)
		}
	}
}

func TestGetAndDeleteAre405(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	for _, method := range []string{"GET", "DELETE"} {
		a := post(t, method, f.URL+"/mcp", f.A.Key, "", nil)
		if a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "POST" ||
			a.Error == nil || a.Error.Message != "This server is stateless; use POST." {
			t.Errorf("%s: %d Allow=%q %+v", method, a.status, a.header.Get("Allow"), a.Error)
		}
	}
}

func TestForeignHostAndOriginAreRefused(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	for name, header := range map[string]map[string]string{
		"DNS rebinding": {"Host": "evil.example"},
		"cross origin":  {"Origin": "https://evil.example"},
	} {
		if a := post(t, "POST", f.URL+"/mcp", f.A.Key, initialize("2025-06-18"), header); a.status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, a.status)
		}
	}
	for _, header := range []map[string]string{
		{"Host": "localhost"},
		{"Origin": "http://localhost:1234"}, // a loopback page, through a proxy on another port
		{"Origin": strings.Replace(f.URL, "127.0.0.1", "LOCALHOST", 1)},
	} {
		if a := post(t, "POST", f.URL+"/mcp", f.A.Key, initialize("2025-06-18"), header); a.status != 200 {
			t.Errorf("%v: status %d", header, a.status)
		}
	}
}

// A tool that fails unexpectedly answers JSON-RPC -32603, and the server
// keeps serving.
func TestAToolPanicIsAnInternalError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mcpserver.New(mcpserver.Options{Logger: mcptest.Quiet()})) // no lane client: every call panics
	defer srv.Close()
	key := "pf_live_" + strings.Repeat("k", 43)
	a := post(t, "POST", srv.URL, key, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_tags","arguments":{}}}`, nil)
	if a.Error == nil || a.Error.Code != -32603 || !strings.Contains(a.Error.Message, "list_tags") {
		t.Fatalf("tool panic: %d %+v %s", a.status, a.Error, a.Result)
	}
	if a := post(t, "POST", srv.URL, key, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, nil); a.Error != nil {
		t.Fatalf("server stopped serving after a panic: %+v", a.Error)
	}
}

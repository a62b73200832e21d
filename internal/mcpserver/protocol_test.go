package mcpserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/otherwise/perform/internal/mcpserver"
	"github.com/otherwise/perform/internal/mcpserver/mcptest"
)

// Messages the SDK refuses before dispatch are JSON-RPC errors, not plain
// text: a call gets its own id back (HTTP 200), a notification or an
// unreadable message a null id (HTTP 400).
func TestRefusedMessagesAreJSONRPCErrors(t *testing.T) {
	t.Parallel()
	f := mcptest.New(t)
	cases := []struct {
		name, body string
		status     int
		id         string
		code       int
		says       string
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"tools/explode","params":{}}`, 200, "3", -32601, `"tools/explode"`},
		{"unknown method, string id", `{"jsonrpc":"2.0","id":"a-1","method":"nope"}`, 200, `"a-1"`, -32601, `"nope"`},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, 400, "null", -32601, "notifications/whatever"},
		{"tools/call without params", `{"jsonrpc":"2.0","id":4,"method":"tools/call"}`, 200, "4", -32602, "tools/call"},
		{"call without an id", `{"jsonrpc":"2.0","method":"tools/list"}`, 400, "null", -32600, "needs an id"},
		{"notification with an id", `{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}`, 400, "null", -32600, "takes no id"},
		{"not JSON", `{"jsonrpc":`, 400, "null", -32700, "JSON-RPC 2.0 message"},
	}
	for _, version := range []string{"", "2025-03-26", "2025-06-18"} {
		for _, c := range cases {
			header := map[string]string{}
			if version != "" {
				header["MCP-Protocol-Version"] = version
			}
			a := post(t, "POST", f.URL+"/mcp", f.A.Key, c.body, header)
			if a.status != c.status || a.JSONRPC != "2.0" || string(a.ID) != c.id || a.Error == nil || a.Error.Code != c.code || !strings.Contains(a.Error.Message, c.says) {
				t.Errorf("%s (version %q): %d %s id %s %+v; want %d, id %s, code %d saying %s",
					c.name, version, a.status, a.header.Get("Content-Type"), a.ID, a.Error, c.status, c.id, c.code, c.says)
			}
			if ct := a.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", c.name, ct)
			}
		}
	}
	// An unsupported protocol version (go-sdk issue 1173) is refused in JSON too.
	a := post(t, "POST", f.URL+"/mcp", f.A.Key, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "1999-01-01"})
	if a.status != 400 || a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "2025-06-18") {
		t.Errorf("unsupported version: %d %+v", a.status, a.Error)
	}
	// Good messages pass as before.
	if a := post(t, "POST", f.URL+"/mcp", f.A.Key, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, nil); a.status != 200 || a.Error != nil || a.Result == nil {
		t.Fatalf("tools/list: %d %+v", a.status, a.Error)
	}
	if a := post(t, "POST", f.URL+"/mcp", f.A.Key, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); a.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", a.status)
	}
}

// FuzzAnyBodyGetsJSONRPC posts arbitrary bodies: the answer is always a
// JSON-RPC message or an empty 202, never plain text and never a 5xx.
func FuzzAnyBodyGetsJSONRPC(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/explode","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_trainee","arguments":{"traineeId":".."}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":`, ``, `null`, `{"id":{"a":1},"method":7}`,
	} {
		f.Add(seed)
	}
	h := mcpserver.New(mcpserver.Options{Logger: mcptest.Quiet()})
	key := "pf_live_" + strings.Repeat("k", 43)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q: %d %s", body, w.Code, w.Body)
		}
		if w.Code == http.StatusAccepted && w.Body.Len() == 0 {
			return
		}
		type message struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		var msgs []message // a batch answers a list
		if err := json.Unmarshal(w.Body.Bytes(), &msgs); err != nil {
			var one message
			if json.Unmarshal(w.Body.Bytes(), &one) == nil {
				msgs = []message{one}
			}
		}
		ct := w.Header().Get("Content-Type")
		ok := strings.HasPrefix(ct, "application/json") && len(msgs) > 0
		for _, m := range msgs {
			ok = ok && m.JSONRPC == "2.0" && (m.Result != nil || m.Error != nil)
		}
		if !ok {
			t.Fatalf("%q: %d %s %q", body, w.Code, ct, w.Body)
		}
	})
}

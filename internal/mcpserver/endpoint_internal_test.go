package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A failure while answering, before anything was written, is a 500 with
// JSON-RPC -32603; after the answer began, nothing more is written.
func TestUnexpectedFailureIs500WithInternalError(t *testing.T) {
	key := "pf_live_" + strings.Repeat("k", 43)
	for name, next := range map[string]http.HandlerFunc{
		"before writing": func(http.ResponseWriter, *http.Request) { panic("store exploded") },
		"after writing": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"partial":`))
			panic("late")
		},
	} {
		e := &endpoint{next: next}
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		if name == "after writing" {
			if w.Code != 200 || w.Body.String() != `{"partial":` {
				t.Errorf("%s: %d %q", name, w.Code, w.Body)
			}
			continue
		}
		var body struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if w.Code != 500 || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.JSONRPC != "2.0" || body.Error.Code != -32603 ||
			strings.Contains(body.Error.Message, "store exploded") {
			t.Errorf("%s: %d %s", name, w.Code, w.Body)
		}
	}
}

package httpx

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

func TestEnvelopes(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	if err := WriteError(w, 429, ErrorBody{Code: "RATE_LIMITED", Message: "Slow down."}, 7, "req_1"); err != nil {
		t.Fatal(err)
	}
	if w.Code != 429 || w.Header().Get("Retry-After") != "7" || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("status %d, headers %v", w.Code, w.Header())
	}
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["ok"] != false || got["requestId"] != "req_1" || got["error"].(map[string]any)["code"] != "RATE_LIMITED" || got["data"] != nil {
		t.Fatalf("error envelope: %v", got)
	}

	w = httptest.NewRecorder()
	if err := WriteData(w, 200, map[string]int{"accepted": 2}, ""); err != nil {
		t.Fatal(err)
	}
	if w.Header().Get("Retry-After") != "" || w.Body.String() != `{"ok":true,"data":{"accepted":2}}`+"\n" {
		t.Fatalf("data envelope: %q", w.Body.String())
	}
}

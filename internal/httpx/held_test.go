package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A held answer reaches the client only when sent, with the status the
// handler chose (the first one), its body, and the headers it set.
func TestHeldAnswerWaitsForSendTo(t *testing.T) {
	rec := httptest.NewRecorder()
	h := NewHeld(rec.Header())
	h.Header().Set("Content-Type", "application/json")
	h.WriteHeader(http.StatusCreated)
	h.WriteHeader(http.StatusTeapot)
	_, _ = h.Write([]byte(`{"ok":true}`))
	if rec.Body.Len() != 0 || rec.Code != http.StatusOK || rec.Flushed {
		t.Fatalf("the answer left before SendTo: %d %q", rec.Code, rec.Body.String())
	}
	h.SendTo(rec)
	if rec.Code != http.StatusCreated || rec.Body.String() != `{"ok":true}` || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("sent %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}

	// Nothing written at all is a 200 with no body, as net/http answers it.
	empty := httptest.NewRecorder()
	NewHeld(nil).SendTo(empty)
	if empty.Code != http.StatusOK || empty.Body.Len() != 0 {
		t.Fatalf("an empty held answer sent %d %q", empty.Code, empty.Body.String())
	}
}

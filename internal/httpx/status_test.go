package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStatusWriterRemembersTheFirstStatus(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := &StatusWriter{ResponseWriter: rec}
	sw.WriteHeader(http.StatusTeapot)
	sw.WriteHeader(http.StatusOK)
	if sw.Status != http.StatusTeapot {
		t.Errorf("Status = %d, want the first one sent", sw.Status)
	}

	rec = httptest.NewRecorder()
	sw = &StatusWriter{ResponseWriter: rec}
	_, _ = sw.Write([]byte("x"))
	if sw.Status != http.StatusOK {
		t.Errorf("a body without a status is %d, want 200", sw.Status)
	}
	sw.Flush()
	if !rec.Flushed {
		t.Error("Flush did not reach the writer underneath")
	}
	if http.NewResponseController(sw).Flush() != nil {
		t.Error("ResponseController cannot reach the writer underneath")
	}
}

func TestStatusWriterSent(t *testing.T) {
	sw := &StatusWriter{ResponseWriter: httptest.NewRecorder()}
	if sw.Sent() != http.StatusOK || sw.Status != 0 {
		t.Errorf("nothing written: Sent %d, Status %d; want 200 and 0", sw.Sent(), sw.Status)
	}
	sw.WriteHeader(http.StatusNotFound)
	if sw.Sent() != http.StatusNotFound {
		t.Errorf("Sent = %d after a 404", sw.Sent())
	}
}

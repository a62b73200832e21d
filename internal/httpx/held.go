package httpx

import (
	"bytes"
	"net/http"
)

// Held is the least an http.ResponseWriter needs to be: a header, a status
// and a buffer. An answer written to it goes nowhere until its owner sends
// it on (the lane holds a keyed write's answer until it commits; the
// in-process transport hands a whole answer over at once).
type Held struct {
	header http.Header
	Status int
	Body   bytes.Buffer
}

// NewHeld holds an answer whose headers go into header (nil: a fresh set).
func NewHeld(header http.Header) *Held {
	if header == nil {
		header = make(http.Header, 4)
	}
	return &Held{header: header}
}

func (h *Held) Header() http.Header { return h.header }

func (h *Held) WriteHeader(status int) {
	if h.Status == 0 {
		h.Status = status
	}
}

func (h *Held) Write(p []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return h.Body.Write(p)
}

// Flush is a no-op: the whole answer is handed over at once.
func (h *Held) Flush() {}

// SendTo writes the held status and body to w (200 when nothing was written);
// the headers are w's own when NewHeld was given w.Header().
func (h *Held) SendTo(w http.ResponseWriter) {
	h.WriteHeader(http.StatusOK)
	w.WriteHeader(h.Status)
	_, _ = w.Write(h.Body.Bytes())
}

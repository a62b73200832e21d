// Package httpx holds the small net/http pieces several layers share.
package httpx

import "net/http"

// StatusWriter remembers the status a handler sent (200 when it wrote a
// body without one). Flush and Unwrap keep streaming answers working through
// it: http.ResponseController reaches the connection underneath.
type StatusWriter struct {
	http.ResponseWriter
	Status int
}

func (s *StatusWriter) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *StatusWriter) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Sent is the status the client got: Status, or 200 when the handler wrote
// nothing at all (net/http answers 200 then).
func (s *StatusWriter) Sent() int {
	if s.Status == 0 {
		return http.StatusOK
	}
	return s.Status
}

func (s *StatusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *StatusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

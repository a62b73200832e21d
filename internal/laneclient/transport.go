package laneclient

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
)

// inProcessAddr is the client address the lane sees for in-process calls.
const inProcessAddr = "127.0.0.1:0"

// HandlerTransport returns a RoundTripper that serves each request with h,
// the lane's full handler chain (auth, limiter, validation, audit), in the
// calling goroutine: no socket, no HTTP encoding. The answer is buffered.
func HandlerTransport(h http.Handler) http.RoundTripper {
	return handlerTransport{h: h}
}

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	// A RoundTripper must not modify the caller's request: serve a shallow
	// copy completed as net/http's server would.
	in := *req
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = inProcessAddr
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	if in.Host == "" {
		in.Host = req.URL.Host
	}

	w := &memoryWriter{header: make(http.Header, 4)}
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, fmt.Errorf("the lane failed while serving %s %s: %v", req.Method, req.URL.Path, p)
		}
	}()
	t.h.ServeHTTP(w, &in)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          &memoryBody{Reader: bytes.NewReader(w.body.Bytes()), buf: w.body.Bytes()},
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// memoryWriter is the least an http.ResponseWriter needs to be: a header,
// a status and a buffer.
type memoryWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *memoryWriter) Header() http.Header { return w.header }

func (w *memoryWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *memoryWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// Flush is a no-op: the whole answer is handed over at once.
func (w *memoryWriter) Flush() {}

// memoryBody is an answer already in memory; readBody takes its bytes whole.
type memoryBody struct {
	*bytes.Reader
	buf []byte
}

func (b *memoryBody) Bytes() []byte { return b.buf }
func (b *memoryBody) Close() error  { return nil }

package laneclient

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/httpx"
)

// inProcessAddr is the client address the lane sees for in-process calls.
const inProcessAddr = "127.0.0.1:0"

// HandlerTransport returns a RoundTripper that serves each request with h,
// the lane's full handler chain (auth, limiter, validation, audit), in the
// calling goroutine: no socket, no HTTP encoding. The answer is buffered.
//
// The handler runs on one of a set of long-lived goroutines rather than the
// caller's. The lane goes deep (pure-Go SQLite underneath), and an MCP tool
// call arrives on a goroutine the SDK has just started with a small stack:
// growing it on every call costs more CPU than the hand-off. Like net/http's
// keep-alive connections, a worker keeps its grown stack between calls.
func HandlerTransport(h http.Handler) http.RoundTripper {
	return &handlerTransport{h: h, idle: make(chan func()), idleFor: workerIdle}
}

// workerIdle is how long a worker waits for another call before it exits.
const workerIdle = 10 * time.Second

type handlerTransport struct {
	h       http.Handler
	idle    chan func() // unbuffered: a send succeeds only when a worker waits
	idleFor time.Duration
}

// run hands f to an idle worker, or starts a new one.
func (t *handlerTransport) run(f func()) {
	select {
	case t.idle <- f:
	default:
		go t.work(f)
	}
}

func (t *handlerTransport) work(f func()) {
	timer := time.NewTimer(t.idleFor)
	defer timer.Stop()
	for {
		f()
		timer.Reset(t.idleFor)
		select {
		case f = <-t.idle:
		case <-timer.C:
			return
		}
	}
}

func (t *handlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	done := make(chan struct{})
	t.run(func() {
		defer close(done)
		resp, err = t.serve(req)
	})
	<-done
	return resp, err
}

func (t *handlerTransport) serve(req *http.Request) (resp *http.Response, err error) {
	// A RoundTripper must not modify the caller's request: serve a shallow
	// copy completed as net/http's server would.
	in := *req
	// The calling surface travels in the context, which no network client
	// can reach; the lane never reads the header.
	if src := req.Header.Get(auth.SourceHeader); src != "" {
		in.Header = req.Header.Clone()
		in.Header.Del(auth.SourceHeader)
		in = *in.WithContext(auth.WithSource(req.Context(), src))
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = inProcessAddr
	in.Proto, in.ProtoMajor, in.ProtoMinor = "HTTP/1.1", 1, 1
	if in.Host == "" {
		in.Host = req.URL.Host
	}

	w := httpx.NewHeld(nil)
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, fmt.Errorf("the lane failed while serving %s %s: %v", req.Method, req.URL.Path, p)
		}
	}()
	t.h.ServeHTTP(w, &in)
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.Status) + " " + http.StatusText(w.Status),
		StatusCode:    w.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.Header(),
		Body:          &memoryBody{Reader: bytes.NewReader(w.Body.Bytes()), buf: w.Body.Bytes()},
		ContentLength: int64(w.Body.Len()),
		Request:       req,
	}, nil
}

// memoryBody is an answer already in memory; readBody takes its bytes whole.
type memoryBody struct {
	*bytes.Reader
	buf []byte
}

func (b *memoryBody) Bytes() []byte { return b.buf }
func (b *memoryBody) Close() error  { return nil }

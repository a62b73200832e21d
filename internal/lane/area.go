package lane

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/otherwise/perform/internal/auth"
)

// An Area is a package of the lane's routes, named for what it holds (the
// studio, the roster, the training memory, the public offer): it adds its
// routes when the lane is built, and the kernel serves them through the one
// policy point.
type Area interface {
	Routes(rs *Routes)
}

// Routes collects the areas' routes while the lane is built.
type Routes struct{ list []*route }

// Now is the request's instant: the lane's clock, read once when the call
// began, so every time one request writes (a record's creation and update,
// its outbox row, the window of a withdrawal) is the same instant, however
// long the request takes and however often it asks.
func (c *Call) Now() time.Time { return c.at }

// Today is the request's UTC day as YYYY-MM-DD.
func (c *Call) Today() string { return c.at.UTC().Format(time.DateOnly) }

// Logger is the lane's logger.
func (c *Call) Logger() *slog.Logger { return c.l.logger }

// SetStatus makes status the success status of this answer instead of the
// route's (a create that found its work already done answers 200).
func (c *Call) SetStatus(status int) { c.status = status }

// Sent lists the body fields the request carried, sorted (so a PATCH tells
// an absent field from a null one).
func (c *Call) Sent() []string {
	names := make([]string, 0, len(c.present))
	for k := range c.present {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// DryRun reports whether the request runs as a dry run (rolled back, its
// side effects described, not done).
func (c *Call) DryRun() bool { return infoFrom(c.Ctx).dryRun }

// RequestID is the request's id, as the answer and the audit carry it.
func (c *Call) RequestID() string { return infoFrom(c.Ctx).id }

// Detached is the call for work that outlives the answer (a callback sent
// after it): the same principal and request, a context that is not
// cancelled when the answer is sent.
func (c *Call) Detached() *Call {
	d := *c
	d.Ctx = context.WithoutCancel(c.Ctx)
	return &d
}

// A Decoder decodes and validates a request's input exactly as a route
// taking that input does: for the areas' tests and fuzz targets.
type Decoder struct{ s *inputSchema }

// DecoderOf is the decoder of in's type (a pointer to an input struct).
func DecoderOf(in any) Decoder {
	s, err := newInputSchema(reflect.TypeOf(in).Elem())
	if err != nil {
		panic(fmt.Sprintf("lane: schema of %T: %v", in, err))
	}
	return Decoder{s}
}

// Body decodes a JSON body into in; present is its fields as sent.
func (d Decoder) Body(body []byte, in any) (present map[string]json.RawMessage, e *Error) {
	return d.s.decodeBody(body, in)
}

// Schema is the input's JSON schema, as the OpenAPI document carries it.
func (d Decoder) Schema() *jsonschema.Schema { return d.s.schema }

// Query decodes a query into in.
func (d Decoder) Query(q url.Values, in any) *Error { return d.s.decodeQuery(q, in) }

// Handle runs the handler of the route method path as principal p reaches
// it past authorization (the trainee policy owns and tests that): the
// decoding, validation, handler and store are the real ones. For the
// areas' tests of their handlers.
func (l *Lane) Handle(p *auth.Principal, method, path, id, body string) (any, error) {
	for _, rt := range l.routes {
		if rt.method != method || rt.path != path {
			continue
		}
		r, err := http.NewRequest(method, Prefix+strings.Replace(path, "{id}", id, 1), strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.SetPathValue("id", id)
		r = r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, &reqInfo{principal: p}))
		return rt.handle(&Call{Ctx: r.Context(), Req: r, l: l, P: p, at: l.now()})
	}
	return nil, fmt.Errorf("lane: no route %s %s", method, path)
}

// DecodeInput decodes body (a query string for GET and DELETE) as the
// route method path does, into a new value of its input type: for tests
// and fuzz targets of the lane's validation. present is the body's fields
// as sent.
func (l *Lane) DecodeInput(method, path, body string) (in any, present map[string]json.RawMessage, e *Error) {
	for _, rt := range l.routes {
		if rt.method != method || rt.path != path {
			continue
		}
		in = rt.newIn()
		if method == http.MethodGet || method == http.MethodDelete {
			q, err := url.ParseQuery(body)
			if err != nil {
				return in, nil, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "The query could not be read."}
			}
			return in, nil, rt.input.decodeQuery(q, in)
		}
		present, e = rt.input.decodeBody([]byte(body), in)
		return in, present, e
	}
	panic("lane: no route " + method + " " + path)
}

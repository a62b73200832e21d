package lane

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/text"
)

// Error codes of the envelope.
const (
	CodeUnauthorized     = "UNAUTHORIZED"
	CodeForbidden        = "FORBIDDEN"
	CodeNotFound         = "NOT_FOUND"
	CodeConflict         = "CONFLICT"
	CodeValidation       = "VALIDATION"
	CodePlanLimit        = "PLAN_LIMIT"
	CodeRateLimited      = "RATE_LIMITED"
	CodeInternal         = "INTERNAL"
	CodeBadRequest       = "BAD_REQUEST"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	// CodeIdempotencyInProgress (409, with Retry-After): an earlier request
	// with the same Idempotency-Key is still running; the retry, under the
	// same key, gets its answer.
	CodeIdempotencyInProgress = "IDEMPOTENCY_IN_PROGRESS"
)

// Error is a lane error answer: the status, the envelope's code and a
// sentence a model can act on. Fields lists every bad field of a 422.
type Error struct {
	Status  int          `json:"-"`
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Fields  []FieldError `json:"fields,omitempty"`
	// RetryAfterSeconds, on a 429 and on IDEMPOTENCY_IN_PROGRESS, is the
	// Retry-After header's wait (writeError sets the header).
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
}

func (e *Error) Error() string { return e.Message }

func ValidationError(errs []FieldError) *Error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidation, Message: strings.Join(msgs, " "), Fields: errs}
}

func InvalidField(field, message string) *Error {
	return ValidationError([]FieldError{{Field: field, Message: message}})
}

func Conflict(message string) *Error {
	return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: message}
}

// notFound is the sentence for an id that is not in this studio
// (ids.NotFound, which the tools answer too).
func NotFound(want ids.Kind, id string) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: ids.NotFound(want, id)}
}

// InProgress refuses a write whose Idempotency-Key an earlier request
// still holds: 409 IDEMPOTENCY_IN_PROGRESS with Retry-After.
func InProgress(message string) *Error {
	return &Error{Status: http.StatusConflict, Code: CodeIdempotencyInProgress, Message: message, RetryAfterSeconds: inProgressRetryAfter}
}

func PlanLimit(message string) *Error {
	return &Error{Status: http.StatusPaymentRequired, Code: CodePlanLimit, Message: message}
}

var errInternal = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "Something went wrong inside Perform; the request was not completed. Try again, and report the requestId if it keeps happening."}

// writeData and writeError answer in the envelope (httpx), with the
// request id and what names were taken for.
func (l *Lane) writeData(w http.ResponseWriter, r *http.Request, status int, data any) {
	ri := infoFrom(r.Context())
	if err := httpx.WriteJSON(w, status, httpx.Envelope{OK: true, Data: data, RequestID: ri.id, Matched: ri.matched}); err != nil {
		l.logger.Warn("writing the answer failed", "err", err)
	}
}

func (l *Lane) writeError(w http.ResponseWriter, r *http.Request, e *Error) {
	if err := httpx.WriteError(w, e.Status, e, e.RetryAfterSeconds, infoFrom(r.Context()).id); err != nil {
		l.logger.Warn("writing the answer failed", "err", err)
	}
}

// AllowedMethods lists the methods mux serves r's path with, other than
// through the catch-all pattern or a pattern skip refuses. The server's
// fallback uses it too, so every route answers a wrong method alike.
func AllowedMethods(mux *http.ServeMux, r *http.Request, catchAll string, skip ...func(pattern string, r *http.Request) bool) []string {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		_, pattern := mux.Handler(probe)
		if pattern == "" || pattern == catchAll || len(skip) > 0 && skip[0](pattern, probe) {
			continue
		}
		allowed = append(allowed, m)
	}
	return allowed
}

// maxPathInAnswer bounds how much of a path an error answer repeats.
const maxPathInAnswer = 100

// NotFoundMessage is the one sentence for a path nothing serves.
func NotFoundMessage(r *http.Request) string {
	return "There is no endpoint " + text.Truncate(r.Method, 20) + " " + text.Truncate(r.URL.Path, maxPathInAnswer) +
		"; the automation lane's endpoints are listed in " + Prefix + "/openapi.json."
}

// MethodNotAllowedMessage is the one sentence for a path served under
// other methods only.
func MethodNotAllowedMessage(r *http.Request, allowed []string) string {
	return text.Truncate(r.Method, 20) + " is not allowed on " + text.Truncate(r.URL.Path, maxPathInAnswer) + "; use " + strings.Join(allowed, " or ") + "."
}

// internal logs err with the request id and answers 500 without internals.
func (l *Lane) internal(w http.ResponseWriter, r *http.Request, doing string, err error) {
	l.logger.Error("lane request failed", "requestId", infoFrom(r.Context()).id, "doing", doing, "method", r.Method, "path", r.URL.Path, "err", err)
	l.writeError(w, r, errInternal)
}

func readBody(r *http.Request) ([]byte, *Error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBadRequest, Message: "The request body is larger than 1 MiB."}
		}
		return nil, &Error{Status: http.StatusBadRequest, Code: CodeBadRequest, Message: "The request body could not be read."}
	}
	return b, nil
}

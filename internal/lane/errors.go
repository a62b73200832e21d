package lane

import (
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
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

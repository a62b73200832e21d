package lane

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/schema"
	"github.com/otherwise/perform/internal/text"
)

// Error codes of the envelope.
const (
	CodeUnauthorized     = "UNAUTHORIZED"
	CodeNotFound         = "NOT_FOUND"
	CodeConflict         = "CONFLICT"
	CodeValidation       = "VALIDATION"
	CodePlanLimit        = "PLAN_LIMIT"
	CodeRateLimited      = "RATE_LIMITED"
	CodeInternal         = "INTERNAL"
	CodeBadRequest       = "BAD_REQUEST"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
)

// Error is a lane error answer: the status, the envelope's code and a
// sentence a model can act on. Fields lists every bad field of a 422.
type Error struct {
	Status  int          `json:"-"`
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Fields  []FieldError `json:"fields,omitempty"`
}

func (e *Error) Error() string { return e.Message }

func validationError(errs []FieldError) *Error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	return &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidation, Message: strings.Join(msgs, " "), Fields: errs}
}

func invalidField(field, message string) *Error {
	return validationError([]FieldError{{Field: field, Message: message}})
}

func conflict(message string) *Error {
	return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: message}
}

// notFound is the sentence for an id that is not in this studio. An id
// carrying another kind's prefix gets a sentence saying which kind it is.
// The id is shown escaped (text.Printable): it may hold any bytes.
func notFound(want ids.Kind, id string) *Error {
	shown := schema.Truncate(text.Printable(id), 80)
	msg := fmt.Sprintf("No %s with id %s exists in this studio. Use %s to get a valid id.", want.Noun(), shown, want.Source())
	if got, known := ids.KindOf(id); known && got != want {
		msg = fmt.Sprintf("%s is %s %s id; this needs %s %s id (from %s).", shown, article(got.Noun()), got.Noun(), article(want.Noun()), want.Noun(), want.Source())
	}
	return &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: msg}
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return "an"
	}
	return "a"
}

func planLimit(message string) *Error {
	return &Error{Status: http.StatusPaymentRequired, Code: CodePlanLimit, Message: message}
}

var errInternal = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "Something went wrong inside Perform; the request was not completed. Try again, and report the requestId if it keeps happening."}

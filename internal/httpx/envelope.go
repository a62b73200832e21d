package httpx

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Envelope is the shape of every JSON answer Perform's own endpoints give
// (the automation lane, the assistant's webhook, the server's own 404, 405
// and 429): {"ok":true,"data":…,"requestId":…} or
// {"ok":false,"error":{"code":…,"message":…},"requestId":…}.
type Envelope struct {
	OK        bool   `json:"ok"`
	Data      any    `json:"data,omitempty"`
	Error     any    `json:"error,omitempty"`
	RequestID string `json:"requestId,omitempty"`
	// Matched says, for each name given where an id was asked, what it
	// was taken for ("traineeId \"Tamar\": trainee Tamar Avraham (trn_…)").
	Matched []string `json:"matched,omitempty"`
}

// ErrorBody is an envelope's error where the writer has no richer one.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WriteJSON writes v as the JSON answer with status; the error is the
// encoder's (the client went away), for the caller to log if it cares.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// WriteData answers {"ok":true,"data":data,"requestId":requestID}.
func WriteData(w http.ResponseWriter, status int, data any, requestID string) error {
	return WriteJSON(w, status, Envelope{OK: true, Data: data, RequestID: requestID})
}

// WriteError answers {"ok":false,"error":body,"requestId":requestID}, with
// Retry-After when retryAfterSeconds is positive. body is an ErrorBody or a
// richer error that marshals to at least code and message.
func WriteError(w http.ResponseWriter, status int, body any, retryAfterSeconds int, requestID string) error {
	if retryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	return WriteJSON(w, status, Envelope{OK: false, Error: body, RequestID: requestID})
}

package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/otherwise/perform/internal/httpx"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/phone"
)

// maxWebhookBody bounds what the webhook reads; a WhatsApp text is far smaller.
const maxWebhookBody = 64 << 10

// Inbound is the body the SmartSend flow posts:
//
//	{"text": "{{last_message}}", "phone": "{{phone}}",
//	 "conversationId": "{{conversationId}}", "senderName": "{{contactName}}"}
type Inbound struct {
	Text           string `json:"text"`
	Phone          string `json:"phone"`
	ConversationID string `json:"conversationId"`
	SenderName     string `json:"senderName"`
}

// FieldError is a body that fails validation; Field names the culprit.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// DecodeInbound reads and validates a webhook body. Text defaults to "";
// phone and conversationId are required; senderName is optional; other
// fields are ignored so the flow may send more.
func DecodeInbound(body []byte) (Inbound, error) {
	var in Inbound
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&in); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return in, &FieldError{Field: typeErr.Field, Message: fmt.Sprintf("%s must be a string.", typeErr.Field)}
		}
		return in, &FieldError{Field: "body", Message: "The body must be a JSON object like {\"text\":\"…\",\"phone\":\"…\",\"conversationId\":\"…\"}."}
	}
	if dec.More() {
		return in, &FieldError{Field: "body", Message: "The body must be one JSON object."}
	}
	return in, in.Validate()
}

// Validate checks a message before it is stored: phone and conversationId
// are required, and no field may hold a NUL, another control character
// (newline, tab and carriage return aside) or invalid UTF-8. Such text is
// refused, not cleaned: WhatsApp never sends it, so it comes from a broken
// flow or a forged call; a cleaned id would reply into another
// conversation; and Postgres refuses NUL outright, so one such message in
// a batch would otherwise fail the messages stored with it.
func (in Inbound) Validate() error {
	for _, f := range []struct{ name, value, what string }{
		{"text", in.Text, "the message text"},
		{"phone", in.Phone, "the sender's WhatsApp number"},
		{"conversationId", in.ConversationID, "the SmartSend conversation id"},
		{"senderName", in.SenderName, "the contact name"},
	} {
		if msg := badText(f.value); msg != "" {
			return &FieldError{Field: f.name, Message: fmt.Sprintf("%s (%s) %s; send it as plain UTF-8 text.", f.name, f.what, msg)}
		}
	}
	if in.Phone == "" {
		return &FieldError{Field: "phone", Message: "phone is required: the sender's WhatsApp number."}
	}
	if in.ConversationID == "" {
		return &FieldError{Field: "conversationId", Message: "conversationId is required: the SmartSend conversation to reply into."}
	}
	return nil
}

// badText says what is wrong with s as stored text, or "" when nothing is.
func badText(s string) string {
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	for i, r := range s {
		switch {
		case r == 0:
			return fmt.Sprintf("holds a NUL character at byte %d", i)
		case r == '\n' || r == '\t' || r == '\r':
		case unicode.IsControl(r):
			return fmt.Sprintf("holds the control character U+%04X at byte %d", r, i)
		}
	}
	return ""
}

// mediaMarker is what the SmartSend flow puts in text for media: [image], [audio]…
var mediaMarker = regexp.MustCompile(`^\[[a-z]+\]$`)

// Webhook serves POST /v1/agent/webhook?token=SMARTSEND_WEBHOOK_SECRET.
func (a *Agent) Webhook() http.Handler {
	return http.HandlerFunc(a.serveWebhook)
}

func (a *Agent) serveWebhook(w http.ResponseWriter, r *http.Request) {
	reqID := w.Header().Get("X-Request-Id")
	if reqID == "" {
		reqID = ids.New(ids.Request)
		w.Header().Set("X-Request-Id", reqID)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, reqID, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "The agent webhook takes POST only.")
		return
	}
	if !a.tokenValid(r.URL.Query().Get("token")) {
		writeError(w, reqID, http.StatusUnauthorized, "UNAUTHORIZED", "invalid webhook token")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		writeError(w, reqID, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", fmt.Sprintf("The body must be at most %d bytes.", maxWebhookBody))
		return
	}
	in, err := DecodeInbound(body)
	if err != nil {
		writeError(w, reqID, http.StatusUnprocessableEntity, "VALIDATION", err.Error())
		return
	}
	accepted, err := a.HandleInbound(r.Context(), in)
	var fe *FieldError
	if errors.As(err, &fe) {
		writeError(w, reqID, http.StatusUnprocessableEntity, "VALIDATION", fe.Message)
		return
	}
	if errors.Is(err, errIntakeClosed) {
		a.log.WarnContext(r.Context(), "agent webhook: a message arrived while shutting down; refused, so the sender retries", "requestId", reqID)
	} else if err != nil {
		a.log.ErrorContext(r.Context(), "agent webhook: storing the message failed", "err", err, "requestId", reqID)
	}
	if err != nil {
		writeError(w, reqID, http.StatusServiceUnavailable, "UNAVAILABLE", "The message could not be stored; SmartSend may retry.")
		return
	}
	_ = httpx.WriteData(w, http.StatusOK, map[string]int{"accepted": accepted}, reqID)
}

// tokenValid compares in constant time; hashing first hides the secret's length too.
func (a *Agent) tokenValid(token string) bool {
	if len(a.secret) == 0 || token == "" {
		return false
	}
	want := sha256.Sum256(a.secret)
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(want[:], got[:]) == 1
}

// HandleInbound runs the webhook's checks in the specification's order and,
// when the message passes, stores it and schedules its reply job in one
// transaction. It returns how many messages were accepted (0 or 1); a
// message that fails Validate is a *FieldError.
func (a *Agent) HandleInbound(ctx context.Context, in Inbound) (int, error) {
	if err := in.Validate(); err != nil {
		return 0, err
	}
	if !a.enabled {
		a.log.WarnContext(ctx, "agent webhook: AGENT_SMARTSEND_API_KEY is empty, so the agent is disabled; message dropped")
		return 0, nil
	}
	if n := len(phone.Digits(in.Phone)); n < 9 || n > 13 {
		return 0, nil // group and broadcast ids
	}
	key := phoneKey(in.Phone)
	if !a.inPilot(key) {
		return 0, nil // silent: nothing sent, nothing queued
	}
	text := strings.TrimSpace(in.Text)
	if text == "" || mediaMarker.MatchString(text) {
		if err := a.gateway.Send(ctx, in.ConversationID, msgTextOnly); err != nil {
			a.log.WarnContext(ctx, "agent webhook: the text-only reply could not be sent", "err", err)
		}
		return 0, nil
	}
	if err := a.intake.add(ctx, pendingMessage{phone: key, conversationID: in.ConversationID, text: text, receivedAt: a.now().UnixMilli()}); err != nil {
		return 0, err
	}
	return 1, nil
}

func writeError(w http.ResponseWriter, reqID string, status int, code, message string) {
	_ = httpx.WriteError(w, status, httpx.ErrorBody{Code: code, Message: message}, 0, reqID)
}

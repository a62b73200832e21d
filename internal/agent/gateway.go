package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Gateway sends one WhatsApp message into a conversation. A nil error means
// the gateway accepted the message.
type Gateway interface {
	Send(ctx context.Context, conversationID, text string) error
}

// SmartSend is the SmartSend gateway. Each message is one request:
//
//	POST {SMARTSEND_API_URL}/v1/conversations/{conversationId}/messages
//	Authorization: Bearer {AGENT_SMARTSEND_API_KEY}
//	Content-Type: application/json
//
//	{"conversationId": "…", "text": "…"}
//
// Any 2xx answer is an accept; anything else is an error naming the status.
type SmartSend struct {
	baseURL string
	apiKey  string
	hc      *http.Client
}

// NewSmartSend returns the gateway; hc nil means a client with a 15 s timeout.
func NewSmartSend(baseURL, apiKey string, hc *http.Client) *SmartSend {
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	return &SmartSend{baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, hc: hc}
}

type smartSendMessage struct {
	ConversationID string `json:"conversationId"`
	Text           string `json:"text"`
}

func (s *SmartSend) Send(ctx context.Context, conversationID, text string) error {
	if s.baseURL == "" {
		return fmt.Errorf("SMARTSEND_API_URL is not set, so the reply cannot be sent")
	}
	return s.post(ctx, "/v1/conversations/"+url.PathEscape(conversationID)+"/messages", smartSendMessage{ConversationID: conversationID, Text: text})
}

// post is one SmartSend call: v as the JSON body, the bearer key, and any
// 2xx an accept.
func (s *SmartSend) post(ctx context.Context, path string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("SmartSend could not be reached: %w", err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return &SendError{Status: resp.StatusCode, Body: strings.TrimSpace(string(snippet))}
	}
	return nil
}

// SendError is a gateway's refusal of one message.
type SendError struct {
	Status int
	Body   string
}

func (e *SendError) Error() string { return fmt.Sprintf("SmartSend answered %d: %s", e.Status, e.Body) }

// Permanent reports a refusal that retrying cannot fix: a 4xx other than
// timeout and rate limiting (a closed conversation, a rejected text).
func (e *SendError) Permanent() bool {
	return e.Status/100 == 4 && e.Status != http.StatusRequestTimeout && e.Status != http.StatusTooManyRequests
}

// Chunks splits a reply into WhatsApp messages of at most 3500 characters:
// on blank lines, packing paragraphs together while they fit; a paragraph
// longer than that is cut at a line break, else a space, else anywhere.
func Chunks(text string) []string {
	var out []string
	var cur strings.Builder
	curLen := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
			curLen = 0
		}
	}
	for _, para := range paragraphs(text) {
		for _, piece := range splitLong(para, chunkMaxRunes) {
			n := utf8.RuneCountInString(piece)
			if curLen > 0 && curLen+2+n > chunkMaxRunes {
				flush()
			}
			if curLen > 0 {
				cur.WriteString("\n\n")
				curLen += 2
			}
			cur.WriteString(piece)
			curLen += n
		}
	}
	flush()
	return out
}

// paragraphs splits on blank lines (lines holding only spaces count as blank).
func paragraphs(text string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, "\n"))
				cur = nil
			}
			continue
		}
		cur = append(cur, strings.TrimRight(line, " \t"))
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// splitLong cuts s into pieces of at most max runes at the last line break,
// else the last space, before the limit.
func splitLong(s string, max int) []string {
	var out []string
	for utf8.RuneCountInString(s) > max {
		r := []rune(s)
		head := string(r[:max])
		cut := strings.LastIndex(head, "\n")
		if cut <= 0 {
			cut = strings.LastIndex(head, " ")
		}
		if cut <= 0 {
			cut = len(head)
		}
		if p := strings.TrimSpace(s[:cut]); p != "" {
			out = append(out, p)
		}
		s = strings.TrimSpace(s[cut:])
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

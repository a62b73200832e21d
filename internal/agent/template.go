package agent

import (
	"context"
	"fmt"
	"strings"
)

// TemplateSender is a gateway that can also send an approved WhatsApp
// template: the only message a business may start outside WhatsApp's
// 24-hour window. A Gateway without it sends no template (the morning
// digest records that as a failure).
type TemplateSender interface {
	SendTemplate(ctx context.Context, phone string, t Template) error
}

// Template is one template message: the approved template's name, its
// language and the values of its {{1}}, {{2}}, … in order.
type Template struct {
	Name       string   `json:"name"`
	Language   string   `json:"language"`
	Parameters []string `json:"parameters"`
}

// TemplateLanguage is the language code the digest's template is sent in.
const TemplateLanguage = "he"

type smartSendTemplate struct {
	Phone      string   `json:"phone"`
	Template   string   `json:"template"`
	Language   string   `json:"language"`
	Parameters []string `json:"parameters"`
}

// SendTemplate sends an approved template to a phone (international
// digits, no plus):
//
//	POST {SMARTSEND_API_URL}/v1/templates/send
//	Authorization: Bearer {AGENT_SMARTSEND_API_KEY}
//	Content-Type: application/json
//
//	{"phone": "972501234567", "template": "morning_digest", "language": "he", "parameters": ["…", "…"]}
//
// As with Send, any 2xx is an accept and anything else a *SendError.
func (s *SmartSend) SendTemplate(ctx context.Context, phone string, t Template) error {
	if s.baseURL == "" {
		return fmt.Errorf("SMARTSEND_API_URL is not set, so the template cannot be sent")
	}
	params := t.Parameters
	if params == nil {
		params = []string{}
	}
	return s.post(ctx, "/v1/templates/send", smartSendTemplate{Phone: strings.TrimPrefix(phone, "+"), Template: t.Name, Language: t.Language, Parameters: params})
}

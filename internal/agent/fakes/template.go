package fakes

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// TemplateSent is one template message SmartSend accepted:
// POST /v1/templates/send with a bearer key and
// {"phone","template","language","parameters"}.
type TemplateSent struct {
	Authorization string   `json:"-"`
	Phone         string   `json:"phone"`
	Template      string   `json:"template"`
	Language      string   `json:"language"`
	Parameters    []string `json:"parameters"`
}

// Templates returns every accepted template message, in order.
func (s *SmartSend) Templates() []TemplateSent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TemplateSent(nil), s.templates...)
}

var (
	templateName = regexp.MustCompile(`^[a-z0-9_]+$`)
	phoneDigits  = regexp.MustCompile(`^[0-9]{9,15}$`)
)

// serveTemplate checks a template message as WhatsApp would: a template
// name, international digits, and parameters without line breaks or tabs.
func (s *SmartSend) serveTemplate(w http.ResponseWriter, r *http.Request) {
	var m TemplateSent
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, `{"error":"body must be {phone,template,language,parameters}"}`, http.StatusBadRequest)
		return
	}
	if !templateName.MatchString(m.Template) || !phoneDigits.MatchString(m.Phone) || m.Language == "" {
		http.Error(w, `{"error":"template, phone (digits) and language are required"}`, http.StatusBadRequest)
		return
	}
	for _, p := range m.Parameters {
		if p == "" || strings.ContainsAny(p, "\n\t") || strings.Contains(p, "    ") {
			http.Error(w, `{"error":"a parameter is empty or holds a line break, a tab or four spaces"}`, http.StatusBadRequest)
			return
		}
	}
	m.Authorization = r.Header.Get("Authorization")
	s.mu.Lock()
	s.templates = append(s.templates, m)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok":true}`)
}

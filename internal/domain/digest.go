package domain

import "encoding/json"

// DigestTemplate is the approved WhatsApp template the coaches' morning
// digest goes out as outside WhatsApp's 24-hour window
// (settings.digestTemplate); "" when the studio has none.
func (s Studio) DigestTemplate() string {
	var set struct {
		DigestTemplate string `json:"digestTemplate"`
	}
	if len(s.Settings) == 0 || json.Unmarshal(s.Settings, &set) != nil {
		return ""
	}
	return set.DigestTemplate
}

// ValidTemplateName reports whether name can name a WhatsApp template:
// lowercase letters, digits and underscores.
func ValidTemplateName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

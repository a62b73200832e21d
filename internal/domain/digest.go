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

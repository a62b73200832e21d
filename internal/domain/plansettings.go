package domain

import "encoding/json"

// DefaultSeniorAge is the age from which the weekly plan's senior rules
// apply when the studio has not set its own (PATCH /studio/settings).
const DefaultSeniorAge = 60

// planSettings are the studio settings the weekly plan and the model
// budget read.
type planSettings struct {
	SeniorAge int    `json:"seniorAge"`
	Language  string `json:"language"`
	// The studio's own model budget, below the operator's ceilings (0: the
	// ceiling).
	ModelTokensPerPersonDay  int64 `json:"modelTokensPerPersonDay"`
	ModelTokensPerStudioHour int64 `json:"modelTokensPerStudioHour"`
}

func (s Studio) planSettings() planSettings {
	var set planSettings
	if len(s.Settings) > 0 {
		_ = json.Unmarshal(s.Settings, &set) // a bad document reads as the defaults
	}
	return set
}

// SeniorAge is the age from which the senior rules apply (default 60).
func (s Studio) SeniorAge() int {
	if a := s.planSettings().SeniorAge; a > 0 {
		return a
	}
	return DefaultSeniorAge
}

// Language is the studio's language for what Perform writes for it (a
// weekly plan's summary and notes, the coach's task): "he" (the default)
// or "en".
func (s Studio) Language() string {
	if s.planSettings().Language == "en" {
		return "en"
	}
	return "he"
}

// ModelBudget is the studio's own model budget: tokens per person per day
// and per studio per hour; 0 leaves the operator's ceiling.
func (s Studio) ModelBudget() (personDay, studioHour int64) {
	set := s.planSettings()
	return set.ModelTokensPerPersonDay, set.ModelTokensPerStudioHour
}

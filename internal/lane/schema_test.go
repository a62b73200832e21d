package lane

import (
	"testing"

	"github.com/otherwise/perform/internal/schema"
)

// An untagged string is bounded all the same (every route of every area is
// checked in internal/areas/sweep).
func TestEveryRequestStringIsBounded(t *testing.T) {
	type untagged struct {
		Note  string   `json:"note"`
		Notes []string `json:"notes"`
	}
	s := schemaFor[untagged]().schema
	if m := s.Properties["note"].MaxLength; m == nil || *m != schema.MaxFreeText {
		t.Errorf("an untagged string has maxLength %v, want %d", m, schema.MaxFreeText)
	}
	if m := s.Properties["notes"].Items.MaxLength; m == nil || *m != schema.MaxFreeText {
		t.Errorf("an untagged list's strings have maxLength %v", m)
	}
}

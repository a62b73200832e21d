package webui

import (
	"net/http/httptest"
	"testing"
)

func TestPrefersHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8": true,
		"text/html":                         true,
		"application/json, text/html;q=0.5": false,
		"text/html;q=0.9, application/json": false,
		"text/html, application/json":       true,
		"text/html;q=0":                     false,
		"application/json":                  false,
		"*/*":                               false,
		"":                                  false,
	} {
		r := httptest.NewRequest("GET", "/x", nil)
		r.Header.Set("Accept", accept)
		if got := PrefersHTML(r); got != want {
			t.Errorf("PrefersHTML(%q) = %v, want %v", accept, got, want)
		}
	}
}

func TestRole(t *testing.T) {
	for _, c := range []struct{ kind, gender, he, en string }{
		{"coach", "female", "מאמנת", "coach"}, {"coach", "male", "מאמן", "coach"}, {"coach", "", "מאמן/ת", "coach"},
		{"trainee", "female", "מתאמנת", "trainee"}, {"trainee", "male", "מתאמן", "trainee"}, {"trainee", "other", "מתאמן/ת", "trainee"},
	} {
		if got := Role(Hebrew, c.kind, c.gender); got != c.he {
			t.Errorf("Role(he, %s, %q) = %q, want %q", c.kind, c.gender, got, c.he)
		}
		if got := Role(English, c.kind, c.gender); got != c.en {
			t.Errorf("Role(en, %s, %q) = %q, want %q", c.kind, c.gender, got, c.en)
		}
	}
}

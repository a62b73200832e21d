package auth

import (
	"strings"
	"testing"
)

func TestBearer(t *testing.T) {
	for header, want := range map[string]string{
		"Bearer pf_live_abc":    "pf_live_abc",
		"bearer pf_live_abc":    "pf_live_abc",
		"BEARER   pf_live_abc ": "pf_live_abc",
		"Bearer":                "",
		"Bearer ":               "",
		"Basic dXNlcjpwYXNz":    "",
		"pf_live_abc":           "",
		"":                      "",
	} {
		got, ok := Bearer(header)
		if got != want || ok != (want != "") {
			t.Errorf("Bearer(%q) = %q, %v; want %q", header, got, ok, want)
		}
	}
}

// FuzzBearer: an accepted token is non-empty, has no surrounding space and
// came after a Bearer scheme.
func FuzzBearer(f *testing.F) {
	f.Add("Bearer pf_live_abc")
	f.Add("bearer  x ")
	f.Add("Basic abc")
	f.Add("Bearer\tx")
	f.Fuzz(func(t *testing.T, header string) {
		token, ok := Bearer(header)
		if !ok {
			if token != "" {
				t.Fatalf("refused %q but returned %q", header, token)
			}
			return
		}
		if token == "" || token != strings.TrimSpace(token) {
			t.Fatalf("Bearer(%q) = %q", header, token)
		}
		if !strings.EqualFold(strings.TrimSpace(header)[:6], "bearer") || !strings.Contains(header, token) {
			t.Fatalf("Bearer(%q) = %q without a Bearer scheme", header, token)
		}
	})
}

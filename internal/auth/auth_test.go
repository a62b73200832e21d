package auth

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestNewKeyShape(t *testing.T) {
	k := NewKey()
	if !strings.HasPrefix(k, KeyPrefix) || !WellFormed(k) {
		t.Fatalf("NewKey() = %q is not well formed", k)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(k, KeyPrefix))
	if err != nil || len(raw) < 32 {
		t.Fatalf("key body: %d bytes, %v; want 32 random bytes of unpadded base64url", len(raw), err)
	}
	if NewKey() == k {
		t.Fatal("two keys are equal")
	}
	if d := Display(k); len(d) != 15 || !strings.HasPrefix(k, d) {
		t.Errorf("Display = %q", d)
	}
}

func TestHashAndCompare(t *testing.T) {
	k := NewKey()
	if !HashEqual(Hash(k), Hash(k)) || HashEqual(Hash(k), Hash(k+"x")) || len(Hash(k)) != 32 {
		t.Error("Hash/HashEqual disagree with equality of keys")
	}
	for _, s := range []string{"", "pf_live_", "pf_test_" + strings.Repeat("a", 43), "Bearer pf_live_x"} {
		if WellFormed(s) {
			t.Errorf("WellFormed(%q) = true", s)
		}
	}
}
